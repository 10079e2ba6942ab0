import Foundation

/// Codes whose modules are under a pixel and a half: every pixel of the region projected onto
/// the axis across the bars, at half-pixel steps. One scan line samples such a code too coarsely
/// (at 0.95 pixels per module its bars alias), but the rows of a slightly rotated code see
/// each bar at another phase: together they make a profile of twice the resolution, and the
/// rows' noise averages out (the super-resolution of a tilted edge, as in ISO 12233's slanted-edge
/// method). A bar direction a few tenths of a degree off smears that profile, so the direction
/// is searched first: the one where the code's upper and lower halves agree best.
extension GrayLinear {
    /// Pixels per module under which a candidate the scan lines did not read is read projected
    /// (the code's bars as the projection finds them; a candidate's region may be a quarter longer,
    /// so regions under 1.25 times this are projected).
    static let projectedBelow = 1.6
    /// The profile's step along the code, in pixels.
    static let projectedStep = 0.5
    /// The bar directions searched around the candidate's (its blocks' mean direction was 6
    /// degrees off on a code turned 10 degrees): every 2 degrees to 8 either way, then every
    /// quarter degree within 1 of the best.
    static let projectedCoarse = Array(stride(from: -8.0, through: 8.0, by: 2.0)), projectedFine = [-1, -0.75, -0.5, -0.25, 0.25, 0.5, 0.75, 1]

    /// The EAN-13 or UPC-A code in candidate `c`, read from its projected profile, where the whole
    /// height's profile reads it confidently and strongly, one half of the height reads the same
    /// code while neither reads another confidently (one profile stands for all the rows, so the
    /// halves are its second opinion), and no single scan line read another code confidently
    /// (`heard`: lines that disagree have said no).
    package func readProjected(_ c: Candidate, in image: GrayImage, heard: Set<String> = []) -> Symbol? {
        guard ean13 || upca || isbn13, c.halfLength > 0, c.halfHeight > 0, c.halfHeight.isFinite,
              c.pixelsPerModule < 1.25 * Self.projectedBelow else { return nil }
        let half = c.readHalf
        let angle = atan2(c.dy, c.dx)
        // Upper and lower halves of the middle 60% of the height (below it, an EAN's digits).
        let upper = -0.6...0.0, lower = 0.0...0.6
        // The search on every other row: half the cost, rows enough to find the direction.
        func halves(_ a: Double, rows: Int = 1) -> (Projection, Projection) {
            (Self.projection(image, c, half: half, angle: a, band: upper, rows: rows), Self.projection(image, c, half: half, angle: a, band: lower, rows: rows))
        }
        func agreement(_ degrees: Double) -> Double {
            let (u, l) = halves(angle + degrees * .pi / 180, rows: 2)
            guard let p = u.profile, let q = l.profile else { return -1 }
            return Self.edgeCorrelation(p, q)
        }
        var best = (offset: 0.0, agreement: -1.0)
        for d in Self.projectedCoarse { let r = agreement(d); if r > best.agreement { best = (d, r) } }
        let coarse = best.offset
        for d in Self.projectedFine { let r = agreement(coarse + d); if r > best.agreement { best = (coarse + d, r) } }
        let a = angle + best.offset * .pi / 180
        let (up, low) = halves(a)
        // The code's length as its bars on the profile say, not as the candidate's blocks do (a
        // fifth longer on a code turned 10 degrees, too long for the code to fill): the region's
        // length first, then, where that reads nothing, the bars' (long enough that readLine's
        // search, 1.15 half lengths either side of the profile's centre, takes in bars off it).
        guard let whole = (up + low).profile,
              let (first, last) = Self.codeExtent(whole, layout: Self.ean13Layout, halfLength: c.halfLength / Self.projectedStep),
              Double(last - first) * Self.projectedStep / 95 < Self.projectedBelow else { return nil }
        let centre = Double(whole.count) / 2
        let bars = max(Double(last - first) / 2, max(centre - Double(first), Double(last) - centre) / 1.1)
        // The bars' length only where they fill most of the region (with it, the read fills its
        // region by construction).
        let lengths = [c.halfLength / Self.projectedStep] + (Double(last - first) * Self.projectedStep >= 0.55 * 2 * c.halfLength ? [bars] : [])
        guard let (read, length) = lengths.lazy.compactMap({ length -> (LineRead, Double)? in
            guard let read = Self.readLine(whole, format: .ean13, halfLength: length),
                  read.confident, read.framed, read.score >= Self.strongScore, read.minimum >= Self.strongMinimum,
                  read.guardScore >= Self.strongGuard, read.ambiguousSlots < Self.ambiguousSlots,
                  (read.end - read.start) * Self.projectedStep / 95 < Self.projectedBelow else { return nil }
            return (read, length)
        }).first, heard.allSatisfy({ $0 == read.code }) else { return nil }
        let parts = [up, low].compactMap(\.profile).compactMap { Self.readLine($0, format: .ean13, halfLength: length) }
        guard parts.contains(where: { $0.code == read.code && $0.plausible }),
              !parts.contains(where: { $0.code != read.code && $0.confident }) else { return nil }
        let ux = cos(a), uy = sin(a)
        func point(_ s: Double, _ v: Double) -> Point {
            // A step's centre: half a step past its start.
            let u = -half + (s + 0.5) * Self.projectedStep, v = v * c.halfHeight
            return Point(x: Int((c.cx + u * ux - v * uy).rounded()), y: Int((c.cy + u * uy + v * ux).rounded()))
        }
        let points = [point(read.start, -0.6), point(read.end, -0.6), point(read.end, 0.6), point(read.start, 0.6)]
        return symbol(Reading(format: .ean13, code: read.code), points: points, quality: 1 + parts.filter { $0.code == read.code }.count)
    }

    /// The pixels of a band of a candidate region, summed per step along its axis.
    package struct Projection {
        package var sums: [Double], hits: [Int]

        /// Two bands' pixels together.
        static func + (a: Projection, b: Projection) -> Projection {
            Projection(sums: zip(a.sums, b.sums).map(+), hits: zip(a.hits, b.hits).map(+))
        }

        /// The mean per step, or nil where under three steps in four hold a pixel (bars along the
        /// pixel grid: nothing to gain, or a region mostly outside the image). Steps without a
        /// pixel are interpolated.
        package var profile: [Double]? {
            let count = sums.count
            let filled = hits.indices.filter { hits[$0] > 0 }
            guard count > 60, filled.count * 4 >= count * 3, let first = filled.first, let last = filled.last else { return nil }
            var out = [Double](repeating: 0, count: count)
            var previous = first
            for i in filled {
                out[i] = sums[i] / Double(hits[i])
                // The steps between two filled ones, on the line joining them.
                if i > previous + 1 {
                    for j in (previous + 1)..<i {
                        let t = Double(j - previous) / Double(i - previous)
                        out[j] = out[previous] * (1 - t) + out[i] * t
                    }
                }
                previous = i
            }
            for j in 0..<first { out[j] = out[first] }
            for j in (last + 1)..<count { out[j] = out[last] }
            return out
        }
    }

    /// The pixels of `c`'s region whose centres lie within `half` of its centre along the axis at
    /// `angle` and in `band` across it (in half heights), summed per ``projectedStep`` along it;
    /// every `rows`th row only (at least 1).
    package static func projection(_ image: GrayImage, _ c: Candidate, half: Double, angle: Double, band: ClosedRange<Double>, rows: Int = 1) -> Projection {
        let ux = cos(angle), uy = sin(angle)
        let v0 = band.lowerBound * c.halfHeight, v1 = band.upperBound * c.halfHeight
        let count = max(0, Int(2 * half / projectedStep))
        var sums = [Double](repeating: 0, count: count), hits = [Int](repeating: 0, count: count)
        // On each row, the pixels inside are one run: u = ux*rx + uy*ry and v = -uy*rx + ux*ry
        // are both linear along it.
        func within(_ a: Double, _ b: Double, _ lo: Double, _ hi: Double) -> (Double, Double) {
            if abs(a) < 1e-12 { return b >= lo && b < hi ? (-.infinity, .infinity) : (1, 0) }
            let p = (lo - b) / a, q = (hi - b) / a
            return (min(p, q), max(p, q))
        }
        let reach = half + max(abs(v0), abs(v1))
        let yFrom = max(0, Int((c.cy - reach).rounded(.down))), yTo = min(image.height - 1, Int((c.cy + reach).rounded(.up)))
        guard yTo >= yFrom, count > 0 else { return Projection(sums: sums, hits: hits) }
        let perStep = 1 / projectedStep
        image.pixels.withUnsafeBufferPointer { p in
            sums.withUnsafeMutableBufferPointer { sums in
                hits.withUnsafeMutableBufferPointer { hits in
                    for y in stride(from: yFrom, through: yTo, by: max(1, rows)) {
                        let ry = Double(y) - c.cy
                        let (a0, a1) = within(ux, uy * ry, -half, half), (b0, b1) = within(-uy, ux * ry, v0, v1)
                        let from = max(0, Int((c.cx + max(a0, b0)).rounded(.up))), to = min(image.width - 1, Int((c.cx + min(a1, b1)).rounded(.down)))
                        guard to >= from else { continue }
                        var u = (Double(from) - c.cx) * ux + ry * uy + half
                        let row = y * image.width
                        for x in from...to {
                            let i = Int(u * perStep)
                            if i >= 0 && i < count {
                                sums[i] += Double(p[row + x])
                                hits[i] &+= 1
                            }
                            u += ux
                        }
                    }
                }
            }
        }
        return Projection(sums: sums, hits: hits)
    }

    /// The correlation of two profiles' first differences: 1 where their edges fall at the same places.
    package static func edgeCorrelation(_ p: [Double], _ q: [Double]) -> Double {
        let n = min(p.count, q.count) - 1
        guard n > 2 else { return -1 }
        var sp = 0.0, sq = 0.0, spp = 0.0, sqq = 0.0, spq = 0.0
        for i in 0..<n {
            let a = p[i + 1] - p[i], b = q[i + 1] - q[i]
            sp += a; sq += b; spp += a * a; sqq += b * b; spq += a * b
        }
        let m = Double(n)
        let cov = spq - sp * sq / m, vp = spp - sp * sp / m, vq = sqq - sq * sq / m
        return vp > 0 && vq > 0 ? cov / (vp * vq).squareRoot() : -1
    }
}
