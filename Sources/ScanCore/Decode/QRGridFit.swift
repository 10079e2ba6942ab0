import Foundation

/// QR codes zxing-cpp found but could not decode (a checksum error), read again on a module
/// grid fitted to the code's own function patterns.
///
/// zxing-cpp samples a found QR code on one perspective map from its finders (and alignment
/// pattern), one pixel a module, after binarizing the whole image. On a code wrapped round a can
/// or bowed on a curved label the modules drift off that map towards the middle and the read
/// fails its checksum. Here the failed read's corners and version are the start: the grid (its
/// four corners, a cylinder's compression along one side, bows and a swell: ``Grid``) moves a
/// little at a time while the darkness at the finders', separators', timing and alignment patterns'
/// module centres correlates better with what they must be. The modules are then sampled on
/// that grid, thresholded seven ways, drawn as a pure image and given to zxing-cpp, whose
/// Reed-Solomon decoding and checks stand as for any read. On BoofCV's photos, of the QR codes
/// no pass read: 11 more (5 curved, 2 with glare, 2 damaged, one blurred, one non-compliant).
package final class QRGridFit {
    /// Versions up to this are fitted (57 modules a side; the codes it read on BoofCV's photos are
    /// versions 1 to 5). Larger ones are left as they are: not tried (BoofCV's high_version
    /// photos have one such failure, a version 25).
    package static let largestVersion = 10
    private let zxing = ZXingDecoder(symbologies: [Symbology(rawValue: "qrcode")], effort: .fast, pure: true)

    package init() {}

    /// The QR code whose failed read put its corners (top left, top right, bottom right, bottom
    /// left) at `corners` with `version`, read on a fitted grid; nil when no reading decodes.
    package func read(_ image: GrayImage, corners: [Point], version: Int) -> Symbol? {
        guard (1...Self.largestVersion).contains(version), corners.count == 4 else { return nil }
        let dim = 17 + 4 * version
        let pattern = Self.functionPattern(dim: dim)
        let start = Grid(corners: corners.map { (Double($0.x), Double($0.y)) })
        for search in Self.searches {
            let grid = start.fitted(image, dim: dim, pattern: pattern, search: search)
            if let symbol = read(image, on: grid, dim: dim, pattern: pattern) { return symbol }
        }
        return nil
    }

    /// How a fit climbs: each round takes the best of the grid's neighbours, or the first one
    /// that scores better; step sizes in modules, largest first.
    struct Search {
        var takesBest: Bool
        var steps: [Double]
    }

    /// Two climbs from the failed read's corners, the second tried where the first's grid does not
    /// read: each finds grids the other misses (the correlation has local peaks a module apart).
    /// Only the first reads the clean fixture started 1.5 modules off and BoofCV's
    /// damaged/image022; only the second reads qr-curved.png.
    static let searches = [Search(takesBest: true, steps: [2, 1, 0.5, 0.25, 0.125, 0.0625]),
                           Search(takesBest: false, steps: [1, 0.5, 0.25, 0.125, 0.0625])]

    /// The code sampled on `grid`, read one way after another until zxing-cpp decodes one.
    private func read(_ image: GrayImage, on grid: Grid, dim: Int, pattern: [Int8]) -> Symbol? {
        let values = grid.sample(image, dim: dim, at: nil)
        for bits in Self.readings(values, dim: dim, pattern: pattern) {
            guard var symbol = zxing.decode(Self.pureImage(bits, dim: dim)).first else { continue }
            symbol.points = grid.corners.map { Point(x: Int($0.0.rounded()), y: Int($0.1.rounded())) }
            symbol.bbox = Box(enclosing: symbol.points)
            let (dx, dy) = (grid.corners[1].0 - grid.corners[0].0, grid.corners[1].1 - grid.corners[0].1)
            symbol.orientation = Symbol.orientation(degrees: Int((atan2(dy, dx) * 180 / .pi).rounded()))
            return symbol.clamped(width: image.width, height: image.height)
        }
        return nil
    }

    /// What each module of a `dim`-module code must be where the standard fixes it (1 dark,
    /// 0 light, -1 data): the finders, their separators, the timing patterns and the alignment
    /// patterns (row-major).
    package static func functionPattern(dim: Int) -> [Int8] {
        var p = [Int8](repeating: -1, count: dim * dim)
        func set(_ r: Int, _ c: Int, _ v: Int8) { p[r * dim + c] = v }
        for (r0, c0) in [(0, 0), (0, dim - 7), (dim - 7, 0)] {
            for r in 0..<7 {
                for c in 0..<7 {
                    let ring = max(abs(r - 3), abs(c - 3))
                    set(r0 + r, c0 + c, ring == 2 ? 0 : 1)
                }
            }
        }
        for i in 0..<8 {
            set(7, i, 0); set(i, 7, 0)                  // top left
            set(7, dim - 1 - i, 0); set(i, dim - 8, 0)  // top right
            set(dim - 8, i, 0); set(dim - 1 - i, 7, 0)  // bottom left
        }
        for i in 8..<(dim - 8) {
            set(6, i, i % 2 == 0 ? 1 : 0)
            set(i, 6, i % 2 == 0 ? 1 : 0)
        }
        let centres = alignmentCentres(version: (dim - 17) / 4)
        for r in centres {
            for c in centres where p[r * dim + c] == -1 {
                for dr in -2...2 {
                    for dc in -2...2 { set(r + dr, c + dc, max(abs(dr), abs(dc)) == 1 ? 0 : 1) }
                }
            }
        }
        return p
    }

    /// The rows (and columns) of a version's alignment pattern centres (ISO/IEC 18004 annex E),
    /// for the versions fitted here.
    static func alignmentCentres(version: Int) -> [Int] {
        let table: [[Int]] = [[], [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50]]
        return version < table.count ? table[version] : []
    }

    /// The module readings tried, in order: dark below the middle of the darkest and lightest
    /// modules; below the median; below the mean of the 5x5 and of the 9x9 modules round it
    /// (glare and shadows); below the middle of the function patterns' dark and light means, and
    /// below 35% and 65% of the way from their dark mean to their light one.
    static func readings(_ v: [Double], dim: Int, pattern: [Int8]) -> [[Bool]] {
        let lo = v.min() ?? 0, hi = v.max() ?? 0
        let median = v.sorted()[v.count / 2]
        var dark = 0.0, light = 0.0, nd = 0, nl = 0
        for (i, e) in pattern.enumerated() where e >= 0 {
            if e == 1 { dark += v[i]; nd += 1 } else { light += v[i]; nl += 1 }
        }
        let darkMean = dark / Double(max(nd, 1)), lightMean = light / Double(max(nl, 1))
        func between(_ f: Double) -> [Bool] { v.map { $0 < darkMean + f * (lightMean - darkMean) } }
        func local(_ k: Int) -> [Bool] {
            let h = k / 2
            return (0..<(dim * dim)).map { i in
                let r = i / dim, c = i % dim
                var sum = 0.0
                // The window clamped at the edges (edge modules repeated).
                for dr in -h...h {
                    let rr = min(max(r + dr, 0), dim - 1)
                    for dc in -h...h { sum += v[rr * dim + min(max(c + dc, 0), dim - 1)] }
                }
                return v[i] < sum / Double(k * k)
            }
        }
        return [v.map { $0 < (lo + hi) / 2 }, v.map { $0 < median }, local(5), local(9), between(0.5), between(0.35), between(0.65)]
    }

    /// `dim` x `dim` modules (`true` dark), 4 pixels each, in a quiet zone of 4 modules.
    static func pureImage(_ bits: [Bool], dim: Int) -> GrayImage {
        let scale = 4, side = (dim + 8) * scale
        var px = [UInt8](repeating: 255, count: side * side)
        for r in 0..<dim {
            for c in 0..<dim where bits[r * dim + c] {
                let y0 = (r + 4) * scale, x0 = (c + 4) * scale
                for y in y0..<(y0 + scale) { for x in x0..<(x0 + scale) { px[y * side + x] = 0 } }
            }
        }
        return GrayImage(width: side, height: side, pixels: px)
    }

    /// A code's module grid in the image: a perspective map of the unit square onto four corners,
    /// after a cylinder's compression along one side (`phi`, the arc it spans, radians; `centre`,
    /// where the cylinder faces the camera, 0.5 the middle), a bow across it (`bow` modules at
    /// the middle), its swell there (`swell`: the middle, nearer the camera, that much larger
    /// across than the ends, so rows above the middle bow one way and rows below it the other)
    /// and a bow along it (`bowAlong`); `alongRows` picks which side.
    struct Grid {
        var corners: [(Double, Double)]
        var phi = 0.0
        var centre = 0.5
        var bow = 0.0
        var swell = 0.0
        var bowAlong = 0.0
        var alongRows = false

        /// The image point of unit-square point (u, v) (u along the top edge).
        func map(_ u0: Double, _ v0: Double, dim: Int, homography h: [Double]) -> (Double, Double) {
            let (u, v) = alongRows ? (v0, u0) : (u0, v0)
            return place(compressed(u), v, dim: dim, homography: h)
        }

        /// A coordinate along the compressed side (0 ... 1) where the cylinder puts it.
        func compressed(_ u: Double) -> Double {
            guard phi != 0 else { return u }
            let a = sin(-centre * phi), b = sin((1 - centre) * phi)
            return (sin((u - centre) * phi) - a) / (b - a)
        }

        /// The image point of a point `u0` along the compressed side (compressed already) and
        /// `v0` across it.
        func place(_ u0: Double, _ v0: Double, dim: Int, homography h: [Double]) -> (Double, Double) {
            var u = u0, v = v0
            let middle = 4 * u * (1 - u)
            v += bow / Double(dim) * middle + swell * (v - 0.5) * middle
            u += bowAlong / Double(dim) * 4 * v * (1 - v)
            if alongRows { (u, v) = (v, u) }
            let w = h[6] * u + h[7] * v + 1
            return ((h[0] * u + h[1] * v + h[2]) / w, (h[3] * u + h[4] * v + h[5]) / w)
        }

        /// The map of the unit square onto the corners (Heckbert's square-to-quad): a, b, c, d, e, f, g, h.
        var homography: [Double] {
            let (x0, y0) = corners[0], (x1, y1) = corners[1], (x2, y2) = corners[2], (x3, y3) = corners[3]
            let dx3 = x0 - x1 + x2 - x3, dy3 = y0 - y1 + y2 - y3
            if dx3 == 0 && dy3 == 0 { return [x1 - x0, x2 - x1, x0, y1 - y0, y2 - y1, y0, 0, 0] }
            let dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2
            let den = dx1 * dy2 - dx2 * dy1
            guard den != 0 else { return [x1 - x0, x3 - x0, x0, y1 - y0, y3 - y0, y0, 0, 0] }
            let g = (dx3 * dy2 - dx2 * dy3) / den, h = (dx1 * dy3 - dx3 * dy1) / den
            return [x1 - x0 + g * x1, x3 - x0 + h * x3, x0, y1 - y0 + g * y1, y3 - y0 + h * y3, y0, g, h]
        }

        /// The gray level (bilinear) at each module's centre, row-major, or at the modules of `only`.
        func sample(_ image: GrayImage, dim: Int, at only: [Int]?) -> [Double] {
            let h = homography
            let maxX = Double(image.width) - 1.001, maxY = Double(image.height) - 1.001
            // The module centres along the compressed side, compressed once (a sine each).
            let along = (0..<dim).map { compressed((Double($0) + 0.5) / Double(dim)) }
            return image.pixels.withUnsafeBufferPointer { px -> [Double] in
                func value(_ i: Int) -> Double {
                    let (r, c) = (i / dim, i % dim)
                    let (x, y) = alongRows ? place(along[r], (Double(c) + 0.5) / Double(dim), dim: dim, homography: h)
                        : place(along[c], (Double(r) + 0.5) / Double(dim), dim: dim, homography: h)
                    let cx = min(max(x, 0), maxX), cy = min(max(y, 0), maxY)
                    let ix = Int(cx), iy = Int(cy), fx = cx - Double(ix), fy = cy - Double(iy)
                    let o = iy * image.width + ix
                    let top = Double(px[o]) * (1 - fx) + Double(px[o + 1]) * fx
                    let bottom = Double(px[o + image.width]) * (1 - fx) + Double(px[o + image.width + 1]) * fx
                    return top * (1 - fy) + bottom * fy
                }
                return only.map { $0.map(value) } ?? (0..<(dim * dim)).map(value)
            }
        }

        /// How well the darkness at the function patterns' modules correlates with them (-1 ... 1).
        func score(_ image: GrayImage, dim: Int, modules: [Int], expected: [Double]) -> Double {
            let v = sample(image, dim: dim, at: modules)
            let mv = v.reduce(0, +) / Double(v.count), me = expected.reduce(0, +) / Double(expected.count)
            var sxy = 0.0, sxx = 0.0, syy = 0.0
            for i in v.indices {
                let a = mv - v[i], b = expected[i] - me  // darkness: the lower the gray, the darker
                sxy += a * b; sxx += a * a; syy += b * b
            }
            return sxx > 0 && syy > 0 ? sxy / (sxx * syy).squareRoot() : -1
        }

        /// The grid moved a little at a time while the score grows: each round, the neighbours
        /// (each corner a step along x or y, the compression, its centre, either bow, the swell) are scored,
        /// and the best one taken or the first that scores better (`search`); then the next,
        /// smaller step. For a compression along the top edge, then along the left one from the
        /// first's corners: the better of the two.
        func fitted(_ image: GrayImage, dim: Int, pattern: [Int8], search: Search) -> Grid {
            let modules = pattern.indices.filter { pattern[$0] >= 0 }
            let expected = modules.map { Double(pattern[$0]) }
            let side = ((corners[1].0 - corners[0].0) * (corners[1].0 - corners[0].0)
                        + (corners[1].1 - corners[0].1) * (corners[1].1 - corners[0].1)).squareRoot() / Double(dim)
            var best = self, bestScore = score(image, dim: dim, modules: modules, expected: expected)
            for alongRows in [false, true] {
                var current = Grid(corners: best.corners, alongRows: alongRows)
                var currentScore = current.score(image, dim: dim, modules: modules, expected: expected)
                for step in search.steps {
                    var improved = true
                    while improved {
                        improved = false
                        var neighbours: [Grid] = []
                        for k in 0..<4 {
                            for (dx, dy) in [(step, 0.0), (-step, 0), (0, step), (0, -step)] {
                                var g = current
                                g.corners[k] = (g.corners[k].0 + dx * side, g.corners[k].1 + dy * side)
                                neighbours.append(g)
                            }
                        }
                        // The compression (at most 2 radians), either bow (9 modules), the centre (0.2
                        // to 0.8) and the swell (30%).
                        for (parameter, change, range) in [(\Grid.phi, 0.3 * step, 0.0...2), (\Grid.bow, step, -9...9),
                                                           (\Grid.bowAlong, step, -9...9), (\Grid.centre, 0.1 * step, 0.2...0.8),
                                                           (\Grid.swell, 0.02 * step, -0.3...0.3)] {
                            for sign in [1.0, -1.0] {
                                var g = current
                                g[keyPath: parameter] = min(max(g[keyPath: parameter] + sign * change, range.lowerBound), range.upperBound)
                                neighbours.append(g)
                            }
                        }
                        for g in neighbours {
                            let s = g.score(image, dim: dim, modules: modules, expected: expected)
                            if s > currentScore + 1e-6 {
                                current = g
                                currentScore = s
                                improved = true
                                if !search.takesBest { break }
                            }
                        }
                    }
                }
                if currentScore > bestScore { best = current; bestScore = currentScore }
            }
            return best
        }
    }
}
