import Foundation

/// Where an EAN/UPC reading lies in an image, for the checks that judge it (``QuietZones``,
/// ``BarPattern``): the code's axis, its ends along it, its extent across it and its module.
///
/// The axis is the dominant gradient direction inside the points' box (bars lie across it,
/// whoever reported the points, along whichever line they read); every point of a bar has the
/// same position along it, so the reading's ends are its points' extremes there, and a module is
/// that length over the symbology's module count.
struct LinearSpan {
    typealias Vector = (x: Double, y: Double)

    let image: GrayImage
    /// Unit vectors along the code (across the bars) and across it (along the bars).
    let u: Vector, n: Vector
    /// The reading's ends along `u` and its extent along `n`, in `image`'s pixels.
    let t0: Double, t1: Double, s0: Double, s1: Double
    let module: Double

    /// Modules from the first bar of the start guard to the last bar of the end guard, and the
    /// bars between them, of the symbologies judged.
    static func layout(_ symbology: String) -> (modules: Double, bars: Int)? {
        switch symbology {
        case "ean13", "upca", "isbn13", "isbn10": (95, 30)
        case "ean8": (67, 22)
        case "upce": (51, 17)
        default: nil
        }
    }

    /// The span of `symbol` (points in full-image pixels) in `image`, the full image reduced by
    /// `k`; nil for a symbology not judged, an add-on reading, or a flat box.
    init?(_ symbol: Symbol, in image: GrayImage, k: Int) {
        guard let (modules, _) = Self.layout(symbol.symbology.rawValue), symbol.addon == nil, symbol.points.count >= 2 else { return nil }
        let scale = 1 / Double(max(k, 1))
        let points = symbol.points.map { Vector(Double($0.x) * scale, Double($0.y) * scale) }
        guard let u = Self.scanAxis(points, in: image) else { return nil }
        let n = Vector(-u.y, u.x)
        let along = points.map { $0.x * u.x + $0.y * u.y }, across = points.map { $0.x * n.x + $0.y * n.y }
        self.image = image
        self.u = u
        self.n = n
        t0 = along.min()!
        t1 = along.max()!
        s0 = across.min()!
        s1 = across.max()!
        module = (t1 - t0) / modules
    }

    /// The line along the code at fraction `f` of its extent across (0.5: the middle). A reading
    /// from one row (zxing-cpp's points of a code read on one line) counts as 24 modules tall, so
    /// that its lines are not all the same line.
    func line(_ f: Double) -> Double { (s0 + s1) / 2 + (f - 0.5) * max(s1 - s0, 24 * module) }

    /// The bilinear sample at `t` along the code on the line at `s`; nil outside the image.
    func at(_ t: Double, _ s: Double) -> Double? {
        Self.sample(image, x: t * u.x + s * n.x, y: t * u.y + s * n.y)
    }

    /// Samples every `step` pixels from `a` to `b` on the line at `s`; nil when one falls outside.
    func profile(from a: Double, to b: Double, step: Double, s: Double) -> [Double]? {
        var values: [Double] = []
        var t = a
        while t <= b {
            guard let v = at(t, s) else { return nil }
            values.append(v)
            t += step
        }
        return values
    }

    /// A line's darkest and lightest tenths; nil under 20 samples or 24 levels of contrast
    /// (too little to judge).
    static func levels(_ values: [Double]) -> (lo: Double, hi: Double)? {
        guard values.count >= 20 else { return nil }
        let sorted = values.sorted()
        let lo = sorted[sorted.count / 10], hi = sorted[sorted.count * 9 / 10]
        return hi - lo >= 24 ? (lo, hi) : nil
    }

    /// Dark runs along the line at `s` over the reading (hysteresis at 35% and 65% of its
    /// contrast); nil when the line has too little contrast or leaves the image.
    func barCount(s: Double) -> Int? {
        guard let values = profile(from: t0 - 0.5, to: t1 + 0.5, step: 0.25, s: s), let (lo, hi) = Self.levels(values) else { return nil }
        let dark = lo + 0.35 * (hi - lo), light = lo + 0.65 * (hi - lo)
        var count = 0, inBar = false
        for v in values {
            if !inBar && v < dark { inBar = true; count += 1 } else if inBar && v > light { inBar = false }
        }
        return count
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
