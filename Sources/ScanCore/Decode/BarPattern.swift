import Foundation

/// The second check an EAN/UPC reading passes before it becomes a record: the bars in the image
/// are the bars its digits encode. A decoder that reads a code of another symbology as an EAN-13
/// (a Code 11 of ten characters has exactly its 30 bars, and a rotated, blurred one was read as
/// `3927182115070`) reports digits whose bar edges fall nowhere near the edges in the image.
///
/// How: on three lines along the code (``LinearSpan``), from one module before its start to one
/// after its end, the edges between bar and space are found (hysteresis at 35% and 65% of the
/// line's contrast, each edge placed where the line crosses 50%). A line is judged only when it
/// holds exactly the reading's edges (60 for an EAN-13): blur that merges bars leaves it unjudged.
/// The edges' positions are fitted by least squares to where the reading puts them: start +
/// module width x module position, plus an ink spread that moves edges into a bar or out of it
/// alike (print gain, blur); piece by piece (each edge among the 11 around it: a curved label, a
/// can), and as one perspective map of the whole code (a label seen at an angle). The residuals in
/// modules, as a root mean square over the edges, of the better fit are the line's misfit; the
/// code may run either way, so the smaller of the two directions counts. A reading fails when two
/// lines at least are judged and every one misses by 0.4 module or more. Measured on 235 genuine
/// readings judged (the photo sets, zxing-cpp's EAN/UPC samples, and EAN-13/UPC-A/EAN-8/UPC-E
/// rotated, keystoned, wrapped round cans up to their edge, blurred, JPEG): at most 0.25; on 33
/// Code 11 misreads: 0.52 to 0.65. (With 17 edges a piece, cans near their edge missed by 0.68.)
package enum BarPattern {
    /// Whether `symbol` (points in full-image pixels) may stand, judged on `image`, which is the
    /// full image reduced by `k`. Codes this does not judge pass.
    package static func fits(_ symbol: Symbol, in image: GrayImage, k: Int = 1) -> Bool {
        guard let misfits = misfits(symbol, in: image, k: k) else { return true }
        return misfits.count < 2 || misfits.contains { $0 < 0.4 }
    }

    /// The misfit (modules, root mean square) of each line judged; nil when the reading is not
    /// judged at all (another symbology, digits that do not make a pattern, modules under a pixel).
    package static func misfits(_ symbol: Symbol, in image: GrayImage, k: Int = 1) -> [Double]? {
        guard let pattern = modules(symbol), let span = LinearSpan(symbol, in: image, k: k), span.module >= 1 else { return nil }
        // Edges the reading puts in the code: module positions where bar and space change.
        var expected: [Double] = []
        var previous = 0
        for (m, v) in (pattern + [0]).enumerated() where v != previous {
            expected.append(Double(m))
            previous = v
        }
        // The same edges read from the other end (the code may run either way).
        let total = Double(pattern.count), reversed = expected.reversed().map { total - $0 }
        var misfits: [Double] = []
        for f in [0.35, 0.5, 0.65] {
            let s = span.line(f), step = 0.25, start = span.t0 - span.module
            guard let values = span.profile(from: start, to: span.t1 + span.module, step: step, s: s),
                  let found = edges(values), found.count == expected.count else { continue }
            let measured = found.map { start + step * $0 }
            misfits.append(min(misfit(measured, expected), misfit(measured, reversed)))
        }
        return misfits
    }

    /// The reading's modules (1 bar, 0 space) from the first bar of its start guard to the last
    /// bar of its end guard; nil for a symbology not judged or digits that do not make one.
    package static func modules(_ symbol: Symbol) -> [Int]? {
        let digits = symbol.text.compactMap(\.wholeNumberValue)
        guard digits.count == symbol.text.count else { return nil }
        return modules(symbology: symbol.symbology.rawValue, digits: digits)
    }

    /// The modules of `digits` read as `symbology` (see ``modules(_:)``).
    package static func modules(symbology: String, digits: [Int]) -> [Int]? {
        func digit(_ d: Int, _ set: Character) -> [Int] { GrayLinear.modules(digit: d, set: set == "L" ? 0 : set == "G" ? 1 : 2) }
        let guardBars = [1, 0, 1], centre = [0, 1, 0, 1, 0]
        switch (symbology, digits.count) {
        case ("ean13", 13), ("isbn13", 13), ("upca", 12):
            let code = digits.count == 12 ? [0] + digits : digits
            let sets = GrayLinear.parities[code[0]]
            let left = zip(code[1...6], sets).flatMap { digit($0, $1) }
            return guardBars + left + centre + code[7...12].flatMap { digit($0, "R") } + guardBars
        case ("ean8", 8):
            return guardBars + digits[0...3].flatMap { digit($0, "L") } + centre + digits[4...7].flatMap { digit($0, "R") } + guardBars
        case ("upce", 8) where digits[0] <= 1:
            // Number system 0 takes these sets by check digit; number system 1 the opposite ones.
            var sets = Array(upceParities[digits[7]])
            if digits[0] == 1 { sets = sets.map { $0 == "L" ? "G" : "L" } }
            return guardBars + zip(digits[1...6], sets).flatMap { digit($0, $1) } + [0, 1, 0, 1, 0, 1]
        default:
            return nil
        }
    }

    /// The sets of a UPC-E's six digits (number system 0), by its check digit.
    static let upceParities = ["GGGLLL", "GGLGLL", "GGLLGL", "GGLLLG", "GLGGLL", "GLLGGL", "GLLLGG", "GLGLGL", "GLGLLG", "GLLGLG"]

    /// Positions (in samples, interpolated) of the edges along a line, from the first edge into a
    /// bar to the last edge out of one: hysteresis at 35% and 65% of the line's contrast, each edge
    /// placed at the last 50% crossing before the change. nil when the line has too little contrast.
    static func edges(_ values: [Double]) -> [Double]? {
        guard let (lo, hi) = LinearSpan.levels(values) else { return nil }
        let dark = lo + 0.35 * (hi - lo), light = lo + 0.65 * (hi - lo), mid = (lo + hi) / 2
        var found: [(at: Double, intoBar: Bool)] = []
        var state = 0  // -1 dark, 1 light, 0 not yet either
        var crossing = 0.0
        for (i, v) in values.enumerated() {
            if i > 0, (values[i - 1] < mid) != (v < mid) { crossing = Double(i - 1) + (mid - values[i - 1]) / (v - values[i - 1]) }
            let now = v < dark ? -1 : v > light ? 1 : state
            if state != 0 && now != state { found.append((crossing, now == -1)) }
            state = now
        }
        guard let first = found.firstIndex(where: \.intoBar), let last = found.lastIndex(where: { !$0.intoBar }), first < last else { return [] }
        return found[first...last].map(\.at)
    }

    /// How far, in modules, the measured edges are from where the reading puts them: the better
    /// of a fit that follows the code piece by piece (a curved label) and one of the whole code
    /// seen at an angle.
    static func misfit(_ measured: [Double], _ expected: [Double]) -> Double {
        min(localMisfit(measured, expected), perspectiveMisfit(measured, expected))
    }

    /// Root mean square, in modules, of each edge's residual from the line fitted to the 11 edges
    /// around it: position = start + width x module + spread x (-1 into a bar, +1 out of it).
    static func localMisfit(_ measured: [Double], _ expected: [Double]) -> Double {
        let count = measured.count, window = min(11, count)
        var sum = 0.0
        for i in 0..<count {
            let from = max(0, min(i - window / 2, count - window))
            // Normal equations of the least squares fit over the window.
            var a = [[Double]](repeating: [0, 0, 0], count: 3), b = [0.0, 0.0, 0.0]
            for j in from..<(from + window) {
                let x = [1, expected[j], j % 2 == 0 ? -1 : 1]
                for r in 0..<3 {
                    for c in 0..<3 { a[r][c] += x[r] * x[c] }
                    b[r] += x[r] * measured[j]
                }
            }
            guard let p = solve(a, b), abs(p[1]) > 1e-9 else { return .infinity }
            let predicted = p[0] + p[1] * expected[i] + p[2] * (i % 2 == 0 ? -1 : 1)
            let residual = (measured[i] - predicted) / abs(p[1])
            sum += residual * residual
        }
        return (sum / Double(count)).squareRoot()
    }

    /// Root mean square, in modules, of the residuals from one perspective map of the whole code:
    /// position = (a + b u) / (1 + c u) + spread x (-1 into a bar, +1 out of it), u the module
    /// position scaled to -1...1, fitted linearly (position x (1 + c u) = a + b u + ...) and each
    /// residual measured in the module width where the edge is.
    static func perspectiveMisfit(_ measured: [Double], _ expected: [Double]) -> Double {
        let count = measured.count
        guard count >= 8, let first = expected.first, let last = expected.last, last > first else { return .infinity }
        let mid = (first + last) / 2, half = (last - first) / 2
        let centre = measured.reduce(0, +) / Double(count)
        var a = [[Double]](repeating: [0, 0, 0, 0], count: 4), b = [0.0, 0.0, 0.0, 0.0]
        for j in 0..<count {
            let u = (expected[j] - mid) / half, y = measured[j] - centre
            let x = [1, u, -u * y, j % 2 == 0 ? -1 : 1]
            for r in 0..<4 {
                for c in 0..<4 { a[r][c] += x[r] * x[c] }
                b[r] += x[r] * y
            }
        }
        // |c| under 0.9: the map stays one-to-one over the code.
        guard let p = solve(a, b), abs(p[2]) < 0.9 else { return .infinity }
        var sum = 0.0
        for j in 0..<count {
            let u = (expected[j] - mid) / half, d = 1 + p[2] * u
            let predicted = (p[0] + p[1] * u) / d + p[3] * (j % 2 == 0 ? -1 : 1)
            let width = abs(p[1] - p[0] * p[2]) / (d * d) / half
            guard width > 1e-9 else { return .infinity }
            let residual = (measured[j] - centre - predicted) / width
            sum += residual * residual
        }
        return (sum / Double(count)).squareRoot()
    }

    /// The solution of the square system `a x = b` (Gaussian elimination, partial pivoting); nil
    /// when it is singular.
    static func solve(_ a: [[Double]], _ b: [Double]) -> [Double]? {
        var m = a, v = b
        let n = v.count
        for c in 0..<n {
            let pivot = (c..<n).max { abs(m[$0][c]) < abs(m[$1][c]) }!
            guard abs(m[pivot][c]) > 1e-12 else { return nil }
            m.swapAt(c, pivot)
            v.swapAt(c, pivot)
            for r in (c + 1)..<n {
                let f = m[r][c] / m[c][c]
                for k in c..<n { m[r][k] -= f * m[c][k] }
                v[r] -= f * v[c]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for r in stride(from: n - 1, through: 0, by: -1) {
            var t = v[r]
            for k in (r + 1)..<n { t -= m[r][k] * x[k] }
            x[r] = t / m[r][r]
        }
        return x
    }
}
