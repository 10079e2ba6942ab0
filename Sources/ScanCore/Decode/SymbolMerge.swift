extension Symbol {
    /// One symbol per physical code: symbols with the same symbology and bytes at overlapping
    /// places (two decoders, or two passes of one) become one, with the richer fields of each.
    /// The order is that of each code's first reading.
    package static func merged(_ symbols: [Symbol]) -> [Symbol] {
        var out: [Symbol] = []
        for s in symbols {
            if let i = out.firstIndex(where: { $0.isSameCode(as: s) }) {
                out[i] = out[i].merging(s)
            } else {
                out.append(s)
            }
        }
        return out
    }

    /// Without the readings of a built-in linear symbology lying inside the outline of a matrix
    /// or stacked code read in the same frame: a scan line across a QR code's modules can pass a linear
    /// decoder's checks (zxing-cpp 3.1.1 alone reads Codabar `C$3D` inside a JPEG-compressed QR
    /// code, a retry I2/5 `9403` down one with glare), and no linear code is printed inside one.
    /// On the shared corpus no reading lies inside a matrix code.
    package static func droppingLinearInsideMatrix(_ symbols: [Symbol]) -> [Symbol] {
        let matrices = symbols.filter { Symbology.matrixCodes.contains($0.symbology.rawValue) }
        guard !matrices.isEmpty else { return symbols }
        return symbols.filter { s in
            guard s.symbology.entry != nil, !Symbology.matrixCodes.contains(s.symbology.rawValue), !s.points.isEmpty else { return true }
            // Its whole outline, drawn a tenth in toward its centre (a reading from the matrix
            // code's edge modules may end on its border): a reading whose box spans two copies
            // of a code above and below a matrix code has its centre there, not its ends.
            let cx = Double(s.bbox.x) + Double(s.bbox.width) / 2, cy = Double(s.bbox.y) + Double(s.bbox.height) / 2
            let ends = s.points.map { (x: cx + (Double($0.x) - cx) * 0.9, y: cy + (Double($0.y) - cy) * 0.9) }
            // Inside the matrix code's outline: a turned code's upright box also covers the corners beside it.
            return !matrices.contains { m in
                ends.allSatisfy { m.points.count >= 3 ? Geometry.encloses(m.points, $0.x, $0.y) : m.bbox.holds($0.x, $0.y) }
            }
        }
    }

    /// An I2/5 reading whose digits are a part of a longer I2/5 reading's beside it (centred
    /// within half the longer code's length of its box), read on at most a quarter as many scan
    /// lines, was read from some of its bars: I2/5 has no check character, and a scan line
    /// across a turned code's corner crosses only some of its pairs. zxing-cpp 3.1.1 alone reads
    /// `905651` and `5112185531` (2 and 3 lines) along the edges of a turned ITF-14
    /// `90565112185531` (79 lines; fixture `itf14-turned.png`). A genuine code of some of its
    /// neighbour's digits is read on as many lines as a code of its height is (a review
    /// helper's 200 such pairs: 83 dropped when the lines did not count).
    package static func droppingPiecesOfI25(_ symbols: [Symbol]) -> [Symbol] {
        let i25 = symbols.filter { $0.symbology.rawValue == "i25" && !$0.points.isEmpty }
        guard i25.count > 1 else { return symbols }
        return symbols.filter { s in
            guard s.symbology.rawValue == "i25", !s.points.isEmpty else { return true }
            return !i25.contains { long in
                guard long.text.count > s.text.count, long.text.contains(s.text), 4 * s.quality <= long.quality else { return false }
                let b = long.bbox, reach = max(b.width, b.height) / 2
                let cx2 = 2 * s.bbox.x + s.bbox.width, cy2 = 2 * s.bbox.y + s.bbox.height
                return 2 * (b.x - reach) <= cx2 && cx2 <= 2 * (b.x + b.width + reach)
                    && 2 * (b.y - reach) <= cy2 && cy2 <= 2 * (b.y + b.height + reach)
            }
        }
    }

    /// Two EAN/UPC readings of one place that disagree (other digits, or an EAN-8 inside an
    /// EAN-13): one of them is wrong, and a wrong product code costs more than a missed one. The
    /// reading two decoders agree on (`zbar+zxing`) stays and the other goes; when neither or
    /// both have a second decoder, both go, unless both are binarizing readings (zbar's or
    /// zxing-cpp's) and one was read on many more scan lines than the other
    /// (``outvotes(_:)``). A UPC-A and the EAN-13 with its leading 0 agree.
    package static func resolvingEANConflicts(_ symbols: [Symbol]) -> [Symbol] {
        var drop = Set<Int>()
        for i in symbols.indices where symbols[i].isProductCode {
            for j in symbols.indices where j > i && symbols[j].isProductCode {
                let a = symbols[i], b = symbols[j]
                let aTwo = a.decoder.contains("+"), bTwo = b.decoder.contains("+")
                let aInB = a.isShortProductCode(inside: b), bInA = b.isShortProductCode(inside: a)
                // One code read on two scan lines apart counts as one place too, except that two
                // readings a second decoder confirmed each are two codes of a stack.
                let oneCode = a.disagrees(with: b) || (!(aTwo && bTwo) && a.digitsDiffer(from: b) && (aInB || bInA || a.onSameBars(b)))
                guard oneCode else { continue }
                // A short code (UPC-E, EAN-8) inside a long one is read from part of it, unless
                // only it has a second decoder's word.
                if aInB, bTwo || !aTwo { drop.insert(i); continue }
                if bInA, aTwo || !bTwo { drop.insert(j); continue }
                if aTwo != bTwo { drop.insert(aTwo ? j : i) }
                else if a.outvotes(b) { drop.insert(j) }
                else if b.outvotes(a) { drop.insert(i) }
                else { drop.formUnion([i, j]) }
            }
        }
        return symbols.indices.filter { !drop.contains($0) }.map { symbols[$0] }
    }

    /// Whether this reading stands against `other`'s of the same place because it was read on
    /// many more scan lines: one is zbar's, the other zxing-cpp's (two binarizers; each counts
    /// the lines that decoded as the same digits), this one on at least ``outvoting`` lines and
    /// four times as many, both counted on passes over the full-size image
    /// (``linesAtFullSize``): a pass on a reduced copy sees fewer lines of one code, an enlarged
    /// one more, so counts of two scales say nothing. (zxing-cpp reads each line both ways and
    /// may count it twice: the factor of four leaves room for that.) A misread of blur or noise
    /// came from a few lines where the bars happened to read as other digits: zbar's
    /// 8083882032262 on 4 lines against zxing-cpp's 8023222032262 on 39 (a retry's reading;
    /// Arte-Lab noaf Foto(512), 1152x864). Not two readings of one decoder: on a small code (1.5
    /// pixels a module) zbar read the printed digits on 4 lines and others on 19
    /// (precision-check --seed 5 --digits 1278, ean13-195-small.jpg).
    func outvotes(_ other: Symbol) -> Bool {
        guard Set([decoder, other.decoder]) == ["zbar", "zxing"], other.linesAtFullSize > 0 else { return false }
        return linesAtFullSize >= Self.outvoting && linesAtFullSize >= 4 * other.linesAtFullSize
    }

    /// The scan lines a reading needs to outvote another (``outvotes(_:)``).
    static let outvoting = 8

    /// Same symbology and bytes, and their boxes overlap (or one has no place). zbar converts
    /// the text of some ECI codes to UTF-8 even in binary mode: its bytes are then the other
    /// reading's text.
    func isSameCode(as other: Symbol) -> Bool {
        // A variant and the symbology another reader takes it for (Code 32 read as Code 39):
        // their texts differ, their places do not.
        if isVariant(of: other) || other.isVariant(of: self) { return overlaps(other) && !points.isEmpty }
        guard symbology == other.symbology else { return false }
        guard bytes == other.bytes || (other.eci != nil && bytes == Array(other.text.utf8))
            || (eci != nil && other.bytes == Array(text.utf8)) || isPlainReading(of: other) || other.isPlainReading(of: self)
        else { return false }
        // One product code read on two rows apart is one code too (see onSameBars), as is one
        // read on a row beside a box of its bars (see reaches).
        return points.isEmpty || other.points.isEmpty || overlaps(other)
            || (isProductCode && (onSameBars(other) || reaches(other) || other.reaches(self)))
    }

    /// zbar reads Code 39 and Code 128 without their extended modes: Code 39's full ASCII pairs
    /// (`+A` for `a`) stay as they are, Code 128's FNC4 (the next character + 128) is dropped.
    /// This symbol is such a plain reading of `other`'s text.
    func isPlainReading(of other: Symbol) -> Bool {
        guard bytes != other.bytes else { return false }
        switch symbology.rawValue {
        case "code39": return Self.code39FullASCII(bytes) == other.bytes
        case "code128": return bytes.count == other.bytes.count && other.bytes.contains { $0 >= 0x80 }
            && zip(bytes, other.bytes).allSatisfy { $0 == $1 & 0x7F }
        default: return false
        }
    }

    /// Code 39's full ASCII: `$A`-`$Z` controls, `%A`-`%Z` the rest of the punctuation and
    /// DEL, `/A`-`/O` and `/Z` `!`-`/` and `:`, `+A`-`+Z` the lower case letters. Nil when a
    /// pair is not one of these.
    static func code39FullASCII(_ bytes: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            guard [UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "/"), UInt8(ascii: "+")].contains(c) else { out.append(c); i += 1; continue }
            guard i + 1 < bytes.count, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[i + 1]) else { return nil }
            let n = bytes[i + 1] - UInt8(ascii: "A")  // 0 for A ... 25 for Z
            switch c {
            case UInt8(ascii: "$"): out.append(n + 1)
            case UInt8(ascii: "+"): out.append(n + UInt8(ascii: "a"))
            case UInt8(ascii: "/"):
                if n <= 14 { out.append(n + 0x21) } else if n == 25 { out.append(UInt8(ascii: ":")) } else { return nil }
            default:  // %
                let percent: [UInt8] = [0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x5B, 0x5C, 0x5D, 0x5E, 0x5F,
                                        0x7B, 0x7C, 0x7D, 0x7E, 0x7F, 0x00, 0x40, 0x60, 0x7F, 0x7F, 0x7F]
                out.append(percent[Int(n)])
            }
            i += 2
        }
        return out
    }

    func isVariant(of other: Symbol) -> Bool { symbology.entry?.readsAs == other.symbology.rawValue }

    /// The boxes overlap, give or take a tenth of the larger one (a stacked code that one reader
    /// outlines whole and the other by its last row).
    func overlaps(_ other: Symbol) -> Bool {
        let a = bbox, b = other.bbox
        let m = max(8, max(a.width, a.height, b.width, b.height) / 10)
        return a.x <= b.x + b.width + m && b.x <= a.x + a.width + m && a.y <= b.y + b.height + m && b.y <= a.y + a.height + m
    }

    /// This symbol with what `other` knows and it does not: a declared charset, identifiers,
    /// error-correction data, a four-corner outline, an add-on.
    func merging(_ other: Symbol) -> Symbol {
        var m = self
        if other.isVariant(of: self) {
            // The reader that knows the variant has its meaning (Code 32's digits, not its Code 39 letters).
            m.symbology = other.symbology
            m.bytes = other.bytes
            m.text = other.text
            m.charset = other.charset
        }
        if m.isPlainReading(of: other) {
            // The reader that knows the extended mode has the text (zxing-cpp's Code 39 ]A4, Code 128 FNC4).
            m.bytes = other.bytes
            m.text = other.text
            m.charset = other.charset
            m.symbologyID = other.symbologyID ?? m.symbologyID
        }
        if m.eci == nil, let eci = other.eci {
            // The reading that saw the declared charset has the payload as encoded.
            m.eci = eci
            m.bytes = other.bytes
            m.text = other.text
            m.charset = other.charset
        }
        // A decoder that reports four corners (zxing-cpp) outlines better than scan points (zbar's linear codes).
        if other.points.count == 4 && m.points.count != 4 { m.points = other.points; m.bbox = other.bbox }
        if m.orientation == "unknown" { m.orientation = other.orientation }
        m.quality = max(m.quality, other.quality)
        m.linesAtFullSize = max(m.linesAtFullSize, other.linesAtFullSize)
        for mod in other.modifiers where !m.modifiers.contains(mod) { m.modifiers.append(mod) }
        m.addon = m.addon ?? other.addon
        m.symbologyID = m.symbologyID ?? other.symbologyID
        m.ecLevel = m.ecLevel ?? other.ecLevel
        m.version = m.version ?? other.version
        m.inverted = m.inverted ?? other.inverted
        m.mirrored = m.mirrored ?? other.mirrored
        m.sequence = m.sequence ?? other.sequence
        m.joinedParts = m.joinedParts ?? other.joinedParts
        // Every decoder that read it, in one order (a name outside the list is kept too, last).
        let names = Set((m.decoder + "+" + other.decoder).split(separator: "+").map(String.init))
        let order = DecoderList.names + ["lua"]
        m.decoder = (order.filter(names.contains) + names.subtracting(order).sorted()).joined(separator: "+")
        return m
    }
}

extension Symbol {
    /// An EAN/UPC code (product codes: where a misread costs most).
    package var isProductCode: Bool { Symbology.eanUPC.contains(symbology.rawValue) }

    /// Two EAN/UPC readings of one place with other digits (a UPC-A and the EAN-13 with its
    /// leading 0 agree).
    package func disagrees(with other: Symbol) -> Bool {
        isProductCode && other.isProductCode && digitsDiffer(from: other) && !points.isEmpty && !other.points.isEmpty && overlaps(other)
    }

    /// Other digits (a UPC-A and the EAN-13 with its leading 0 have the same).
    func digitsDiffer(from other: Symbol) -> Bool {
        func digits(_ s: Symbol) -> String { s.text.count == 12 && s.text.allSatisfy(\.isNumber) ? "0" + s.text : s.text }
        return digits(self) != digits(other)
    }

    /// A UPC-E or EAN-8 reading whose centre lies inside an EAN-13, UPC-A or ISBN-13 reading's box:
    /// it was read from part of the longer code's bars (zbar's UPC-E `04176589` on the left half of a
    /// blurred EAN-13 that QuietZones could not judge, zxing-cpp's EAN-8 inside Arte-Lab Foto(794)'s EAN-13).
    /// A long reading outlined by one scan line (a thin box) stands for its bars up to 0.3 of its
    /// length to either side (see ``onSameBars(_:)``): zbar's UPC-E 04248806 42 pixels above
    /// zxing-cpp's one-row UPC-A 153 pixels long was read from its right half.
    func isShortProductCode(inside long: Symbol) -> Bool {
        guard Symbology.shortProductCodes.contains(symbology.rawValue), Symbology.longProductCodes.contains(long.symbology.rawValue),
              !points.isEmpty, !long.points.isEmpty else { return false }
        var b = long.bbox
        let (n, d) = Self.barsReach
        if b.width >= 2 * b.height { b.y -= n * b.width / d; b.height += 2 * n * b.width / d }
        else if b.height >= 2 * b.width { b.x -= n * b.height / d; b.width += 2 * n * b.height / d }
        let cx2 = 2 * bbox.x + bbox.width, cy2 = 2 * bbox.y + bbox.height
        return 2 * b.x <= cx2 && cx2 <= 2 * (b.x + b.width) && 2 * b.y <= cy2 && cy2 <= 2 * (b.y + b.height)
    }

    /// How far across a linear code a reading outlined by one scan line stands for its bars, as a
    /// fraction of the code's length: 3/10 (``isShortProductCode(inside:)``, ``onSameBars(_:)``).
    static let barsReach = (numerator: 3, denominator: 10)

    /// Two readings across the same bars: a linear code read on two scan lines apart (a noisy
    /// low-contrast EAN-13 read right on one row and with two digits wrong 74 pixels, 0.19 of
    /// its length, lower) has two thin boxes that do not overlap. Along the code they cover the
    /// same stretch (each at least 80% of the shorter); across it they lie less than 0.3 of the
    /// code's length apart. Two codes of a stack with short bars can lie 0.43 apart (a review
    /// helper's two EAN-13s 16 modules apart); two readings two decoders each confirmed are never
    /// taken for one code (``resolvingEANConflicts(_:)``).
    /// Codes at an angle (boxes neither twice as wide as high nor the reverse) are left to ``overlaps(_:)``.
    func onSameBars(_ other: Symbol) -> Bool {
        guard !points.isEmpty, !other.points.isEmpty else { return false }
        let a = bbox, b = other.bbox, (n, d) = Self.barsReach
        let along = Self.coverSameStretch
        if a.width >= 2 * a.height && b.width >= 2 * b.height {
            let apart = abs((2 * a.y + a.height) - (2 * b.y + b.height)) / 2
            return along(a.x, a.x + a.width, b.x, b.x + b.width) && d * apart < n * max(a.width, b.width)
        }
        if a.height >= 2 * a.width && b.height >= 2 * b.width {
            let apart = abs((2 * a.x + a.width) - (2 * b.x + b.width)) / 2
            return along(a.y, a.y + a.height, b.y, b.y + b.height) && d * apart < n * max(a.height, b.height)
        }
        return false
    }

    /// Two stretches [a0, a1] and [b0, b1] along a code overlap by at least 80% of the shorter.
    static func coverSameStretch(_ a0: Int, _ a1: Int, _ b0: Int, _ b1: Int) -> Bool {
        min(a1, b1) - max(a0, b0) >= Int(0.8 * Double(min(a1 - a0, b1 - b0)))
    }

    /// This reading is outlined by one scan line (a row: a box at most a tenth of its length
    /// across) and `other`'s box, of any shape, lies within the row's reach across the code
    /// (``barsReach``) over the same stretch along it. For two readings of the same digits only
    /// (``isSameCode(as:)``): zxing-cpp's row at the foot of a blurred UPC-E (123 by 3), 20
    /// pixels below the gray-level reader's box of its middle 80% (124 by 78), and Arte-Lab noaf
    /// Foto(713)'s EAN-13, a row (267 by 5) 32 pixels above the gray box, were two records of one
    /// code. Two boxes of several rows each are not rows: two identical EAN-13 labels with short
    /// bars stacked 62 pixels apart, each read by the gray-level reader as a box 288 by 59, are
    /// two codes (a review helper's find).
    func reaches(_ other: Symbol) -> Bool {
        guard !points.isEmpty, !other.points.isEmpty else { return false }
        let a = bbox, b = other.bbox, (n, d) = Self.barsReach
        if a.width >= 10 * a.height {
            let reach = n * a.width / d
            return Self.coverSameStretch(a.x, a.x + a.width, b.x, b.x + b.width) && b.y <= a.y + a.height + reach && a.y - reach <= b.y + b.height
        }
        if a.height >= 10 * a.width {
            let reach = n * a.height / d
            return Self.coverSameStretch(a.y, a.y + a.height, b.y, b.y + b.height) && b.x <= a.x + a.width + reach && a.x - reach <= b.x + b.width
        }
        return false
    }
}
