import Foundation

/// The check an EAN/UPC reading passes before it becomes a record: no bars right past its ends.
/// A product code read from part of something longer is the misread that costs most (a wrong
/// product in an inventory): a UPC-E read from the left half of an EAN-13 (its end guard matched
/// by the EAN-13's centre guard) has the EAN-13's right half going on where a real UPC-E has 7
/// modules of blank.
///
/// Only a reading whose middle line holds its symbology's bars (30, 22, 17; one more or less) is
/// judged: zbar's points on a rotated code may stop at the centre guard.
///
/// How: the code's axis is the dominant gradient direction inside its box (bars lie across it,
/// whoever reported the points, along whichever line they read); every point of a bar has the
/// same position along it, so the reading's ends are its points' extremes there, and a module is
/// that length over the symbology's module count. On three lines along the axis through the
/// reading, the strip from 1.5 to 7 modules (plus the pass's rounding) beyond each end is
/// sampled for swings between the code's own dark and light levels. A reading fails when every
/// line judged (two at least) swings at least twice past an end and one of them three times: a
/// dark background (one swing) or one border line (two) is not bars, nor are the digits printed
/// beside a code that one line may cross. Lines that leave the image or have too little
/// contrast to judge do not count.
package enum QuietZones {
    /// Modules from the first bar of the start guard to the last bar of the end guard, and the
    /// bars between them.
    static func layout(_ symbology: String) -> (modules: Double, bars: Int)? {
        switch symbology {
        case "ean13", "upca", "isbn13", "isbn10": (95, 30)
        case "ean8": (67, 22)
        case "upce": (51, 17)
        default: nil
        }
    }

    /// Dark runs along the line at `s` from `t0` to `t1` (hysteresis at 35% and 65% of its
    /// contrast); nil when the line has too little contrast or leaves the image.
    static func barCount(_ image: GrayImage, u: Vector, n: Vector, t0: Double, t1: Double, s: Double) -> Int? {
        var values: [Double] = []
        var t = t0 - 0.5
        while t <= t1 + 0.5 {
            guard let v = sample(image, x: t * u.x + s * n.x, y: t * u.y + s * n.y) else { return nil }
            values.append(v)
            t += 0.25
        }
        let sorted = values.sorted()
        guard sorted.count >= 20 else { return nil }
        let lo = sorted[sorted.count / 10], hi = sorted[sorted.count * 9 / 10]
        guard hi - lo >= 24 else { return nil }
        let dark = lo + 0.35 * (hi - lo), light = lo + 0.65 * (hi - lo)
        var count = 0, inBar = false
        for v in values {
            if !inBar && v < dark { inBar = true; count += 1 } else if inBar && v > light { inBar = false }
        }
        return count
    }

    typealias Vector = (x: Double, y: Double)

    /// Whether `symbol` (points in full-image pixels) may stand, judged on `image`, which is the
    /// full image reduced by `k` (1: the full image itself). Codes this does not judge pass.
    package static func pass(_ symbol: Symbol, in image: GrayImage, k: Int = 1) -> Bool {
        guard let (modules, wanted) = layout(symbol.symbology.rawValue), symbol.addon == nil, symbol.points.count >= 2 else { return true }
        let scale = 1 / Double(max(k, 1))
        let points = symbol.points.map { Vector(Double($0.x) * scale, Double($0.y) * scale) }
        guard let u = scanAxis(points, in: image) else { return true }
        let n = Vector(-u.y, u.x)
        // Every point of a bar has the same position along the axis: the reading's ends are its
        // points' extremes there, whichever line the decoder read along.
        let along = points.map { $0.x * u.x + $0.y * u.y }, across = points.map { $0.x * n.x + $0.y * n.y }
        let t0 = along.min()!, t1 = along.max()!, s0 = across.min()!, s1 = across.max()!
        let module = (t1 - t0) / modules
        // Under a pixel a module: too small to tell a bar from blur.
        guard module >= 1 else { return true }
        // The points of a reduced pass are rounded outwards by up to k pixels (one here).
        let margin = k > 1 ? 1.0 : 0.0
        // Only a reading whose span holds its symbology's bars is judged: zbar's points on a
        // rotated code may stop at the centre guard, and the ends would then lie inside the code.
        guard let held = barCount(image, u: u, n: n, t0: t0, t1: t1, s: (s0 + s1) / 2), abs(held - wanted) <= 1 else { return true }
        var swung = 0, barred = 0, judged = 0
        for f in [0.35, 0.5, 0.65] {
            let s = s0 + (s1 - s0) * f
            func at(_ t: Double) -> Double? { sample(image, x: t * u.x + s * n.x, y: t * u.y + s * n.y) }
            // The code's own levels on this line: its darkest and lightest tenths.
            var code: [Double] = []
            var t = t0
            while t <= t1 { if let v = at(t) { code.append(v) }; t += 0.5 }
            guard code.count >= 20 else { continue }
            code.sort()
            let lo = code[code.count / 10], hi = code[code.count * 9 / 10]
            guard hi - lo >= 24 else { continue }
            let dark = lo + 0.35 * (hi - lo), light = lo + 0.65 * (hi - lo)
            // Swings between dark and light from `a` towards `b` (nil: mostly outside the image).
            func swings(from a: Double, to b: Double) -> Int? {
                let step = b > a ? 0.5 : -0.5
                var count = 0, inside = 0, total = 0
                var state = 0  // -1 dark, 1 light, 0 not yet either
                var t = a
                while step > 0 ? t <= b : t >= b {
                    total += 1
                    if let v = at(t) {
                        inside += 1
                        let now = v < dark ? -1 : v > light ? 1 : state
                        if state != 0 && now != state { count += 1 }
                        state = now
                    }
                    t += step
                }
                return inside * 2 >= total ? count : nil
            }
            let near = 1.5 * module + margin, far = 7 * module + margin
            let right = swings(from: t1 + near, to: t1 + far), left = swings(from: t0 - near, to: t0 - far)
            guard right != nil || left != nil else { continue }
            judged += 1
            let most = max(right ?? 0, left ?? 0)
            if most >= 2 { swung += 1 }
            if most >= 3 { barred += 1 }
        }
        // Bars: every line judged (two at least) swings at least twice past an end, and one of
        // them three times (one border line swings twice, a dark background once).
        return judged < 2 || swung < judged || barred == 0
    }

    /// The unit vector across the bars: the dominant gradient direction (structure tensor) in the
    /// points' box, sampled on a grid of at most 64 x 64 pixels. nil when the box is flat.
    static func scanAxis(_ points: [Vector], in image: GrayImage) -> Vector? {
        guard image.width >= 3, image.height >= 3 else { return nil }
        let x0 = max(1, Int(points.map(\.x).min()!)), x1 = min(image.width - 2, Int(points.map(\.x).max()!))
        let y0 = max(1, Int(points.map(\.y).min()!)), y1 = min(image.height - 2, Int(points.map(\.y).max()!))
        guard x1 >= x0, y1 >= y0 else { return nil }
        let stepX = max(1, (x1 - x0) / 64), stepY = max(1, (y1 - y0) / 64)
        var sxx = 0.0, syy = 0.0, sxy = 0.0
        for y in stride(from: y0, through: y1, by: stepY) {
            for x in stride(from: x0, through: x1, by: stepX) {
                let gx = Double(image[x + 1, y]) - Double(image[x - 1, y])
                let gy = Double(image[x, y + 1]) - Double(image[x, y - 1])
                sxx += gx * gx; syy += gy * gy; sxy += gx * gy
            }
        }
        guard sxx + syy > 0 else { return nil }
        let angle = 0.5 * atan2(2 * sxy, sxx - syy)
        return (cos(angle), sin(angle))
    }

    /// The bilinear sample at (x, y); nil outside the image.
    static func sample(_ image: GrayImage, x: Double, y: Double) -> Double? {
        guard x >= 0, y >= 0, x <= Double(image.width - 1), y <= Double(image.height - 1) else { return nil }
        let ix = min(Int(x), image.width - 2), iy = min(Int(y), image.height - 2)
        guard ix >= 0, iy >= 0 else { return Double(image[Int(x), Int(y)]) }
        let fx = x - Double(ix), fy = y - Double(iy)
        let a = Double(image[ix, iy]), b = Double(image[ix + 1, iy])
        let c = Double(image[ix, iy + 1]), d = Double(image[ix + 1, iy + 1])
        return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
    }
}
