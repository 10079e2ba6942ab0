import Foundation

/// MaxiCode in photos. zxing-cpp 3.1.1 reads a MaxiCode only from a "pure" image: upright,
/// unskewed, nothing else in it (`MCReader.cpp`, `ExtractPureBits`). So a shipping label's
/// MaxiCode in a photo was read by no decoder here. This reader finds each symbol's bullseye,
/// works out its grid from the rings (an ellipse: the label's turn and slant) and from the
/// orientation patterns (which way is up), samples its 33 rows of hexagons, and hands zxing-cpp a
/// pure image of them. zxing-cpp then does the error correction and the decoding.
///
/// Geometry (ISO/IEC 16023, as zint draws it), in units of X, the distance between module
/// centres in a row:
/// - rows are √3/2 apart, and odd rows are shifted right by X/2;
/// - the bullseye is centred on the centre of module (row 16, column 14);
/// - the bullseye's six circles have radii 0.577 ... 4.5, 0.785 apart.
package final class MaxiCodeReader {
    private let zxing: ZXingDecoder

    package init() {
        zxing = ZXingDecoder(symbologies: [.maxiCode], effort: .fast, pure: true)
    }

    /// A bullseye found in an image: its centre and X (pixels).
    package struct Bullseye: Equatable, Sendable {
        package var x: Double
        package var y: Double
        package var module: Double

        /// Where the symbol around it lies (its 30 by 29 modules, with a margin), inside `bounds`.
        package func box(inside bounds: Box, scale: Int = 1) -> Box? {
            let s = Double(scale), r = 22 * module * s
            let x0 = max(bounds.x, Int(x * s - r)), y0 = max(bounds.y, Int(y * s - r))
            let x1 = min(bounds.x + bounds.width, Int(x * s + r)), y1 = min(bounds.y + bounds.height, Int(y * s + r))
            guard x1 > x0, y1 > y0 else { return nil }
            return Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }
    }

    /// The MaxiCodes read in `image`, and the bullseyes found whose symbols were not read.
    package func decode(_ image: GrayImage) -> (symbols: [Symbol], unread: [Bullseye]) {
        var symbols: [Symbol] = [], unread: [Bullseye] = []
        for eye in Self.bullseyes(in: image) {
            if let symbol = read(image, at: eye) { symbols.append(symbol) } else { unread.append(eye) }
        }
        return (symbols, unread)
    }

    // MARK: Finding bullseyes

    /// At most this many bullseyes per image are looked at (a photo holds one or two MaxiCodes).
    static let maxBullseyes = 4
    /// At most this many places that look like a bullseye along a row and a column are checked all round.
    static let maxAttempts = 64

    /// Bullseyes: rows of the image (every third one) binarized against their neighbourhood and
    /// searched for the rings' 11 runs (dark, light, dark, light, dark, the centre, and back),
    /// each confirmed down the column through its centre.
    package static func bullseyes(in image: GrayImage) -> [Bullseye] {
        guard image.width >= 24, image.height >= 24 else { return [] }
        let thresholds = BlockThresholds(image)
        var found: [Bullseye] = []
        var attempts = 0
        image.pixels.withUnsafeBufferPointer { px in
            let w = image.width, h = image.height
            // Gray levels smoothed by [1 2 1] each way (times 16): sensor noise breaks the rings' runs.
            func smoothed(_ x: Int, _ y: Int) -> Int {
                let xl = max(x - 1, 0), xr = min(x + 1, w - 1), ya = max(y - 1, 0) * w, yb = min(y + 1, h - 1) * w, yc = y * w
                let above = Int(px[ya + xl]) + 2 * Int(px[ya + x]) + Int(px[ya + xr])
                let middle = Int(px[yc + xl]) + 2 * Int(px[yc + x]) + Int(px[yc + xr])
                let below = Int(px[yb + xl]) + 2 * Int(px[yb + x]) + Int(px[yb + xr])
                return above + 2 * middle + below
            }
            func dark(_ x: Int, _ y: Int) -> Bool { smoothed(x, y) < 16 * thresholds.at(x, y) }
            var runs: [Int] = [], column = [Int](repeating: 0, count: w), row = [Int](repeating: 0, count: w)
            // Every third row: rows within 0.58 X of the centre cross it, and a symbol with X
            // under 3 pixels (90 pixels across) is past reading anyway.
            for y in stride(from: 1, to: h - 1, by: 3) {
                // The row smoothed, and its runs (starting with a light one, possibly empty).
                runs.removeAll(keepingCapacity: true)
                column.withUnsafeMutableBufferPointer { column in
                    row.withUnsafeMutableBufferPointer { row in
                        let above = (y - 1) * w, at = above + w, below = at + w
                        for x in 0..<w { column[x] = Int(px[above + x]) + 2 * Int(px[at + x]) + Int(px[below + x]) }
                        row[0] = 4 * column[0]; row[w - 1] = 4 * column[w - 1]
                        for x in 1..<(w - 1) { row[x] = column[x - 1] + 2 * column[x] + column[x + 1] }
                        var current = false, length = 0
                        let blocks = (y / thresholds.side) * thresholds.columns
                        for bx in 0..<thresholds.columns {
                            let t = 16 * thresholds.values[blocks + bx]
                            for x in (bx * thresholds.side)..<min(w, (bx + 1) * thresholds.side) {
                                let d = row[x] < t
                                if d == current { length += 1 } else { runs.append(length); current = d; length = 1 }
                            }
                        }
                        runs.append(length)
                    }
                }
                despeckle(&runs)
                // Runs at odd indices are dark.
                var start = runs[0]
                var i = 1
                while i + 10 < runs.count {
                    defer { start += runs[i] + runs[i + 1]; i += 2 }
                    guard ringUnit(runs, at: i) != nil else { continue }
                    let window = Array(runs[i..<(i + 11)])
                    // Rings and gaps, not noise: every dark run darker than every light run, by a margin.
                    var darkest = 0.0, lightest = 255.0, x0 = start
                    for (j, length) in window.enumerated() {
                        var sum = 0
                        for x in x0..<(x0 + length) { sum += row[x] }
                        let mean = Double(sum) / Double(16 * length)
                        if j % 2 == 0 { darkest = max(darkest, mean) } else { lightest = min(lightest, mean) }
                        x0 += length
                    }
                    guard lightest - darkest >= 30 else { continue }
                    let centre = start + window[0..<5].reduce(0, +)
                    let cx = Double(centre) + Double(window[5]) / 2
                    if found.contains(where: { abs($0.x - cx) < 3 * $0.module && abs($0.y - Double(y)) < 3 * $0.module }) { continue }
                    // Down the column through the centre, then across the row through that, for x.
                    let longest = 4 * window[1...9].reduce(0, +) / 9 + 2
                    guard let (cy, vunit) = lineCentre(Int(cx), y, across: false, longest: longest, image: image, dark: dark),
                          let (rx, hunit) = lineCentre(Int(cx), Int(cy.rounded()), across: true, longest: longest, image: image, dark: dark),
                          vunit < 1.5 * hunit, hunit < 1.5 * vunit else { continue }
                    // Confirmed by the rings all round (a row through data modules beside the
                    // bullseye can look like it too); the fit moves the centre where the rings say.
                    attempts += 1
                    if attempts > maxAttempts { return }
                    let guess = Bullseye(x: rx, y: cy, module: (hunit + vunit) / 2 / ringStep)
                    guard let grid = SymbolGrid.fitted(image, at: guess) else { continue }
                    let eye = Bullseye(x: grid.p[4], y: grid.p[5], module: grid.module)
                    if found.contains(where: { abs($0.x - eye.x) < 3 * $0.module && abs($0.y - eye.y) < 3 * $0.module }) { continue }
                    found.append(eye)
                    if found.count >= maxBullseyes { return }
                }
            }
        }
        return found
    }

    /// Radii of the bullseye's six circles, in X: the centre's diameter is a module's long
    /// diameter (2/√3), the whole is 9 X across, and the five steps between are equal.
    static let circleRadii: [Double] = (0..<6).map { (i: Int) -> Double in
        let centre: Double = 2 / 3.0.squareRoot()
        return (centre + Double(i) * (9 - centre) / 5) / 2
    }
    /// The width of one ring (and of one gap between rings), in X.
    static let ringStep = circleRadii[1] - circleRadii[0]
    /// The mid-radius of the inner two dark rings and the gaps after them, in X: what blur
    /// leaves in place (the outer ring's outer edge may join data modules).
    static let ringRadii = [0, 1, 2, 3].map { (circleRadii[$0] + circleRadii[$0 + 1]) / 2 }

    /// Whether 11 runs (dark first) look like a line through the bullseye's centre: the ten ring
    /// runs alike, each dark-light pair about two of them, the centre wider, both halves alike.
    /// Returns the mean ring run, in pixels.
    static func ringUnit(_ runs: [Int], at i: Int = 0) -> Double? {
        func r(_ k: Int) -> Int { runs[i + k] }
        // The outer ring's outer edge is left out: blur joins it to data modules close by.
        let sum = r(1) + r(2) + r(3) + r(4) + r(6) + r(7) + r(8) + r(9)
        let unit = Double(sum) / 8
        guard unit >= 1.2, Double(r(0)) >= 0.5 * unit, Double(r(10)) >= 0.5 * unit else { return nil }
        for k in [1, 2, 3, 4, 6, 7, 8, 9] where Double(r(k)) < 0.4 * unit || Double(r(k)) > 1.8 * unit { return nil }
        // The centre is 1.47 times as wide as a gap, less where blur fills it from all round.
        let centre = Double(r(5)), gaps = Double(r(1) + r(3) + r(7) + r(9)) / 4
        guard centre >= 0.85 * gaps, centre <= 3.5 * unit else { return nil }
        for (a, b) in [(1, 2), (3, 4), (6, 7), (8, 9)] {
            let pair = Double(r(a) + r(b))
            if pair < 1.4 * unit || pair > 2.6 * unit { return nil }
        }
        let left = Double(r(1) + r(2) + r(3) + r(4)), right = Double(r(6) + r(7) + r(8) + r(9))
        guard left < 1.3 * right, right < 1.3 * left else { return nil }
        return unit
    }

    /// A run of one pixel right after a run of 12 or more is a blurred edge crossing a step between
    /// two blocks' thresholds, not a ring (rings that wide have no runs of one; at X 5 or 6,
    /// blurred, they do).
    static func isSpeck(_ run: Int, after previous: Int) -> Bool { run == 1 && previous >= 12 }

    /// Each speck is merged, with the run after it, into the run before: dark and light keep alternating.
    package static func despeckle(_ runs: inout [Int]) {
        var kept = 0, i = 0
        while i < runs.count {
            if kept > 0, isSpeck(runs[i], after: runs[kept - 1]), i + 1 < runs.count {
                runs[kept - 1] += 1 + runs[i + 1]
                i += 2
            } else {
                runs[kept] = runs[i]
                kept += 1
                i += 1
            }
        }
        runs.removeLast(runs.count - kept)
    }

    /// The bullseye's centre through the light pixel (x, y), down its column (`across` false) or
    /// along its row (`across` true): the coordinate on that line and the mean ring run. A run
    /// longer than `longest` (the outer ring's, three times that) is not the rings: the line ends
    /// there, so a crafted image of long stripes costs no more than one of rings.
    private static func lineCentre(_ x: Int, _ y: Int, across: Bool, longest: Int, image: GrayImage,
                                   dark: (Int, Int) -> Bool) -> (Double, Double)? {
        guard x >= 0, x < image.width, y >= 0, y < image.height, !dark(x, y) else { return nil }
        let limit = across ? image.width : image.height, start = across ? x : y
        func runs(step: Int) -> [Int]? {
            var out: [Int] = [], at = start, current = false, length = 0
            while true {
                at += step
                guard at >= 0, at < limit else { return nil }
                let d = across ? dark(at, y) : dark(x, at)
                if d == current { length += 1 } else {
                    out.append(length); current = d; length = 1
                    despeckle(&out)
                    // Six runs are final unless the sixth is a speck (merged with the run after it).
                    if out.count > 6 || out.count == 6 && !isSpeck(out[5], after: out[4]) { return Array(out.prefix(6)) }
                }
                if length > (out.count < 5 ? longest : 3 * longest) { return nil }
            }
        }
        guard let before = runs(step: -1), let after = runs(step: 1) else { return nil }
        // before[0] and after[0]: the centre's light on either side of the pixel (itself one more).
        let r = Array(before[1...5].reversed()) + [before[0] + after[0] + 1] + Array(after[1...5])
        guard let unit = ringUnit(r) else { return nil }
        return (Double(start - before[0]) + Double(r[5]) / 2 - 0.5, unit)
    }

    // MARK: Reading one symbol

    /// The symbol around `eye`, or nil.
    func read(_ image: GrayImage, at eye: Bullseye) -> Symbol? {
        guard let base = SymbolGrid.fitted(image, at: eye) else { return nil }
        // The turn: the orientation patterns' 18 modules, every degree; then the best few,
        // each refined on the whole symbol's contrast and read.
        let turns = (0..<360).map { deg -> (Double, Double) in
            let t = Double(deg) * .pi / 180
            return (t, base.turned(t).orientationScore(image))
        }.sorted { $0.1 > $1.1 }
        var tried: [Double] = []
        for (t, score) in turns where score > 0 {
            if tried.contains(where: { abs(remainder($0 - t, 2 * .pi)) < 10 * .pi / 180 }) { continue }
            tried.append(t)
            if tried.count > 3 { break }
            let grid = base.turned(t).refined(image)
            for bits in grid.readings(image) {
                if var symbol = zxing.decode(Self.pureImage(bits)).first {
                    symbol.points = grid.corners.map { Point(x: Int($0.x.rounded()), y: Int($0.y.rounded())) }
                    symbol.bbox = Box(enclosing: symbol.points)
                    symbol.orientation = grid.orientation
                    return symbol
                }
            }
        }
        return nil
    }

    /// 33 rows of 30 modules (`true` dark) drawn as zxing-cpp's pure-image reader samples them:
    /// module (r, c) is a 4x4 block at (4c + 2(r odd), 4r); a pixel at two opposite corners of
    /// the grid, where it never samples, makes its bounding box the grid's.
    package static func pureImage(_ bits: [Bool]) -> GrayImage {
        let margin = 4, w = 120 + 2 * margin + 2, h = 132 + 2 * margin
        var px = [UInt8](repeating: 255, count: w * h)
        for r in 0..<33 {
            for c in 0..<(30 - (r & 1)) where bits[r * 30 + c] {
                let x0 = margin + 4 * c + 2 * (r & 1), y0 = margin + 4 * r
                for y in y0..<(y0 + 4) { for x in x0..<(x0 + 4) { px[y * w + x] = 0 } }
            }
        }
        px[margin * w + margin] = 0
        px[(margin + 131) * w + margin + 119] = 0
        return GrayImage(width: w, height: h, pixels: px)
    }
}

/// Block thresholds for the bullseye search: the mean gray of each block and its eight
/// neighbours; where their spread is no more than noise's, nothing there is dark (no edges to
/// find) unless it is darker than the thresholds beside it.
private struct BlockThresholds {
    let side: Int, columns: Int
    var values: [Int]

    init(_ image: GrayImage) {
        let side = max(8, min(image.width, image.height) / 128), columns = (image.width + side - 1) / side
        self.side = side
        self.columns = columns
        let rows = (image.height + side - 1) / side
        var sum = [Int](repeating: 0, count: columns * rows), squares = sum, count = sum
        // Every fourth row is enough for a block's mean and spread.
        image.pixels.withUnsafeBufferPointer { px in
            for y in stride(from: 1, to: image.height, by: 4) {
                let b = (y / side) * columns, line = y * image.width
                for bx in 0..<columns {
                    var s = 0, q = 0
                    let x0 = bx * side, x1 = min(image.width, x0 + side)
                    for x in x0..<x1 { let v = Int(px[line + x]); s += v; q += v * v }
                    sum[b + bx] += s; squares[b + bx] += q; count[b + bx] += x1 - x0
                }
            }
        }
        values = [Int](repeating: 0, count: columns * rows)
        for by in 0..<rows {
            for bx in 0..<columns {
                var s = 0, q = 0, n = 0
                for yy in max(0, by - 1)...min(rows - 1, by + 1) {
                    for xx in max(0, bx - 1)...min(columns - 1, bx + 1) {
                        let i = yy * columns + xx
                        s += sum[i]; q += squares[i]; n += count[i]
                    }
                }
                guard n > 0 else { continue }
                let mean = Double(s) / Double(n), variance = Double(q) / Double(n) - mean * mean
                if variance >= 12 * 12 { values[by * columns + bx] = Int(mean.rounded()); continue }
                // A flat block: half its mean (nothing there is dark), unless it is darker than its
                // neighbours' threshold (left, above): then it lies inside a dark ring wider than
                // the blocks and takes their threshold (as zxing-cpp's HybridBinarizer does).
                let before = (bx > 0 ? [values[by * columns + bx - 1]] : []) + (by > 0 ? [values[(by - 1) * columns + bx]] : [])
                let t = before.isEmpty ? 0 : before.reduce(0, +) / before.count
                values[by * columns + bx] = mean < Double(t) ? t : Int(mean / 2)
            }
        }
    }

    func at(_ x: Int, _ y: Int) -> Int { values[(y / side) * columns + x / side] }
}

/// Where a MaxiCode's modules lie in an image: a projective map from the symbol's plane (in X,
/// centred on the bullseye, y down) to pixels.
struct SymbolGrid {
    /// x' = (a·x + b·y + cx·w) / w, y' = (d·x + e·y + cy·w) / w, w = 1 + g·x + h·y.
    var p: [Double]  // a b d e cx cy g h

    /// The gray levels of the bullseye's dark rings and light gaps: the threshold between.
    var threshold: Double

    /// X in pixels (the mean over directions).
    var module: Double { abs(p[0] * p[3] - p[1] * p[2]).squareRoot() }

    func map(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        let w = 1 + p[6] * x + p[7] * y
        return ((p[0] * x + p[1] * y) / w + p[4], (p[2] * x + p[3] * y) / w + p[5])
    }

    /// Module centres in the symbol's plane, row by row (30 each; an odd row's last is outside).
    static let centres: [(x: Double, y: Double)] = (0..<33).flatMap { (r: Int) -> [(x: Double, y: Double)] in
        let y: Double = Double(r - 16) * 3.0.squareRoot() / 2, shift: Double = r & 1 == 1 ? 0.5 : 0
        return (0..<30).map { (c: Int) -> (x: Double, y: Double) in (Double(c) + shift - 14, y) }
    }

    /// The modules around the bullseye that are always dark and always light (the orientation
    /// patterns, -2 and -1 in zxing-cpp's `MCBitMatrixParser.cpp` BITNR table), (row, column).
    static let fixedDark = [(9, 10), (9, 11), (10, 11), (15, 7), (16, 8), (16, 20), (17, 20), (22, 10), (22, 17), (23, 10), (23, 17)]
    static let fixedLight = [(9, 17), (10, 17), (10, 18), (16, 7), (16, 21), (22, 11), (23, 16)]
    /// The bullseye's zone (and an odd row's 30th place): no data there.
    static let unused: Set<Int> = {
        var s = Set<Int>()
        for r in stride(from: 1, to: 33, by: 2) { s.insert(r * 30 + 29) }
        for (i, c) in centres.enumerated() where (c.x * c.x + c.y * c.y).squareRoot() < 5.2 { s.insert(i) }
        return s
    }()

    /// The ellipse of the bullseye's rings around `eye`: 32 rays from its centre, each crossing
    /// the three dark rings; their mid-radii, divided by the rings' radii in X, lie on the
    /// image of a circle of radius X (a conic through the centre, fitted by least squares).
    /// The centre is moved to the middle of opposite rays' crossings first.
    static func fitted(_ image: GrayImage, at eye: MaxiCodeReader.Bullseye) -> SymbolGrid? {
        var cx = eye.x, cy = eye.y
        let rays = 32
        var crossings: [(dx: Double, dy: Double, r: [Double])?] = []
        var levels: (dark: Double, light: Double) = (0, 255)
        for pass in 0..<3 {
            let found = (0..<rays).map { k in
                let a = Double(k) * 2 * .pi / Double(rays)
                return ringCrossings(image, cx, cy, cos(a), sin(a), module: eye.module).map { (dx: cos(a), dy: sin(a), ring: $0) }
            }
            crossings = found.map { $0.map { ($0.dx, $0.dy, $0.ring.radii) } }
            let lv = found.compactMap { $0.map { ($0.ring.dark, $0.ring.light) } }
            if !lv.isEmpty { levels = (lv.map(\.0).reduce(0, +) / Double(lv.count), lv.map(\.1).reduce(0, +) / Double(lv.count)) }
            guard pass < 2 else { break }
            var sx = 0.0, sy = 0.0, n = 0.0
            for k in 0..<(rays / 2) {
                guard let a = crossings[k], let b = crossings[k + rays / 2] else { continue }
                for j in 1...3 {
                    let shift = (a.r[j] - b.r[j]) / 2
                    sx += a.dx * shift; sy += a.dy * shift; n += 1
                }
            }
            guard n >= 8 else { return nil }
            cx += sx / n; cy += sy / n
        }
        // Most rays cross the rings as rings: a row of data modules beside the bullseye may
        // look like them along one line, not all round.
        guard crossings.filter({ $0 != nil }).count >= rays * 3 / 4 else { return nil }
        // a x² + b xy + c y² = 1 through the points (x, y) = direction · radius / ring radius.
        var m = [[Double]](repeating: [0, 0, 0], count: 3), v = [0.0, 0, 0]
        var count = 0
        for case let c? in crossings {
            for j in 1...3 {
                let s = c.r[j] / MaxiCodeReader.ringRadii[j]
                let x = c.dx * s, y = c.dy * s, row = [x * x, x * y, y * y]
                for i in 0..<3 { for k in 0..<3 { m[i][k] += row[i] * row[k] }; v[i] += row[i] }
                count += 1
            }
        }
        guard count >= 24, let abc = BarPattern.solve(m, v) else { return nil }
        let (a, b, c) = (abc[0], abc[1], abc[2])
        // The conic's matrix Q = [[a, b/2], [b/2, c]]; the map from the circle is Q^(-1/2).
        let q12 = b / 2, tr = a + c, det = a * c - q12 * q12
        guard a > 0, c > 0, det > 0 else { return nil }
        let disc = ((a - c) * (a - c) / 4 + q12 * q12).squareRoot()
        let l1 = tr / 2 + disc, l2 = tr / 2 - disc
        guard l2 > 0, l1 / l2 < 9 else { return nil }
        // Eigenvectors of Q: (q12, l - a) or (l - c, q12).
        var ex = q12, ey = l1 - a
        if abs(ex) + abs(ey) < 1e-12 { ex = l1 - c; ey = q12 }
        if abs(ex) + abs(ey) < 1e-12 { ex = 1; ey = 0 }
        let n = (ex * ex + ey * ey).squareRoot(); ex /= n; ey /= n
        let s1 = 1 / l1.squareRoot(), s2 = 1 / l2.squareRoot()
        // Q^(-1/2) = s1 e eᵀ + s2 f fᵀ, with f = e turned a quarter.
        let fx = -ey, fy = ex
        let m00 = s1 * ex * ex + s2 * fx * fx, m01 = s1 * ex * ey + s2 * fx * fy
        let m11 = s1 * ey * ey + s2 * fy * fy
        guard s2 >= 1.2 else { return nil }
        return SymbolGrid(p: [m00, m01, m01, m11, cx, cy, 0, 0], threshold: (levels.dark + levels.light) / 2)
    }

    /// Along one ray from the centre: the mid-radius of each of the three dark rings (pixels),
    /// and the mean gray of the dark rings and the light gaps; nil if the ray does not cross
    /// them as the rings would.
    static func ringCrossings(_ image: GrayImage, _ cx: Double, _ cy: Double, _ dx: Double, _ dy: Double,
                              module: Double) -> (radii: [Double], dark: Double, light: Double)? {
        let step = 0.25, limit = 4.5 * module * 2.2
        var profile: [Double] = []
        var t = 0.0
        while t <= limit {
            guard let g = LinearSpan.sample(image, x: cx + dx * t, y: cy + dy * t) else { break }
            profile.append(g)
            t += step
        }
        guard profile.count > 8 else { return nil }
        // The threshold: halfway between the darkest and lightest of the profile's inner part.
        let inner = profile.prefix(Int(4.7 * module * 2.2 / step))
        guard let lo = inner.min(), let hi = inner.max(), hi - lo > 30 else { return nil }
        let th = (lo + hi) / 2
        var edges: [Double] = []
        var dark = profile[0] < th
        if dark { return nil }  // the centre is light
        for i in 1..<profile.count where (profile[i] < th) != dark {
            let f = (th - profile[i - 1]) / (profile[i] - profile[i - 1])
            edges.append((Double(i - 1) + f) * step)
            dark.toggle()
            if edges.count == 5 { break }
        }
        guard edges.count >= 5 else { return nil }
        let radii = (0..<4).map { (edges[$0] + edges[$0 + 1]) / 2 }
        // Like the rings: mid-radii 0.785 X apart, the first 0.97 X out.
        let scales = (0..<4).map { radii[$0] / MaxiCodeReader.ringRadii[$0] }, scale = scales.reduce(0, +) / 4
        guard scales.allSatisfy({ $0 > 0.8 * scale && $0 < 1.2 * scale }) else { return nil }
        var darkSum = 0.0, lightSum = 0.0, nd = 0.0, nl = 0.0
        for (i, g) in profile.enumerated() {
            let r = Double(i) * step
            guard r > edges[0], r < edges[4] else { continue }
            let inDark = (r > edges[0] && r < edges[1]) || (r > edges[2] && r < edges[3])
            if inDark { darkSum += g; nd += 1 } else { lightSum += g; nl += 1 }
        }
        guard nd > 0, nl > 0 else { return nil }
        return (radii, darkSum / nd, lightSum / nl)
    }

    /// The same map after turning the symbol's plane by `t` (radians): which way is up.
    func turned(_ t: Double) -> SymbolGrid {
        let c = cos(t), s = sin(t)
        var q = p
        q[0] = p[0] * c + p[1] * s; q[1] = -p[0] * s + p[1] * c
        q[2] = p[2] * c + p[3] * s; q[3] = -p[2] * s + p[3] * c
        return SymbolGrid(p: q, threshold: threshold)
    }

    /// How well the orientation patterns fit: gray above the threshold where light, below where dark.
    func orientationScore(_ image: GrayImage) -> Double {
        var score = 0.0
        for (r, c) in Self.fixedDark { score += threshold - sample(image, r * 30 + c) }
        for (r, c) in Self.fixedLight { score += sample(image, r * 30 + c) - threshold }
        return score
    }

    func sample(_ image: GrayImage, _ index: Int) -> Double {
        let m = Self.centres[index], q = map(m.x, m.y)
        return LinearSpan.sample(image, x: q.x, y: q.y) ?? threshold
    }

    /// The whole symbol's contrast: data modules far from the threshold where the grid sits on
    /// their centres, near it where it sits between them.
    func contrast(_ image: GrayImage) -> Double {
        var sum = 0.0
        for i in 0..<Self.centres.count where !Self.unused.contains(i) { sum += abs(sample(image, i) - threshold) }
        return sum + 4 * orientationScore(image)
    }

    /// The map moved a little at a time (centre, each entry, the perspective) while the contrast grows.
    func refined(_ image: GrayImage) -> SymbolGrid {
        var best = self, bestScore = contrast(image)
        let scale = (abs(p[0] * p[3] - p[1] * p[2])).squareRoot()
        var steps = [0.02 * scale, 0.02 * scale, 0.02 * scale, 0.02 * scale, 0.15 * scale, 0.15 * scale, 0.002, 0.002]
        for _ in 0..<6 {
            var improved = false
            for i in 0..<8 {
                for sign in [-1.0, 1.0] {
                    var g = best
                    g.p[i] += sign * steps[i]
                    let s = g.contrast(image)
                    if s > bestScore { best = g; bestScore = s; improved = true }
                }
            }
            if !improved { steps = steps.map { $0 / 2 } }
        }
        return best
    }

    /// The modules read at their centres, against thresholds around the one between the
    /// rings and gaps (the sampled levels' own midpoint first).
    func readings(_ image: GrayImage) -> [[Bool]] {
        let values = (0..<Self.centres.count).map { sample(image, $0) }
        let data = values.enumerated().filter { !Self.unused.contains($0.offset) }.map { UInt8(max(0, min(255, $0.element.rounded()))) }
        let otsu = Double(FrameOps.otsu(data)) - 0.5
        return [otsu, threshold].map { t in
            var bits = values.map { $0 < t }
            for (r, c) in Self.fixedDark { bits[r * 30 + c] = true }
            for (r, c) in Self.fixedLight { bits[r * 30 + c] = false }
            return bits
        }
    }

    /// The symbol's corners in the image: top left, top right, bottom right, bottom left.
    var corners: [(x: Double, y: Double)] {
        let top = -16 * 3.0.squareRoot() / 2 - 1 / 3.0.squareRoot(), bottom = -top
        return [(-14.5, top), (15.5, top), (15.5, bottom), (-14.5, bottom)].map { map($0.0, $0.1) }
    }

    /// Which way the symbol's top faces, as the other decoders name it.
    var orientation: String {
        let up = map(0, -10), c = map(0, 0)
        return Symbol.orientation(degrees: Int((atan2(up.x - c.x, c.y - up.y) * 180 / .pi).rounded()))
    }
}
