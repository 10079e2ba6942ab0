import Foundation

/// The check an EAN/UPC reading passes before it becomes a record: no bars right past its ends.
/// A product code read from part of something longer is the misread that costs most (a wrong
/// product in an inventory): a UPC-E read from the left half of an EAN-13 (its end guard matched
/// by the EAN-13's centre guard) has the EAN-13's right half going on where a real UPC-E has 7
/// modules of blank.
///
/// Only a reading whose middle line holds its symbology's bars (30, 22, 17; one more or less) is
/// judged: zbar's points on a rotated code may stop at the centre guard. One that holds more than
/// 3 bars more fails: it is part of something with more bars.
///
/// How: the code's axis, ends and module as ``LinearSpan`` finds them. On three lines along the
/// axis through the reading, the strip from 1.5 to 7 modules (plus the pass's rounding) beyond
/// each end is sampled for swings between the code's own dark and light levels. A reading fails when every
/// line judged (two at least) swings at least twice past an end and one of them three times: a
/// dark background (one swing) or one border line (two) is not bars, nor are the digits printed
/// beside a code that one line may cross. Lines that leave the image or have too little
/// contrast to judge do not count.
///
/// An M1 Micro QR reading is judged too, by its own rule (``microQRPasses(_:in:k:)``).
package enum QuietZones {
    /// Whether `symbol` (points in full-image pixels) may stand, judged on `image`, which is the
    /// full image reduced by `k` (1: the full image itself). Codes this does not judge pass.
    package static func pass(_ symbol: Symbol, in image: GrayImage, k: Int = 1) -> Bool {
        if symbol.symbology.rawValue == "microqr" { return microQRPasses(symbol, in: image, k: k) }
        guard let span = LinearSpan(symbol, in: image, k: k), let (_, wanted) = LinearSpan.layout(symbol.symbology.rawValue) else { return true }
        let module = span.module, t0 = span.t0, t1 = span.t1
        // Under a pixel a module: too small to tell a bar from blur.
        guard module >= 1 else { return true }
        // The points of a reduced pass are rounded outwards by up to k pixels (one here).
        let margin = k > 1 ? 1.0 : 0.0
        // Only a reading whose span holds its symbology's bars is judged: zbar's points on a
        // rotated code may stop at the centre guard, and the ends would then lie inside the code.
        guard let held = span.barCount(s: span.line(0.5)) else { return true }
        // More bars inside its span than the code has: it was read from part of something with more
        // bars (zxing-cpp's thorough passes read a Japan Post code as an EAN-13).
        if held > wanted + 3 { return false }
        guard abs(held - wanted) <= 1 else { return true }
        var swung = 0, barred = 0, judged = 0
        for f in [0.35, 0.5, 0.65] {
            let s = span.line(f)
            // The code's own levels on this line: its darkest and lightest tenths.
            var code: [Double] = []
            var t = t0
            while t <= t1 { if let v = span.at(t, s) { code.append(v) }; t += 0.5 }
            guard let (lo, hi) = LinearSpan.levels(code) else { continue }
            let dark = lo + 0.35 * (hi - lo), light = lo + 0.65 * (hi - lo)
            // Swings between dark and light from `a` towards `b` (nil: mostly outside the image).
            func swings(from a: Double, to b: Double) -> Int? {
                let step = b > a ? 0.5 : -0.5
                var seen: [Double] = [], total = 0
                var t = a
                while step > 0 ? t <= b : t >= b {
                    total += 1
                    if let v = span.at(t, s) { seen.append(v) }
                    t += step
                }
                return seen.count * 2 >= total ? Self.swings(seen, dark: dark, light: light) : nil
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

    /// An M1 Micro QR code (error detection only, no correction) must have its quiet zone: a QR
    /// code's finder pattern with the modules beside it reads as one (zxing-cpp 3.1.1 alone read
    /// `4`, `29` and `3600` from blurred and curved QR codes), and there the QR code's own modules
    /// lie where an M1's two-module quiet zone is light. On each side of the symbol, the 11
    /// points one module out swing between the symbol's own dark and light levels (its darkest
    /// and lightest tenths) at most once: a shadow over the quiet zone, or its edge, passes (a
    /// review helper's 72 shadowed M1 codes), a QR code's modules swing more. Sides mostly
    /// outside the image, and symbols too faint or under 2 pixels a module, pass.
    static func microQRPasses(_ symbol: Symbol, in image: GrayImage, k: Int) -> Bool {
        guard symbol.version == "M1", symbol.points.count == 4 else { return true }
        let p = symbol.points.map { (x: Double($0.x) / Double(k), y: Double($0.y) / Double(k)) }
        // The image point at (u, v) in the symbol's own frame (0...1 across its 11 modules,
        // corners in zxing-cpp's order), extended bilinearly past its sides.
        func point(_ u: Double, _ v: Double) -> (x: Double, y: Double) {
            let top = (x: p[0].x + (p[1].x - p[0].x) * u, y: p[0].y + (p[1].y - p[0].y) * u)
            let bottom = (x: p[3].x + (p[2].x - p[3].x) * u, y: p[3].y + (p[2].y - p[3].y) * u)
            return (top.x + (bottom.x - top.x) * v, top.y + (bottom.y - top.y) * v)
        }
        func value(_ u: Double, _ v: Double) -> Double? {
            let (x, y) = point(u, v)
            let ix = Int(x.rounded()), iy = Int(y.rounded())
            guard ix >= 0, iy >= 0, ix < image.width, iy < image.height else { return nil }
            return Double(image[ix, iy])
        }
        let side = hypot(p[1].x - p[0].x, p[1].y - p[0].y)
        guard side / 11 >= 2 else { return true }
        let centres = (0..<11).map { (Double($0) + 0.5) / 11 }
        let inside = centres.flatMap { u in centres.compactMap { v in value(u, v) } }
        guard inside.count >= 100, let (lo, hi) = LinearSpan.levels(inside), hi - lo >= 40 else { return true }
        let dark = lo + 0.35 * (hi - lo), light = lo + 0.65 * (hi - lo), out = 1 / 11.0
        let sides: [(Double) -> (Double, Double)] = [{ ($0, -out) }, { (1 + out, $0) }, { ($0, 1 + out) }, { (-out, $0) }]
        for line in sides {
            let seen = centres.compactMap { t -> Double? in let (u, v) = line(t); return value(u, v) }
            // A shadow's edge swings once, a QR code's modules more.
            if seen.count >= 6 && swings(seen, dark: dark, light: light) >= 2 { return false }
        }
        return true
    }

    /// Swings between dark (under `dark`) and light (over `light`) along `values`; a value
    /// between the two keeps the state it follows.
    static func swings(_ values: [Double], dark: Double, light: Double) -> Int {
        var state = 0, count = 0  // state: -1 dark, 1 light, 0 not yet either
        for v in values {
            let now = v < dark ? -1 : v > light ? 1 : state
            if state != 0 && now != state { count += 1 }
            state = now
        }
        return count
    }
}
