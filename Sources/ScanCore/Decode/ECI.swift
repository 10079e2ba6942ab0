/// Extended Channel Interpretation: the charset a code declares (ISO/IEC 15424, AIM ECI).
package enum ECI {
    /// The charset name records use for an ECI number (`eci-N` for the rest).
    package static func charsetName(_ eci: Int) -> String {
        switch eci {
        case 0, 2: return "cp437"
        case 1, 3: return "iso-8859-1"
        case 4...18 where eci != 14: return "iso-8859-\(eci - 2)"
        case 20: return "shift_jis"
        case 21: return "windows-1250"
        case 22: return "windows-1251"
        case 23: return "windows-1252"
        case 24: return "windows-1256"
        case 25: return "utf-16be"
        case 26: return "utf-8"
        case 27, 170: return "us-ascii"
        case 28: return "big5"
        case 29: return "gb2312"
        case 30: return "euc-kr"
        case 31: return "gbk"
        case 32: return "gb18030"
        case 33: return "utf-16le"
        case 34: return "utf-32be"
        case 35: return "utf-32le"
        case 899: return "binary"
        default: return "eci-\(eci)"
        }
    }

    /// The iconv name of an ECI's charset, when iconv has one.
    static func iconvName(_ eci: Int) -> String? {
        switch eci {
        case 0, 2: return "CP437"
        case 1, 3: return "ISO-8859-1"
        case 4...18 where eci != 14: return "ISO-8859-\(eci - 2)"
        case 20: return "CP932"
        case 21: return "CP1250"
        case 22: return "CP1251"
        case 23: return "CP1252"
        case 24: return "CP1256"
        case 25: return "UTF-16BE"
        case 26: return "UTF-8"
        case 27, 170: return "ASCII"
        case 28: return "BIG5"
        case 29, 32: return "GB18030"
        case 30: return "EUC-KR"
        case 31: return "GBK"
        case 33: return "UTF-16LE"
        default: return nil
        }
    }

    /// The text of a payload with ECI designators (`\NNNNNN` switches the charset; `\\` is a
    /// backslash), each stretch converted from its charset; before the first designator,
    /// ISO-8859-1. Returns the text and the ECIs it switched to, or nil when a stretch does not
    /// convert.
    package static func decode(_ stream: [UInt8]) -> (text: String, ecis: [Int])? {
        var text = "", ecis: [Int] = [], current: [UInt8] = [], charset = "ISO-8859-1"
        func flush() -> Bool {
            defer { current = [] }
            guard !current.isEmpty else { return true }
            guard case .success(let utf8) = Iconv.convert(current, from: charset, to: "UTF-8") else { return false }
            text += String(decoding: utf8, as: UTF8.self)
            return true
        }
        var i = 0
        while i < stream.count {
            let b = stream[i]
            if b == UInt8(ascii: "\\"), i + 1 < stream.count, stream[i + 1] == UInt8(ascii: "\\") {
                current.append(b)
                i += 2
                continue
            }
            if b == UInt8(ascii: "\\"), i + 7 <= stream.count,
               let eci = Int(String(decoding: stream[(i + 1)..<(i + 7)], as: UTF8.self)) {
                guard flush() else { return nil }
                ecis.append(eci)
                charset = iconvName(eci) ?? "ISO-8859-1"
                i += 7
                continue
            }
            current.append(b)
            i += 1
        }
        guard flush() else { return nil }
        return (text, ecis)
    }
}
