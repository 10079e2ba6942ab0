import Foundation

/// A gray-level reader for EAN-13, UPC-A, EAN-8 and UPC-E (these two on lines an EAN-13 does not fit): reads blurred and low-resolution product
/// codes that binarizing readers (zbar, zxing-cpp) lose, without deciding where an edge is.
///
/// 1. **Localization** (``GrayLinear/candidates(in:)``): blocks of the image whose gradients share
///    one orientation (the structure tensor's coherence) are joined into components; each gives a
///    code's centre, its scan direction (across the bars) and its extent.
/// 2. **Scan lines**: 15 lines along the scan direction, spread over the component's height,
///    each a gray-level profile averaged over 3 pixels across; the first six read are spread
///    from top to bottom, and when they show nothing like a code the rest are skipped.
/// 3. **Templates**: each line is resampled onto the code's module grid (4 samples a module) for a
///    grid of start positions and module widths; every digit slot is compared (normalised
///    correlation, shifted up to half a module) with each digit's ideal pattern blurred as a
///    Gaussian of 0.35-1.0 modules would blur it, its known neighbours included (a left digit
///    always follows a bar and precedes a space). The grid point with the best sum wins. Where
///    that reads nothing, the line is read again with module widths changing linearly along it
///    (a curved or slanted code: ``Bend``).
/// 4. **A dynamic program** over the 12 digit slots (EAN-13: the check-digit sum and the parity
///    pattern that gives the first digit as its state) picks the valid code with the best sum;
///    for UPC-E one over its 6 slots per number system, check digit (which fix the slots' parity
///    pattern) and last digit (which fixes the UPC-A the check digit is computed on).
/// 5. **Precision** (a retry's reading costs a wrong product in someone's inventory): a line's
///    reading counts only when every digit matches well, the guards match well, the best digit of
///    every slot already makes the valid code and both quiet zones are light; the code is
///    reported when at least 3 lines agree (or 2 that both match strongly, with no other code
///    read confidently), at least a quarter of the lines that framed a code framed this one, and
///    no other code had even half its votes. A code under 1.6 pixels per module that no line read
///    confidently is read once more from its rows projected together (GrayLinearProjected.swift).
///    EAN-8 (8 digit slots, no parity pattern) and UPC-E
///    (6 slots, 51 modules) are read on a line only where its EAN-13 reading is not confident and
///    matched at 0.6 or less (a UPC-E also where it matches 0.03 better than that reading),
///    straight only, must match better than an EAN-13 (a UPC-E at 0.965 on average, its lines
///    never strong), and count only when confident; their votes are left out where an EAN-13 had
///    as many.
///
/// After Gallo & Manduchi, "Reading 1D barcodes with mobile phones using deformable templates"
/// (TPAMI 2011), with a blurred-template comparison as in Chen et al. (TIP 2014); see
/// ../shared/research/photos-1d.md. Pure Swift, stateless: one instance may serve any thread.
package struct GrayLinear: Sendable {
    /// The formats it reads, named as their symbologies.
    package enum Format: String, Sendable, Hashable { case ean13, ean8, upce }

    /// Which of ean13/upca/ean8/upce are wanted (a UPC-A is an EAN-13 with a leading 0); with isbn13,
    /// an EAN-13 of 978 or 979 is named isbn13, as zxing-cpp's readings are (ZXing+C.swift), so
    /// that the two decoders' readings of a book merge.
    package var ean13 = true, upca = true, ean8 = true, upce = true, isbn13 = true

    package init(symbologies: Set<Symbology>) {
        ean13 = symbologies.contains(Symbology(rawValue: "ean13"))
        upca = symbologies.contains(Symbology(rawValue: "upca"))
        isbn13 = symbologies.contains(Symbology(rawValue: "isbn13"))
        // EAN-8 (no parity pattern, half the digits) is read on a line only where no EAN-13 fits
        // (``read(_:in:)``): on blurred EAN-13s its fits took part of a code for an EAN-8.
        ean8 = symbologies.contains(Symbology(rawValue: "ean8"))
        upce = symbologies.contains(Symbology(rawValue: "upce"))
    }

    package var readsSomething: Bool { ean13 || upca || ean8 || upce }

    /// A region that looks like a linear code: its centre, scan direction and half extents, in
    /// the pixels of the image given (full size for the gray-level reader).
    package struct Candidate: Equatable, Sendable {
        package var cx: Double, cy: Double
        /// The unit vector across the bars.
        package var dx: Double, dy: Double
        package var halfLength: Double, halfHeight: Double

        package init(cx: Double, cy: Double, dx: Double, dy: Double, halfLength: Double, halfHeight: Double) {
            self.cx = cx; self.cy = cy; self.dx = dx; self.dy = dy; self.halfLength = halfLength; self.halfHeight = halfHeight
        }

        /// Pixels per module if the region is an EAN-13 or UPC-A (95 modules) end to end.
        var pixelsPerModule: Double { 2 * halfLength / 95 }

        /// Bars at most 1.5 times as long as the code (an EAN-8 at full height: 0.8): taller
        /// stripes of like gradients are edges, wood and cloth.
        package var isCodeShaped: Bool { halfHeight <= 1.5 * halfLength }

        /// Half the length of what is read across it, scan line or projected profile: the region
        /// and a margin each way (the quiet zones, the localization blocks' coarse ends).
        var readHalf: Double { halfLength + (halfLength * 0.35 + 12) }

        /// The same region in an image `k` times as large.
        package func scaled(by k: Double) -> Candidate {
            Candidate(cx: cx * k, cy: cy * k, dx: dx, dy: dy, halfLength: halfLength * k, halfHeight: halfHeight * k)
        }

        /// Its upright box, with a quarter of its length more at each end (the quiet zones, and the
        /// localization blocks' coarse edges) and its height more across, inside `bounds`.
        package func box(inside bounds: Box) -> Box? {
            let ax = abs(dx) * halfLength * 1.5 + abs(dy) * halfHeight * 2
            let ay = abs(dy) * halfLength * 1.5 + abs(dx) * halfHeight * 2
            let x0 = max(bounds.x, Int(cx - ax)), y0 = max(bounds.y, Int(cy - ay))
            let x1 = min(bounds.x + bounds.width, Int(cx + ax)), y1 = min(bounds.y + bounds.height, Int(cy + ay))
            return x1 > x0 && y1 > y0 ? Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
        }
    }

    /// Every EAN/UPC code it reads in `image`, with `deadline` checked between candidates.
    /// `done`: boxes of codes other decoders read there already; candidates centred in one are
    /// skipped (a Code 128 read is not read again as a candidate EAN).
    package func decode(_ image: GrayImage, skipping done: [Box] = [], deadline: DispatchTime = .distantFuture) -> [Symbol] {
        guard readsSomething, image.width >= 40, image.height >= 20 else { return [] }
        var symbols: [Symbol] = []
        for c in Self.candidates(in: image) {
            if DispatchTime.now() >= deadline { break }
            if done.contains(where: { $0.holds(c.cx, c.cy) }) { continue }
            let (lines, heard) = readLines(c, in: image)
            if let s = lines ?? readProjected(c, in: image, heard: heard) { symbols.append(s) }
        }
        return Symbol.merged(symbols)
    }

    /// The candidates of `image` (a copy at 1/`k` size) whose centres lie in none of `done`
    /// (full-size boxes of codes read), in full-size pixels: where a code may be left unread.
    package static func unread(in image: GrayImage, scale k: Int, skipping done: [Box]) -> [Candidate] {
        candidates(in: image).map { $0.scaled(by: Double(k)) }.filter { c in !done.contains { $0.holds(c.cx, c.cy) } }
    }

    // MARK: Localization

    static let block = 12

    /// Candidate regions: coherent-gradient blocks of the image (reduced to about 1 MP), joined.
    package static func candidates(in image: GrayImage) -> [Candidate] {
        var k = 1
        while image.width / k * (image.height / k) > 1_300_000 { k += 1 }
        let small = image.reduced(by: k)
        let w = small.width, h = small.height, b = Self.block
        let bw = w / b, bh = h / b
        guard bw >= 3, bh >= 2 else { return [] }
        var angle = [Double](repeating: 0, count: bw * bh)
        var keep = [Bool](repeating: false, count: bw * bh)
        var energy = [Double](repeating: 0, count: bw * bh)
        small.pixels.withUnsafeBufferPointer { p in
            for by in 0..<bh {
                for bx in 0..<bw {
                    var sxx = 0.0, syy = 0.0, sxy = 0.0
                    for y in (by * b)..<(by * b + b) where y > 0 && y < h - 1 {
                        for x in (bx * b)..<(bx * b + b) where x > 0 && x < w - 1 {
                            let gx = Double(Int(p[y * w + x + 1]) - Int(p[y * w + x - 1]))
                            let gy = Double(Int(p[(y + 1) * w + x]) - Int(p[(y - 1) * w + x]))
                            sxx += gx * gx; syy += gy * gy; sxy += gx * gy
                        }
                    }
                    let e = sxx + syy
                    let i = by * bw + bx
                    energy[i] = e / Double(b * b)
                    guard e > 0 else { continue }
                    let coherence = ((sxx - syy) * (sxx - syy) + 4 * sxy * sxy).squareRoot() / e
                    angle[i] = 0.5 * atan2(2 * sxy, sxx - syy)
                    // Bars: gradients along one direction, and real contrast (RMS gradient over 6 levels).
                    keep[i] = coherence > 0.6 && energy[i] > 36
                }
            }
        }
        // Components of kept blocks whose directions differ by under 15 degrees.
        var label = [Int](repeating: -1, count: bw * bh)
        var found: [Candidate] = []
        for start in 0..<(bw * bh) where keep[start] && label[start] < 0 {
            var stack = [start], members: [Int] = []
            label[start] = start
            while let i = stack.popLast() {
                members.append(i)
                let x = i % bw, y = i / bw
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1), (x - 1, y - 1), (x + 1, y + 1), (x - 1, y + 1), (x + 1, y - 1)]
                where nx >= 0 && ny >= 0 && nx < bw && ny < bh {
                    let j = ny * bw + nx
                    guard keep[j], label[j] < 0 else { continue }
                    var d = abs(angle[j] - angle[i])
                    if d > .pi / 2 { d = .pi - d }
                    guard d < 15 * .pi / 180 else { continue }
                    label[j] = start
                    stack.append(j)
                }
            }
            guard members.count >= 4 else { continue }
            // The mean direction by doubled angles, weighted by contrast.
            var c2 = 0.0, s2 = 0.0
            for i in members { c2 += energy[i] * cos(2 * angle[i]); s2 += energy[i] * sin(2 * angle[i]) }
            let theta = 0.5 * atan2(s2, c2)
            let dx = cos(theta), dy = sin(theta)
            var lo = Double.infinity, hi = -Double.infinity, nlo = Double.infinity, nhi = -Double.infinity
            for i in members {
                let x = (Double(i % bw) + 0.5) * Double(b), y = (Double(i / bw) + 0.5) * Double(b)
                let a = x * dx + y * dy, n = -x * dy + y * dx
                lo = min(lo, a); hi = max(hi, a); nlo = min(nlo, n); nhi = max(nhi, n)
            }
            let along = (lo + hi) / 2, across = (nlo + nhi) / 2
            let length = hi - lo + Double(b), height = nhi - nlo + Double(b)
            // A code is longer across its bars than a block, and not a thin line of text.
            guard length >= 3 * Double(b), height >= 2 * Double(b) else { continue }
            let cx = along * dx - across * dy, cy = along * dy + across * dx
            found.append(Candidate(cx: cx * Double(k), cy: cy * Double(k), dx: dx, dy: dy,
                                   halfLength: length / 2 * Double(k), halfHeight: height / 2 * Double(k)))
        }
        // Largest first: the time budget goes to the likeliest codes.
        return found.sorted { $0.halfLength * $0.halfHeight > $1.halfLength * $1.halfHeight }.prefix(12).map { $0 }
    }

    // MARK: One candidate

    static let lines = 15
    /// The bends tried on a line that framed a code without reading it (``Bend``): modules up to
    /// 16% narrower or wider at one end than at the middle.
    static let warps = [-0.16, -0.08, 0.08, 0.16]
    /// A bent line's reading counts only with guards matching this well: with the freedom a bend
    /// adds, a motion-blurred Industrial 2 of 5 made EAN-13 1421212111121 on 3 lines, guards at
    /// 0.73-0.80; the bent codes of the photo sets and fixtures match theirs at 0.83 and above.
    static let bentGuard = 0.80
    /// The lines in the order they are read: the first six spread from top to bottom (the
    /// early stop looks at them), then the rest.
    static let lineOrder = [7, 2, 12, 4, 10, 0, 14, 5, 9, 1, 13, 3, 11, 6, 8]
    /// A line matching this well (mean and weakest digit, guards) is strong: two such lines
    /// agreeing are enough where no other code was read confidently. The guards as well: a
    /// blurred, rotated EAN-13 gave two lines of another valid code whose digits matched at 0.95
    /// and its guards at 0.70-0.71, and a motion-blurred MSI two lines of EAN-13 1621214108512
    /// at 0.93 and 0.75-0.76; the genuine two-line readings of the shared corpus, the fixtures
    /// and precision-check's positives (12) match their guards at 0.79 or more.
    static let strongScore = 0.87, strongMinimum = 0.65, strongGuard = 0.78
    /// A digit less than this ahead of every other digit in its slot is ambiguous; a line with
    /// `ambiguousSlots` such slots counts only if it is strong. Blurred codes of narrow and wide
    /// elements (Industrial 2 of 5, Code 49) matched EAN digits 1 and 2 beside 7 and 8
    /// on 3 to 7 slots of every line that made them an EAN-13 or UPC-A (precision-check seeds 21
    /// and 33); of the lines that counted for a genuine code in two seeds' positives and the
    /// shared corpus (about 500), two had more than 1, both strong (UPC-A 473187964999, 4 slots).
    static let ambiguousMargin = 0.02, ambiguousSlots = 3
    /// How much better than the line's EAN-13 reading a UPC-E must match where that reading
    /// matched above 0.6.
    static let shortMargin = 0.03
    /// A UPC-E line's digits must match this well on average, and its lines are never strong (3
    /// must agree): 6 digits and a parity pattern leave little to check, and a blurred EAN-13 or
    /// UPC-E fits another UPC-E's templates at 0.89-0.968 (generated EAN-13s and UPC-Es
    /// blurred 0.6-1.6 modules and rotated), genuine readings at 0.966 and above.
    static let upceScore = 0.965

    /// The code in one candidate region, if enough scan lines agree on it, and the codes single
    /// lines read confidently.
    package func readLines(_ c: Candidate, in image: GrayImage) -> (symbol: Symbol?, heard: Set<String>) {
        let half = c.readHalf
        var votes: [Reading: (count: Int, ends: [(Double, Double, Double)], strong: Int)] = [:]
        // Lines that framed each code, confident or not.
        var support: [Reading: Int] = [:]
        var plausibleLines = 0, bentInVain = 0, bentRead = 0, upceInVain = 0, upceRead = 0
        // After the first six lines (`done` 5), nothing confident, nearly so, or framed twice.
        func notACode(_ done: Int) -> Bool { done >= 5 && votes.isEmpty && plausibleLines == 0 && (support.values.max() ?? 0) < 2 }
        for (done, li) in Self.lineOrder.enumerated() {
            let t = (Double(li) + 0.5) / Double(Self.lines) * 1.6 - 0.8  // the middle 80% of the height
            let ox = c.cx - c.dy * t * c.halfHeight, oy = c.cy + c.dx * t * c.halfHeight
            let x0 = ox - c.dx * half, y0 = oy - c.dy * half
            let n = Int(2 * half)
            guard n > 60 else { return (nil, []) }
            let profile = Self.profile(image, x0: x0, y0: y0, dx: c.dx, dy: c.dy, count: n)
            var best = Self.readLine(profile, format: .ean13, halfLength: c.halfLength), wasBent = false
            // A line whose bars did not read as a code, or framed one without reading it
            // confidently: read again as if bent (see Bend); the confident reading with the best
            // match, if any, stands (an Open Food Facts bottle, zxing-cpp's upca-2/48.png).
            // A bent code reads bent on many lines: after two lines bent in vain for each one read
            // bent, and four more (other bars), the rest are not (each costs four more readings).
            if bentInVain < 4 + 2 * bentRead, best.map({ $0.framed && !$0.confident }) ?? Self.fillsRegion(profile, halfLength: c.halfLength) {
                var bent: LineRead?
                for warp in Self.warps {
                    if let r = Self.readLine(profile, format: .ean13, halfLength: c.halfLength, warp: warp),
                       r.confident, r.guardScore >= Self.bentGuard, r.score > (bent?.score ?? -1) { bent = r }
                }
                if let bent { best = bent; bentRead += 1; wasBent = true } else { bentInVain += 1 }
            }
            // EAN-8 (no parity, half the digits) and UPC-E (half an EAN-13's left side), straight,
            // only on a line where no EAN-13 fits at all (matched at 0.6 or less) and only when
            // confident: on some lines part of a blurred EAN-13 passes for one (see also the votes
            // below). A UPC-E also where it matches clearly better than an EAN-13: its 51 modules
            // fit an EAN-13's 95 at about half the width, at 0.95 on a blurred one. Of the two,
            // the better match. A UPC-E is read only where the line's bars fill the region (as a
            // code read must), and other bars framed one on many lines: after three lines whose
            // UPC-E reading was not even plausible, and none that was, the rest are not read as one
            // (read on every line, the negative set took 30% longer; so, 8 BoofCV photos read 72
            // lines as UPC-E beside 1,150 as EAN-13).
            if best?.confident != true {
                let long = best?.score ?? -1
                let formats = [ean8 && long <= 0.6 ? Format.ean8 : nil,
                               upce && (upceInVain < 3 || upceRead > 0) && Self.fillsRegion(profile, halfLength: c.halfLength, layout: Self.upceLayout)
                                   ? Format.upce : nil].compactMap { $0 }
                let reads = formats.compactMap { Self.readLine(profile, format: $0, halfLength: c.halfLength) }
                if let line = reads.first(where: { $0.format == .upce }) {
                    if line.plausible { upceRead += 1 } else { upceInVain += 1 }
                }
                let short = reads.filter { $0.confident && (long <= 0.6 || $0.format == .upce && $0.score >= long + Self.shortMargin) }
                    .max { $0.score < $1.score }
                if let short { best = short; wasBent = false }
            }
            // A line with no reading at all (its bars did not fill the region, or their ends were
            // not found) counts towards the early stop too, on a region of 2 pixels a module or
            // more: on smaller ones noise and sampling leave a code's lines empty here and there
            // (precision-check seed 7: an EAN-13 and an EAN-8 of 1-1.4 pixels a module read on
            // lines 9, 14 and 15 only).
            guard let best else {
                if c.pixelsPerModule >= 2 && notACode(done) { break }
                continue
            }
            let reading = Reading(format: best.format, code: best.code)
            // Lines that framed a code (it fills the region, quiet zones light) and read another
            // one count against it; a line whose ends fell elsewhere says nothing.
            if best.framed { support[reading, default: 0] += 1 }
            // A line on which several digits were nearly others counts only if it is strong.
            let strong = !wasBent && best.format != .upce && best.score >= Self.strongScore && best.minimum >= Self.strongMinimum && best.guardScore >= Self.strongGuard
            if best.confident && (strong || best.ambiguousSlots < Self.ambiguousSlots) {
                var v = votes[reading] ?? (0, [], 0)
                v.count += 1
                v.ends.append((t, best.start, best.end))
                // A bent line is never strong: with the bend's freedom, 3 lines must agree (a
                // blurred Code 128 bent 16% gave two strong lines of UPC-A 293477849757).
                if strong { v.strong += 1 }
                votes[reading] = v
            }
            if best.plausible { plausibleLines += 1 }
            // Enough: a clear winner, or on the first lines nothing confident, nearly so, or read twice.
            let counts = votes.values.map(\.count).sorted(by: >)
            if let top = counts.first, top >= 5, counts.count < 2 || counts[1] <= 1 { break }
            if notACode(done) { break }
        }
        // Every code a line read confidently (the projection's veto, see readProjected).
        let heard = Set(votes.keys.map(\.code))
        // EAN-8 and UPC-E readings do not count where an EAN-13 (or UPC-A) had as many votes: part
        // of a blurred one that passed for a short code on some lines neither wins nor outvotes it.
        func most(_ long: Bool) -> Int { votes.filter { ($0.key.format == .ean13) == long }.map(\.value.count).max() ?? 0 }
        if most(true) > 0 && most(true) >= most(false) { votes = votes.filter { $0.key.format == .ean13 } }
        let ranked = votes.sorted { $0.value.count > $1.value.count || ($0.value.count == $1.value.count && $0.key < $1.key) }
        guard let top = ranked.first, support[top.key, default: 0] * 4 >= support.values.reduce(0, +) else { return (nil, heard) }
        // 3 confident lines, or 2 that match strongly with no confident rival.
        guard top.value.count >= 3 || top.value.count == 2 && top.value.strong == 2 && ranked.count == 1 else { return (nil, heard) }
        if ranked.count > 1, ranked[1].value.count * 2 >= top.value.count { return (nil, heard) }
        // The code's outline: the ends of the outermost agreeing lines.
        let ends = top.value.ends.sorted { $0.0 < $1.0 }
        func point(_ t: Double, _ s: Double) -> Point {
            let ox = c.cx - c.dy * t * c.halfHeight, oy = c.cy + c.dx * t * c.halfHeight
            let x = ox - c.dx * half + c.dx * s, y = oy - c.dy * half + c.dy * s
            return Point(x: Int(x.rounded()), y: Int(y.rounded()))
        }
        let first = ends.first!, last = ends.last!
        let points = [point(first.0, first.1), point(first.0, first.2), point(last.0, last.2), point(last.0, last.1)]
        return (symbol(top.key, points: points, quality: top.value.count), heard)
    }

    /// The symbol for a reading, named as zxing-cpp names it (a UPC-A is an EAN-13 with a leading
    /// 0, an ISBN one of 978 or 979), or nil where that symbology is not wanted.
    func symbol(_ reading: Reading, points: [Point], quality: Int) -> Symbol? {
        let code = reading.code
        let symbology: String
        var text = code
        if reading.format != .ean13 {
            symbology = reading.format.rawValue
        } else if code.hasPrefix("0") && upca {
            symbology = "upca"
            text = String(code.dropFirst())
        } else if isbn13 && (code.hasPrefix("978") || code.hasPrefix("979")) {
            symbology = "isbn13"
        } else {
            symbology = "ean13"
        }
        guard symbology != "ean13" || ean13, symbology != "ean8" || ean8, symbology != "upce" || upce else { return nil }
        var s = Symbol(symbology: Symbology(rawValue: symbology), bytes: Array(text.utf8), points: points, quality: quality)
        s.decoder = "gray"
        return s
    }

    /// Samples along a line, each the mean of 3 bilinear samples across it.
    static func profile(_ image: GrayImage, x0: Double, y0: Double, dx: Double, dy: Double, count: Int) -> [Double] {
        var out = [Double](repeating: 255, count: count)
        let w = image.width, h = image.height
        image.pixels.withUnsafeBufferPointer { p in
            func sample(_ x: Double, _ y: Double) -> Double {
                // Outside the image: the nearest pixel inside (255 there would be a fake light
                // quiet zone and a fake edge at the border).
                let x = min(max(x, 0), Double(w - 1) - 1e-9), y = min(max(y, 0), Double(h - 1) - 1e-9)
                let ix = Int(x), iy = Int(y), fx = x - Double(ix), fy = y - Double(iy)
                let a = Double(p[iy * w + ix]), b = Double(p[iy * w + ix + 1])
                let c = Double(p[(iy + 1) * w + ix]), d = Double(p[(iy + 1) * w + ix + 1])
                return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
            }
            var last = 255.0
            for i in 0..<count {
                let x = x0 + dx * Double(i), y = y0 + dy * Double(i)
                var sum = 0.0, n = 0.0
                for o in [-1.0, 0, 1] {
                    let v = sample(x - dy * o, y + dx * o)
                    if v >= 0 { sum += v; n += 1 }
                }
                last = n > 0 ? sum / n : last
                out[i] = last
            }
        }
        return out
    }

    /// A code as the lines vote for it: an EAN-8 and a UPC-E may share their 8 digits.
    struct Reading: Hashable, Comparable {
        var format: Format, code: String
        static func < (a: Reading, b: Reading) -> Bool { a.code != b.code ? a.code < b.code : a.format.rawValue < b.format.rawValue }
    }

    // MARK: One scan line

    struct LineRead {
        var format: Format
        var code: String
        /// The mean and the weakest of the chosen digits' matches.
        var score: Double, minimum: Double
        var confident: Bool
        /// Everything but the digits' agreement with the valid code holds: more lines may read it.
        var plausible: Bool
        /// The code found fills the region and its quiet zones are light: a line that framed
        /// another code speaks against this one.
        var framed: Bool
        /// Where the code starts and ends on the line (samples).
        var start: Double, end: Double
        /// How well the guards match.
        var guardScore: Double
        /// Slots whose digit beats every other digit by less than ``ambiguousMargin``.
        var ambiguousSlots: Int
    }

    package static let perModule = 4
    package static let sigmas = [0.35, 0.65, 1.0, 1.35]

    /// Module patterns (widths of alternating space/bar, starting with a space) of the L digits.
    static let lWidths: [[Int]] = [[3, 2, 1, 1], [2, 2, 2, 1], [2, 1, 2, 2], [1, 4, 1, 1], [1, 1, 3, 2],
                                   [1, 2, 3, 1], [1, 1, 1, 4], [1, 3, 1, 2], [1, 2, 1, 3], [3, 1, 1, 2]]
    /// The sets (L or G) of an EAN-13's left six digits, by its first digit.
    static let parities = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]
    /// First digit of an EAN-13 from the parities of its left six digits (bit i set: digit i is G).
    package static let firstDigit: [Int: Int] = {
        var m: [Int: Int] = [:]
        for (d, p) in parities.enumerated() {
            var bits = 0
            for (i, ch) in p.enumerated() where ch == "G" { bits |= 1 << i }
            m[bits] = d
        }
        return m
    }()

    /// Modules (1 bar, 0 space) of a digit: L, G (the L pattern reversed and inverted... as
    /// the spec gives: G is R reversed) and R (L inverted).
    static func modules(digit: Int, set: Int) -> [Int] {
        var l: [Int] = []
        for (i, wd) in lWidths[digit].enumerated() { l += [Int](repeating: i % 2, count: wd) }
        let r = l.map { 1 - $0 }
        switch set {
        case 0: return l
        case 1: return r.reversed()
        default: return r
        }
    }

    /// Zero-mean, unit-norm templates: [sigma][set L/G/R][digit] -> 7 * perModule samples, the
    /// digit blurred with its fixed neighbour modules (L/G: a bar before, a space after; R: the
    /// opposite) and intensity as light (1 space, 0 bar).
    package static let templates: [[[[Double]]]] = sigmas.map { sigma in
        (0..<3).map { set in
            (0..<10).map { digit in
                let before = set == 2 ? 0 : 1, after = set == 2 ? 1 : 0
                let mods = [before, before] + modules(digit: digit, set: set) + [after, after]
                return blurredWindow(mods, sigma: sigma, from: 2, count: 7)
            }
        }
    }

    /// The same templates as light levels (1 space, 0 bar), not normalised: for the photometric
    /// model of the final reading, where a thin bar's blurred depth is evidence too.
    static let rawTemplates: [[[[Double]]]] = sigmas.map { sigma in
        (0..<3).map { set in
            (0..<10).map { digit in
                let before = set == 2 ? 0 : 1, after = set == 2 ? 1 : 0
                let mods = [before, before] + modules(digit: digit, set: set) + [after, after]
                return blurredWindow(mods, sigma: sigma, from: 2, count: 7, normalise: false)
            }
        }
    }
    static let rawGuards: [[[Double]]] = sigmas.map { sigma in
        [blurredWindow([0, 0, 0, 0, 1, 0, 1, 0], sigma: sigma, from: 1, count: 6, normalise: false),
         blurredWindow([1, 0, 1, 0, 1, 0, 1], sigma: sigma, from: 1, count: 5, normalise: false),
         blurredWindow([0, 1, 0, 1, 0, 0, 0, 0], sigma: sigma, from: 1, count: 6, normalise: false),
         blurredWindow(upceEndGuard, sigma: sigma, from: 1, count: 9, normalise: false)]
    }

    /// Guard templates: the start guard with 3 quiet modules before and a space digit start after,
    /// the middle guard (bars of neighbours both sides), the end guard, and UPC-E's end guard.
    static let guards: [[[Double]]] = sigmas.map { sigma in
        [blurredWindow([0, 0, 0, 0, 1, 0, 1, 0], sigma: sigma, from: 1, count: 6),
         blurredWindow([1, 0, 1, 0, 1, 0, 1], sigma: sigma, from: 1, count: 5),
         blurredWindow([0, 1, 0, 1, 0, 0, 0, 0], sigma: sigma, from: 1, count: 6),
         blurredWindow(upceEndGuard, sigma: sigma, from: 1, count: 9)]
    }

    /// UPC-E's end guard (space bar space bar space bar) with 3 quiet modules after, and before it
    /// the last digit's closing bar (an L or G digit ends with one).
    static let upceEndGuard = [1, 0, 1, 0, 1, 0, 1, 0, 0, 0]

    /// Modules (1 bar) as light, upsampled, blurred, cut to `count` modules from module `from`, normalised.
    static func blurredWindow(_ mods: [Int], sigma: Double, from: Int, count: Int, normalise: Bool = true) -> [Double] {
        let s = perModule
        let ideal = mods.flatMap { [Double](repeating: $0 == 1 ? 0 : 1, count: s) }
        let radius = Int((3 * sigma * Double(s)).rounded(.up))
        var kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma * Double(s * s))) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        var out: [Double] = []
        for i in (from * s)..<((from + count) * s) {
            var v = 0.0
            for (j, k) in kernel.enumerated() {
                let idx = min(max(i + j - radius, 0), ideal.count - 1)
                v += k * ideal[idx]
            }
            out.append(v)
        }
        return normalise ? normalised(out) : out
    }

    package static func normalised(_ v: [Double]) -> [Double] {
        var c = v
        c.withUnsafeMutableBufferPointer { normalise($0, total: v.reduce(0, +)) }
        return c
    }

    /// `v` minus its mean, scaled to unit length (all zero when flat), in place; `total` is the
    /// sum of `v`, added from the first value on.
    @inline(__always)
    static func normalise(_ v: UnsafeMutableBufferPointer<Double>, total: Double) {
        let mean = total / Double(v.count)
        var squares = 0.0
        for i in v.indices { v[i] -= mean; squares += v[i] * v[i] }
        let norm = squares.squareRoot()
        for i in v.indices { v[i] = norm > 1e-9 ? v[i] / norm : 0 }
    }

    /// The layout of a format: total modules, digit slots (start module, left side?), guard starts.
    package struct Layout {
        let modules: Int
        package let slots: [(start: Int, left: Bool)]
        let guards: [(kind: Int, start: Int)]
    }

    package static let ean13Layout = Layout(modules: 95, slots: (0..<6).map { (3 + 7 * $0, true) } + (0..<6).map { (50 + 7 * $0, false) },
                                    guards: [(0, -3), (1, 45), (2, 92)])
    package static let ean8Layout = Layout(modules: 67, slots: (0..<4).map { (3 + 7 * $0, true) } + (0..<4).map { (36 + 7 * $0, false) },
                                   guards: [(0, -3), (1, 31), (2, 64)])
    /// UPC-E: six L or G digits between the start guard and its own end guard, no middle guard.
    package static let upceLayout = Layout(modules: 51, slots: (0..<6).map { (3 + 7 * $0, true) }, guards: [(0, -3), (3, 45)])

    package static func layout(_ format: Format) -> Layout {
        switch format {
        case .ean13: ean13Layout
        case .ean8: ean8Layout
        case .upce: upceLayout
        }
    }

    /// The code on one profile (light = high), read in whichever direction fits better; `start`
    /// and `end` are where it lies on the profile as given.
    /// `halfLength`: the candidate region's half extent along the line, about the code's.
    static func readLine(_ profile: [Double], format: Format, halfLength: Double, warp: Double = 0) -> LineRead? {
        let layout = layout(format)
        guard let (firstEdge, lastEdge) = codeExtent(profile, layout: layout, halfLength: halfLength) else { return nil }
        let bend = Bend(from: Double(firstEdge), length: Double(lastEdge - firstEdge), warp: warp)
        let p = warp == 0 ? profile : bend.straightened(profile)
        let w0 = Double(lastEdge - firstEdge) / Double(layout.modules)
        guard w0 >= 0.8 else { return nil }
        let reversedProfile = Array(p.reversed())
        // Grid search on direction, start and module width with the middle blur and small shifts
        // (module widths within 2% when bent: a bend keeps the ends found).
        let widths = warp == 0 ? 0.06 : 0.02
        // Each search first scores its middle point (the ends found, the refined point): no
        // point scoring below that can win, so each point's sum stops as soon as it cannot reach
        // it (``slotScoreSum``). The points are then scored in order and the first best wins, as
        // without the bound (a point scoring exactly as well is not stopped).
        var bestFit: (score: Double, reversed: Bool, start: Double, w: Double, sigma: Int)?
        let shiftsTried = Array(stride(from: -1.5, through: 1.5, by: 0.5)), widthsTried = Array(stride(from: 1 - widths, through: 1 + widths + 0.0001, by: 0.02))
        // The profile read each way, and where the code's first edge is on it.
        let directions = [(reversed: false, q: p, first: Double(firstEdge)), (reversed: true, q: reversedProfile, first: Double(p.count - 1 - lastEdge))]
        var toBeat = -Double.infinity
        for (_, q, first) in directions {
            let middle = fitScore(q, layout: layout, start: first + shiftsTried[shiftsTried.count / 2] * w0, w: w0 * widthsTried[widthsTried.count / 2],
                                  sigma: 1, shifts: 1, toBeat: -.infinity)
            toBeat = max(toBeat, middle)
        }
        for (reversed, q, first) in directions {
            for ds in shiftsTried {
                for f in widthsTried {
                    let start = first + ds * w0
                    let s = fitScore(q, layout: layout, start: start, w: w0 * f, sigma: 1, shifts: 1, toBeat: max(toBeat, bestFit?.score ?? -.infinity))
                    if s > (bestFit?.score ?? -.infinity) { bestFit = (s, reversed, start, w0 * f, 1) }
                }
            }
        }
        guard let coarse = bestFit else { return nil }
        let q = coarse.reversed ? reversedProfile : p
        // Refine: quarter modules and 1% around the best, every blur, the full shifts.
        var fit = (score: -Double.infinity, start: coarse.start, w: coarse.w, sigma: 1)
        let startsRefined = Array(stride(from: -0.25, through: 0.25, by: 0.25)), widthsRefined = Array(stride(from: 0.99, through: 1.0101, by: 0.01))
        toBeat = fitScore(q, layout: layout, start: coarse.start + startsRefined[startsRefined.count / 2] * w0,
                          w: coarse.w * widthsRefined[widthsRefined.count / 2], sigma: 1, shifts: 2, toBeat: -.infinity)
        for sigma in 0..<sigmas.count {
            for ds in startsRefined {
                for f in widthsRefined {
                    let start = coarse.start + ds * w0, w = coarse.w * f
                    let s = fitScore(q, layout: layout, start: start, w: w, sigma: sigma, shifts: 2, toBeat: max(toBeat, fit.score))
                    if s > fit.score { fit = (s, start, w, sigma) }
                }
            }
        }
        guard let scores = photometricScores(q, layout: layout, start: fit.start, w: fit.w, sigma: fit.sigma),
              let (digits, total, unconstrained, minimum) = bestValid(scores, format: format) else { return nil }
        let n = Double(scores.count)
        let guardScore = guardScores(q, layout: layout, start: fit.start, w: fit.w, sigma: fit.sigma)
        let end = fit.start + fit.w * Double(layout.modules)
        let quiet = quietZones(q, start: fit.start, end: end, w: fit.w)
        // The code fills its region: a fit at half the scale reads half a code as a whole one.
        let fills = (end - fit.start) > 1.3 * halfLength && (end - fit.start) < 2.6 * halfLength
        // EAN-8 has no parity pattern to check, UPC-E half an EAN-13's digits and one guard less:
        // they must match better.
        let strict = format == .ean13 ? 0 : 0.06
        // Guards at 0.70: an MSI code (bars and spaces of 1 and 2 units) read as an EAN-13 matched
        // them at 0.60-0.62 on every line, a blurred Code 49 and a Matrix 2 of 5 at 0.65-0.67;
        // genuine lines that read their code at 0.77 and above on the photo sets and fixtures,
        // 0.72 and above on generated blurred, rotated and motion-blurred EAN-13/UPC-A.
        // The best digit of every slot must already make the valid code (unconstrained == total):
        // the check digit and parity then confirm the templates instead of correcting them. Other
        // bars (pharmacode, postal 4-state codes, Matrix 2 of 5, Telepen, blurred) matched digit
        // templates well but made a valid code only with the check digit's help on almost every
        // line; genuine reads on the photo sets need none on nearly every line (one Open Food
        // Facts code needed it on 3 of 5 lines and is lost).
        let plausible = total / n > 0.82 + strict && minimum > 0.55 + 2 * strict && guardScore > 0.70 + 3 * strict && quiet && fills
        // Bent, the bars must also be as many as the code's: a blurred, slanted Pharmacode of 14
        // bars bent 16% matched an UPC-A's digits at 0.91 and its guards at 0.85 on 5 lines.
        let confident = plausible && unconstrained - total < 1e-6 && (format != .upce || total / n >= upceScore)
            && (warp == 0 || barsAgree(q, digits: digits, format: format, start: fit.start, w: fit.w, sigma: fit.sigma))
        // The slots' digits (a UPC-E's text adds its number system before them and its check digit after).
        let chosen = (format == .upce ? Array(digits.dropFirst().prefix(6)) : Array(digits.suffix(scores.count))).compactMap(\.wholeNumberValue)
        let ambiguous = zip(scores, chosen).filter { row, digit in
            var mine = -Double.infinity, other = -Double.infinity
            for (cand, sc) in row.enumerated() { if cand % 10 == digit { mine = max(mine, sc) } else { other = max(other, sc) } }
            return mine - other < ambiguousMargin
        }.count
        let count = Double(p.count)
        let (from, to) = coarse.reversed ? (count - 1 - end, count - 1 - fit.start) : (fit.start, end)
        return LineRead(format: format, code: digits, score: total / n, minimum: minimum, confident: confident, plausible: plausible, framed: fills && quiet,
                        start: bend.position(from), end: bend.position(to), guardScore: guardScore, ambiguousSlots: ambiguous)
    }

    /// Whether the profile dips at about as many bars as the code `digits` would show blurred as
    /// fitted: at least 80% of the model's dips (each a fall and a rise of a tenth of the contrast).
    static func barsAgree(_ p: [Double], digits: String, format: Format, start: Double, w: Double, sigma: Int) -> Bool {
        guard let mods = BarPattern.modules(symbology: format.rawValue, digits: digits.compactMap(\.wholeNumberValue))
        else { return false }
        let model = blurredWindow(mods, sigma: sigmas[sigma], from: 0, count: mods.count, normalise: false)
        let seen = window(p, start: start, w: w, from: 0, count: mods.count)
        return Double(dips(seen)) >= 0.8 * Double(dips(model))
    }

    /// Local minima of `v` with a fall and a rise of a tenth of its range on each side.
    static func dips(_ v: [Double]) -> Int {
        guard let lo = v.min(), let hi = v.max(), hi > lo else { return 0 }
        let h = (hi - lo) / 10
        var count = 0, high = v[0], low = v[0], falling = false
        for x in v {
            if falling {
                low = min(low, x)
                if x > low + h { count += 1; falling = false; high = x }
            } else {
                high = max(high, x)
                if x < high - h { falling = true; low = x }
            }
        }
        return count
    }

    /// A code on a curved or slanted surface: its modules narrow along the line, so that no one
    /// module width fits both ends. `warp` w: the profile is resampled so that a module
    /// `1 - w` wide at the code's first edge and `1 + w` wide at its last (varying linearly
    /// between, and constant past the ends) comes out even; the ends stay where they are.
    struct Bend {
        var from: Double, length: Double, warp: Double

        /// Where the straightened profile's sample `x` lies on the original.
        func position(_ x: Double) -> Double {
            guard warp != 0 else { return x }
            let t = (x - from) / length
            if t < 0 { return from + length * t * (1 - warp) }
            if t > 1 { return from + length + length * (t - 1) * (1 + warp) }
            return from + length * (t + warp * t * (t - 1))
        }

        func straightened(_ p: [Double]) -> [Double] {
            (0..<p.count).map { i in
                let x = min(max(position(Double(i)), 0), Double(p.count - 1))
                let ix = min(Int(x), p.count - 2), f = x - Double(ix)
                return p[ix] * (1 - f) + p[ix + 1] * f
            }
        }
    }

    /// Whether the bars on a line fill the candidate region as a code read from them must (see
    /// `fills` in ``readLine(_:format:halfLength:warp:)``; a bend keeps their ends in place).
    static func fillsRegion(_ profile: [Double], halfLength: Double, layout: Layout = ean13Layout) -> Bool {
        guard let (first, last) = codeExtent(profile, layout: layout, halfLength: halfLength) else { return false }
        return Double(last - first) > 1.25 * halfLength && Double(last - first) < 2.7 * halfLength
    }

    /// Where the bars are on a line (``barsExtent(_:peak:halfLength:)``), if they may hold a code of `layout`.
    static func codeExtent(_ profile: [Double], layout: Layout, halfLength: Double) -> (Int, Int)? {
        var grad = [Double](repeating: 0, count: profile.count)
        for i in 1..<(profile.count - 1) { grad[i] = abs(profile[i + 1] - profile[i - 1]) }
        guard let peak = grad.max(), peak > 12 else { return nil }
        guard let (first, last) = barsExtent(grad, peak: peak, halfLength: halfLength), last - first > layout.modules else { return nil }
        return (first, last)
    }

    /// Where the bars are on a line: edges (gradient maxima over a quarter of the strongest) are
    /// joined into runs where they lie closer than 3 times their median gap; from the run at the
    /// line's centre (the candidate's centre is on the code), neighbouring runs are joined while
    /// the gap is under 5.5% of what is joined so far (a digit's widest space is 4 of 95 modules,
    /// the right quiet zone at least 7) or under 4.5% of the candidate region's length (that space
    /// where modules widen toward one end: a curved or slanted code, whose wide left digits were
    /// cut off at 2.25%), so a label's border beyond the quiet zone stays out.
    /// Nil with fewer than 12 edges.
    static func barsExtent(_ grad: [Double], peak: Double, halfLength: Double) -> (Int, Int)? {
        let threshold = peak * 0.25
        var edges: [Int] = []
        // Only edges within the candidate region (and a little beyond: its blocks may miss the guards).
        let centre = Double(grad.count) / 2
        let from = max(1, Int(centre - 1.15 * halfLength)), to = min(grad.count - 1, Int(centre + 1.15 * halfLength))
        guard to - from > 12 else { return nil }
        for i in from..<to where grad[i] > threshold && grad[i] >= grad[i - 1] && grad[i] > grad[i + 1] { edges.append(i) }
        guard edges.count >= 12 else { return nil }
        let gaps = zip(edges.dropFirst(), edges).map { $0 - $1 }.sorted()
        let maxGap = max(6, 3 * gaps[gaps.count / 2])
        var runs: [(first: Int, last: Int, count: Int)] = []
        var runStart = 0
        for i in 1...edges.count where i == edges.count || edges[i] - edges[i - 1] > maxGap {
            runs.append((edges[runStart], edges[i - 1], i - runStart))
            runStart = i
        }
        let mid = grad.count / 2
        var at = runs.indices.min { a, b in
            func distance(_ r: (first: Int, last: Int, count: Int)) -> Int { r.first > mid ? r.first - mid : max(0, mid - r.last) }
            return distance(runs[a]) < distance(runs[b])
        }!
        var lo = at, hi = at
        while true {
            let span = Double(runs[hi].last - runs[lo].first)
            let leftGap = lo > 0 ? Double(runs[lo].first - runs[lo - 1].last) : .infinity
            let rightGap = hi < runs.count - 1 ? Double(runs[hi + 1].first - runs[hi].last) : .infinity
            if min(leftGap, rightGap) > max(Double(maxGap), 0.055 * span, 0.09 * halfLength) { break }
            if leftGap <= rightGap { lo -= 1 } else { hi += 1 }
        }
        at = runs[lo...hi].reduce(0) { $0 + $1.count }
        return at >= 12 ? (runs[lo].first, runs[hi].last) : nil
    }

    /// The profile resampled at `perModule` samples a module over modules [from, from + count).
    package static func window(_ p: [Double], start: Double, w: Double, from: Double, count: Int) -> [Double] {
        var out = [Double](repeating: 0, count: count * perModule)
        p.withUnsafeBufferPointer { p in out.withUnsafeMutableBufferPointer { _ = resample(p, start: start, w: w, from: from, into: $0) } }
        return out
    }

    /// ``window(_:start:w:from:count:)`` into `out` (its length gives the count); returns the
    /// sum of the samples, added from the first on (what ``normalise(_:total:)`` needs).
    @inline(__always)
    static func resample(_ p: UnsafeBufferPointer<Double>, start: Double, w: Double, from: Double,
                         into out: UnsafeMutableBufferPointer<Double>) -> Double {
        let s = perModule
        var total = 0.0
        for i in out.indices {
            let x = start + (from + (Double(i) + 0.5) / Double(s)) * w
            let ix = Int(x.rounded(.down))
            let v: Double
            if ix < 0 { v = p[0] } else if ix >= p.count - 1 { v = p[p.count - 1] } else {
                let f = x - Double(ix)
                v = p[ix] * (1 - f) + p[ix + 1] * f
            }
            out[i] = v
            total += v
        }
        return total
    }

    /// The digit templates of each blur, sample by sample: [sigma][(set * 28 + i) * 12 + digit]
    /// (digits 10 and 11 are zero padding), so that one vector load holds sample i of 4 digits.
    static let interleavedTemplates: [[Double]] = templates.map { bySet in
        var out = [Double](repeating: 0, count: 3 * 7 * perModule * 12)
        for (set, digits) in bySet.enumerated() {
            for (d, t) in digits.enumerated() { for i in t.indices { out[(set * 7 * perModule + i) * 12 + d] = t[i] } }
        }
        return out
    }

    /// Each template's sum of samples ([sigma][set * 12 + digit], digits 10 and 11 zero): about
    /// zero (the templates are zero-mean), kept so that a correlation with a window's raw samples
    /// less its mean is exact.
    static let interleavedSums: [[Double]] = templates.map { bySet in
        var out = [Double](repeating: 0, count: 3 * 12)
        for (set, digits) in bySet.enumerated() { for (d, t) in digits.enumerated() { out[set * 12 + d] = t.reduce(0, +) } }
        return out
    }

    /// The sum over the slots of each slot's best correlation (at least -1) with a candidate digit
    /// (left slots: L and G; right slots: R), each allowed to shift by up to half a module. The
    /// grid search calls this thousands of times a line, so:
    /// - the code's span is resampled once: a slot's window shifted by a sample lies on the same
    ///   grid of quarter modules one sample on (the positions, multiples of 1/8 module, are exact);
    /// - a digit's correlation with a window is its dot product with the raw samples less the
    ///   window's mean times the template's sum, over the window's norm: one division a window
    ///   instead of one a sample (the best digit is the same; the scores agree to 1e-12, see tests);
    /// - each digit's dot product is summed sample by sample in one vector lane;
    /// - a grid point that cannot come above `limit` stops early (-infinity): a slot scores at
    ///   most 1 (a correlation with a unit-norm template; computed, at most 1.005: the dot
    ///   product's rounding, some 5e-12, over a norm down to 1e-9), so once the slots scored so
    ///   far plus 1.01 for each one left stay at or under `limit`, no sum to come can pass it.
    ///   The grid search keeps the best point only, so it passes the best sum so far: the same
    ///   point wins.
    package static func slotScoreSum(_ p: [Double], layout: Layout, start: Double, w: Double, sigma: Int, shifts: Int,
                                     limit: Double = -.infinity) -> Double {
        let n = 7 * perModule
        // The slots are in order along the code.
        let first = layout.slots[0].start * perModule - shifts
        let count = (layout.slots[layout.slots.count - 1].start + 7) * perModule + shifts - first
        return interleavedTemplates[sigma].withUnsafeBufferPointer { t in
            interleavedSums[sigma].withUnsafeBufferPointer { sums in
                p.withUnsafeBufferPointer { p in
                    withUnsafeTemporaryAllocation(of: Double.self, capacity: count) { samples in
                        _ = resample(p, start: start, w: w, from: Double(first) / Double(perModule), into: samples)
                        let base = UnsafeRawPointer(t.baseAddress!), sumBase = UnsafeRawPointer(sums.baseAddress!)
                        // Wrapping index arithmetic: the offsets are small, and overflow checks in
                        // the inner loop cost about a fifth of its time.
                        @inline(__always) func load(_ from: UnsafeRawPointer, _ at: Int) -> SIMD4<Double> {
                            from.loadUnaligned(fromByteOffset: at &* MemoryLayout<Double>.stride, as: SIMD4<Double>.self)
                        }
                        var sum = 0.0
                        for (done, slot) in layout.slots.enumerated() {
                            if sum + Double(layout.slots.count - done) * 1.01 <= limit { return -.infinity }
                            var best = -1.0
                            for shift in -shifts...shifts {
                                let offset = slot.start * perModule + shift - first
                                // Four sums at a time (n = 28): one chain of additions waited on each.
                                let window = UnsafeRawPointer(samples.baseAddress! + offset)
                                var total = SIMD4<Double>()
                                for k in stride(from: 0, to: n, by: 4) { total += load(window, k) }
                                let mean = total.sum() / Double(n)
                                var squares = SIMD4<Double>()
                                for k in stride(from: 0, to: n, by: 4) { let d = load(window, k) - SIMD4(repeating: mean); squares += d * d }
                                let norm = squares.sum().squareRoot()
                                // A flat window correlates with nothing (0), as a normalised one did.
                                guard norm > 1e-9 else { best = max(best, 0); continue }
                                for set in (slot.left ? 0..<2 : 2..<3) {
                                    var a = SIMD4<Double>(), b = SIMD4<Double>(), c = SIMD4<Double>()
                                    var at = set &* n &* 12
                                    for i in 0..<n {
                                        let x = SIMD4<Double>(repeating: samples[offset &+ i])
                                        a += load(base, at) * x
                                        b += load(base, at &+ 4) * x
                                        c += load(base, at &+ 8) * x
                                        at &+= 12
                                    }
                                    let m = SIMD4<Double>(repeating: mean)
                                    a -= load(sumBase, set * 12) * m
                                    b -= load(sumBase, set * 12 + 4) * m
                                    c -= load(sumBase, set * 12 + 8) * m
                                    var top = max(a.max(), b.max())
                                    top = max(top, c[0], c[1])
                                    best = max(best, top / norm)
                                }
                            }
                            sum += best
                        }
                        return sum
                    }
                }
            }
        }
    }

    /// Slot scores under a photometric model: light = a + b * template, with a and b fitted on
    /// the three guards (whose patterns are known) and interpolated linearly along the code; a
    /// candidate scores 1 - its mean squared error in units of b squared, times 4 (so a perfect
    /// match is 1 and an error of half the contrast everywhere is 0). Unlike a per-window
    /// correlation, this keeps how deep a blurred thin bar goes: what tells a 1 from a 7.
    static func photometricScores(_ p: [Double], layout: Layout, start: Double, w: Double, sigma: Int) -> [[Double]]? {
        var fits: [(pos: Double, a: Double, b: Double)] = []
        for g in layout.guards {
            let t = rawGuards[sigma][g.kind]
            let win = window(p, start: start, w: w, from: Double(g.start), count: t.count / perModule)
            let n = Double(t.count)
            let mt = t.reduce(0, +) / n, mw = win.reduce(0, +) / n
            var stw = 0.0, stt = 0.0
            for i in 0..<t.count { stw += (t[i] - mt) * (win[i] - mw); stt += (t[i] - mt) * (t[i] - mt) }
            let b = stw / stt
            guard b > 8 else { return nil }  // a guard without contrast: not this code here
            fits.append((Double(g.start) + Double(t.count / perModule) / 2, mw - b * mt, b))
        }
        func model(at m: Double) -> (a: Double, b: Double) {
            // Between the guards either side (UPC-E has two, the others three).
            let (l, r) = fits.count == 2 || m < fits[1].pos ? (fits[0], fits[1]) : (fits[1], fits[2])
            let f = (m - l.pos) / (r.pos - l.pos)
            return (l.a + (r.a - l.a) * f, l.b + (r.b - l.b) * f)
        }
        return layout.slots.map { slot in
            let (a, b) = model(at: Double(slot.start) + 3.5)
            var best = [Double](repeating: -.infinity, count: slot.left ? 20 : 10)
            for shift in -2...2 {
                let win = window(p, start: start, w: w, from: Double(slot.start) + Double(shift) / Double(perModule), count: 7)
                let sets = slot.left ? [0, 1] : [2]
                for (si, set) in sets.enumerated() {
                    for d in 0..<10 {
                        let t = rawTemplates[sigma][set][d]
                        var sse = 0.0
                        for i in 0..<t.count { let e = (win[i] - (a + b * t[i])) / b; sse += e * e }
                        let score = 1 - 4 * sse / Double(t.count)
                        let k = si * 10 + d
                        if score > best[k] { best[k] = score }
                    }
                }
            }
            return best
        }
    }

    /// The sum of every slot's best candidate and the guards: how well a grid fits; -infinity
    /// where it cannot come above `toBeat` (the best fit so far: see ``slotScoreSum``).
    static func fitScore(_ p: [Double], layout: Layout, start: Double, w: Double, sigma: Int, shifts: Int, toBeat: Double) -> Double {
        let guards = guardScores(p, layout: layout, start: start, w: w, sigma: sigma) * 2
        return slotScoreSum(p, layout: layout, start: start, w: w, sigma: sigma, shifts: shifts, limit: toBeat - guards) + guards
    }

    /// The mean correlation of the guards.
    static func guardScores(_ p: [Double], layout: Layout, start: Double, w: Double, sigma: Int) -> Double {
        var sum = 0.0
        // As normalised(window(...)), in a buffer of the stack: the grid search calls this as
        // often as slotScoreSum.
        p.withUnsafeBufferPointer { p in
            for g in layout.guards {
                let t = guards[sigma][g.kind]
                sum += withUnsafeTemporaryAllocation(of: Double.self, capacity: t.count) { win in
                    normalise(win, total: resample(p, start: start, w: w, from: Double(g.start), into: win))
                    var dot = 0.0
                    for i in 0..<t.count { dot += t[i] * win[i] }
                    return dot
                }
            }
        }
        return sum / Double(layout.guards.count)
    }

    /// Both quiet zones (5 modules, past 2 modules of blur) are at least as light as the code's
    /// lighter half on average.
    static func quietZones(_ p: [Double], start: Double, end: Double, w: Double) -> Bool {
        let code = window(p, start: start, w: w, from: 0, count: Int(((end - start) / w).rounded()))
        let sorted = code.sorted()
        let light = sorted[sorted.count * 3 / 4]
        let dark = sorted[sorted.count / 8]
        let before = window(p, start: start, w: w, from: -7, count: 5)
        let after = window(p, start: end, w: w, from: 2, count: 5)
        let mid = (light + dark) / 2
        // Quiet: light, and flat (no swing of a third of the code's contrast).
        let swing = (light - dark) / 3
        return before.min()! > mid && after.min()! > mid && before.max()! - before.min()! < swing && after.max()! - after.min()! < swing
    }

    /// The valid code with the best sum of slot scores (check digit, and for EAN-13 a parity
    /// pattern that names a first digit): its digits, that sum, the sum of the best candidates
    /// with no constraint, and the weakest chosen slot.
    package static func bestValid(_ scores: [[Double]], format: Format) -> (String, Double, Double, Double)? {
        if format == .upce { return bestValidUPCE(scores) }
        let n = scores.count
        let left = n / 2
        // EAN-13: weights 3,1,3,... from the second digit (the first, from the parities, weighs 1);
        // EAN-8: 3,1,3,... from the first.
        let parityStates = format == .ean13 ? 64 : 1
        // state = sum mod 10 * parityStates + parity bits; the best way to each state of each
        // slot: the state before in backState[slot * states + state], the candidate in backCandidate.
        let states = 10 * parityStates
        var value = [Double](repeating: -.infinity, count: states), next = value
        value[0] = 0
        var backState = [Int](repeating: -1, count: n * states), backCandidate = [Int](repeating: -1, count: n * states)
        // (mod + weight * digit) % 10 for mod < 10 and weight * digit <= 27.
        let mod10 = (0..<37).map { $0 % 10 }
        for slot in 0..<n {
            let weight = slot % 2 == 0 ? 3 : 1
            // EAN-8 has no G digits (a left slot's candidates 10...19); an EAN-13's left G digit sets its parity bit.
            let candidates = format == .ean8 ? min(10, scores[slot].count) : scores[slot].count
            let gBit = format == .ean13 && slot < left ? 1 << slot : 0
            for i in 0..<states { next[i] = -.infinity }
            scores[slot].withUnsafeBufferPointer { row in
                next.withUnsafeMutableBufferPointer { next in
                    // The states in order, each with its candidates in order, as the first best is kept.
                    for mod in 0..<10 {
                        for bits in 0..<parityStates {
                            let st = mod * parityStates + bits, base = value[st]
                            guard base > -.infinity else { continue }
                            for cand in 0..<candidates {
                                let isG = cand >= 10, digit = isG ? cand - 10 : cand
                                let ns = mod10[mod + weight * digit] * parityStates + (isG ? bits | gBit : bits)
                                let v = base + row[cand]
                                if v > next[ns] { next[ns] = v; backState[slot * states + ns] = st; backCandidate[slot * states + ns] = cand }
                            }
                        }
                    }
                }
            }
            swap(&value, &next)
        }
        var bestState = -1, bestValue = -Double.infinity, first = 0
        for st in 0..<states where value[st] > bestValue {
            let mod = st / parityStates, bits = st % parityStates
            if format == .ean13 {
                guard let d = firstDigit[bits], (mod + d) % 10 == 0 else { continue }
                first = d
            } else {
                guard mod == 0 else { continue }
            }
            bestState = st
            bestValue = value[st]
        }
        guard bestState >= 0 else { return nil }
        if format == .ean13 { first = firstDigit[bestState % parityStates]! }
        var digits = [Int](repeating: 0, count: n)
        var minimum = Double.infinity
        var st = bestState
        for slot in stride(from: n - 1, through: 0, by: -1) {
            let prev = backState[slot * states + st], cand = backCandidate[slot * states + st]
            digits[slot] = cand % 10
            minimum = min(minimum, scores[slot][cand])
            st = prev
        }
        let unconstrained = scores.reduce(0) { $0 + ($1.max() ?? 0) }
        let text = (format == .ean13 ? String(first) : "") + digits.map(String.init).joined()
        return (text, bestValue, unconstrained, minimum)
    }
}

extension GrayLinear {
    /// The valid UPC-E with the best sum of slot scores (six slots of L and G candidates): its
    /// eight digits (number system 0 or 1, the six, the check digit), that sum, the sum of the
    /// best candidates with no constraint, and the weakest chosen slot. The number system and
    /// check digit fix the slots' sets (``BarPattern/upceParities``); the last digit fixes where
    /// the others go in the UPC-A the check digit is computed on, so each of the 200 (number
    /// system, check digit, last digit) is a small dynamic program over five slots' sums mod 10.
    package static func bestValidUPCE(_ scores: [[Double]]) -> (String, Double, Double, Double)? {
        guard scores.count == 6, scores.allSatisfy({ $0.count == 20 }) else { return nil }
        // Each digit's weight in the UPC-A check sum (3 on its 1st, 3rd, ... digits), by last digit.
        func weights(last: Int) -> [Int] {
            switch last {
            case 0...2: [1, 3, 3, 1, 3, 1]  // ns d1 d2 d6 0000 d3 d4 d5
            case 3: [1, 3, 1, 1, 3, 0]  // ns d1 d2 d3 00000 d4 d5
            case 4: [1, 3, 1, 3, 3, 0]  // ns d1 d2 d3 d4 00000 d5
            default: [1, 3, 1, 3, 1, 3]  // ns d1 d2 d3 d4 d5 0000 d6
            }
        }
        var best: (digits: [Int], total: Double, minimum: Double)?
        for system in 0...1 {
            for check in 0...9 {
                // The candidates' offsets: 0 for L, 10 for G (number system 1 takes the opposite sets).
                let sets = BarPattern.upceParities[check].map { ($0 == "G") != (system == 1) ? 10 : 0 }
                for last in 0...9 {
                    let w = weights(last: last)
                    // value[m]: the best sum of slots 0...4 whose weighted digits sum to m mod 10.
                    var value = [Double](repeating: -.infinity, count: 10)
                    value[0] = 0
                    var back = [[(prev: Int, digit: Int)]](repeating: [(prev: Int, digit: Int)](repeating: (-1, -1), count: 10), count: 5)
                    for slot in 0..<5 {
                        var next = [Double](repeating: -.infinity, count: 10)
                        for m in 0..<10 where value[m] > -.infinity {
                            for d in 0...9 {
                                let v = value[m] + scores[slot][sets[slot] + d], nm = (m + w[slot] * d) % 10
                                if v > next[nm] { next[nm] = v; back[slot][nm] = (m, d) }
                            }
                        }
                        value = next
                    }
                    // 3 * ns + the digits + 3 * last digit's part + check = 0 mod 10.
                    let needed = ((20 - 3 * system - w[5] * last - check) % 10 + 10) % 10
                    guard value[needed] > -.infinity else { continue }
                    let total = value[needed] + scores[5][sets[5] + last]
                    guard total > (best?.total ?? -.infinity) else { continue }
                    var digits = [Int](repeating: last, count: 6), m = needed
                    for slot in stride(from: 4, through: 0, by: -1) { (m, digits[slot]) = back[slot][m] }
                    let minimum = (0..<6).map { scores[$0][sets[$0] + digits[$0]] }.min()!
                    best = ([system] + digits + [check], total, minimum)
                }
            }
        }
        guard let best else { return nil }
        let unconstrained = scores.reduce(0) { $0 + ($1.max() ?? 0) }
        return (best.digits.map(String.init).joined(), best.total, unconstrained, best.minimum)
    }
}

extension Box {
    /// Whether the point (x, y) lies in the box, edges included.
    func holds(_ x: Double, _ y: Double) -> Bool {
        Double(self.x) <= x && x <= Double(self.x + width) && Double(self.y) <= y && y <= Double(self.y + height)
    }
}
