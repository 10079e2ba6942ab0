/// Turns a symbol's raw bytes into UTF-8 text, and says which charset it assumed.
///
/// QR codes rarely declare their charset, so the bytes are classified:
/// 1. Valid UTF-8 is taken as is (`utf-8`; pure ASCII is UTF-8 too).
/// 2. Bytes with C0 controls other than tab, CR, LF and the GS1/ISO 15434 separators (FS, GS, RS, EOT),
///    or a NUL, are `binary`: `text` maps each byte to U+0000...U+00FF, losslessly; use `bytes`.
/// 3. Otherwise each of Big5, GB18030, Shift-JIS (as CP932, which keeps 0x5C a backslash and 0x7E a tilde,
///    as QR encoders write them) that iconv converts without error is scored by how much
///    its double-byte characters look like ordinary text in that charset (byte ranges, and for Big5 and
///    GB18030 how many are among their script's most frequent hanzi), and ISO-8859-1 by how much its
///    high bytes look like accented letters inside words (see ``score(_:charset:)``). The highest score wins;
///    ties go to the earlier of Big5, GB18030, Shift-JIS, ISO-8859-1, so Taiwan e-invoices (Big5 or UTF-8)
///    are never read as Shift-JIS mojibake.
package enum TextDecoding {
    package static func decode(_ bytes: [UInt8]) -> (text: String, charset: String) {
        if let text = String(validating: bytes, as: UTF8.self), !hasBinaryControls(bytes) {
            return (text, "utf-8")
        }
        if hasBinaryControls(bytes) {
            return (latin1(bytes), "binary")
        }
        var best: (text: String, charset: String, score: Double)?
        for (charset, iconvName) in [("big5", "BIG5"), ("gb18030", "GB18030"), ("shift_jis", "CP932")] {
            guard let text = Iconv.toUTF8(bytes, from: iconvName) else { continue }
            let s = score(bytes, charset: charset) + commonness(text, charset: charset)
            if best == nil || s > best!.score { best = (text, charset, s) }
        }
        let latin = score(bytes, charset: "iso-8859-1")
        if let best, best.score >= latin { return (best.text, best.charset) }
        return (latin1(bytes), "iso-8859-1")
    }

    /// A tie-breaker below half a point: 0.49 times the share of the text's hanzi that are among
    /// the 2500 most frequent of the charset's script (traditional for Big5, simplified for
    /// GB18030; ``CommonHanzi``). The byte ranges of Big5 and GB2312 overlap, so short texts such
    /// as 北京 (GB18030) score alike on bytes; the half-point steps of the byte score still decide
    /// everything else.
    static func commonness(_ text: String, charset: String) -> Double {
        let common: Set<Character>
        switch charset {
        case "big5": common = CommonHanzi.traditional
        case "gb18030": common = CommonHanzi.simplified
        default: return 0
        }
        var hanzi = 0, frequent = 0
        for c in text where c.unicodeScalars.first.map({ $0.value >= 0x4E00 && $0.value <= 0x9FFF }) ?? false {
            hanzi += 1
            if common.contains(c) { frequent += 1 }
        }
        return hanzi == 0 ? 0 : 0.49 * Double(frequent) / Double(hanzi)
    }

    /// Each byte as the code point of the same value (ISO-8859-1), which loses nothing.
    static func latin1(_ bytes: [UInt8]) -> String {
        var s = String.UnicodeScalarView()
        for b in bytes { s.append(Unicode.Scalar(b)) }
        return String(s)
    }

    static func hasBinaryControls(_ bytes: [UInt8]) -> Bool {
        for b in bytes where b < 0x20 {
            switch b {
            case 0x09, 0x0A, 0x0D, 0x04, 0x1C, 0x1D, 0x1E: continue
            default: return true
            }
        }
        return bytes.contains(0x7F)
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }

    /// How much `bytes` look like ordinary text in `charset`, summed over the non-ASCII characters:
    /// - Big5: frequent hanzi and punctuation (lead 0xA1-0xC6) +2, less frequent (0xC9-0xF9) +0.5.
    /// - GB18030: GB2312 level-1 hanzi (lead 0xB0-0xD7, trail 0xA1-0xFE) +2, GB2312 symbols and level 2 +0.5,
    ///   GBK extension characters -1, four-byte sequences -2.
    /// - Shift-JIS: kana +3, level-1 kanji +2, symbols +1, level-2 kanji +0.5; half-width katakana with a
    ///   voicing mark (ﾃﾞ) +3, in a run +0.5, alone between ASCII -1 (Big5 lead bytes look like lone ones).
    /// - ISO-8859-1: a letter byte 0xC0-0xFF next to an ASCII letter +1.5, other 0xA0-0xFF +0.25, C1 controls -3.
    /// For the double-byte charsets, a character whose trail byte is an ASCII letter sitting between two
    /// ASCII letters (`Fran\u{E7}ois` read as Big5) scores -3: that is a Latin word, not a hanzi.
    static func score(_ bytes: [UInt8], charset: String) -> Double {
        var total = 0.0
        var i = 0
        let n = bytes.count
        func sandwiched(_ lead: Int) -> Bool {
            lead > 0 && lead + 2 < n && isLetter(bytes[lead - 1]) && isLetter(bytes[lead + 1]) && isLetter(bytes[lead + 2])
        }
        while i < n {
            let b = bytes[i]
            if b < 0x80 { i += 1; continue }
            switch charset {
            case "big5":
                guard i + 1 < n else { return total - 3 }
                if b >= 0xA1 && b <= 0xC6 { total += 2 } else { total += 0.5 }
                if sandwiched(i) { total -= 3 }
                i += 2
            case "gb18030":
                guard i + 1 < n else { return total - 3 }
                let t = bytes[i + 1]
                if t >= 0x30 && t <= 0x39 { total -= 2; i += 4; continue }  // four-byte sequence
                if t >= 0xA1 && b >= 0xB0 && b <= 0xD7 { total += 2 }
                else if t >= 0xA1 && b >= 0xA1 && b <= 0xF7 { total += 0.5 }
                else { total -= 1 }
                if sandwiched(i) { total -= 3 }
                i += 2
            case "shift_jis":
                if b >= 0xA1 && b <= 0xDF {  // half-width katakana
                    let isKana = { (j: Int) in j >= 0 && j < n && bytes[j] >= 0xA1 && bytes[j] <= 0xDF }
                    if b < 0xDE, i + 1 < n, bytes[i + 1] == 0xDE || bytes[i + 1] == 0xDF { total += 3; i += 2; continue }
                    total += isKana(i - 1) || isKana(i + 1) ? 0.5 : -1
                    i += 1
                    continue
                }
                guard i + 1 < n else { return total - 3 }
                if b == 0x82 || b == 0x83 { total += 3 }
                else if b >= 0x88 && b <= 0x98 { total += 2 }
                else if b == 0x81 { total += 1 }
                else { total += 0.5 }
                if sandwiched(i) { total -= 3 }
                i += 2
            default:  // iso-8859-1
                if b < 0xA0 { total -= 3 }
                else if b >= 0xC0 && b != 0xD7 && b != 0xF7
                            && ((i > 0 && isLetter(bytes[i - 1])) || (i + 1 < n && isLetter(bytes[i + 1]))) { total += 1.5 }
                else { total += 0.25 }
                i += 1
            }
        }
        return total
    }
}
