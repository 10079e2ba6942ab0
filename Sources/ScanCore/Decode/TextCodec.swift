/// Named charsets for scripts (`codec.decode(bytes, "big5")`), converted by iconv.
package enum TextCodec {
    /// The names scripts may use, and iconv's name for each.
    package static let charsets: [String: String] = [
        "utf-8": "UTF-8", "utf8": "UTF-8", "big5": "BIG5", "cp950": "CP950", "big5-hkscs": "BIG5-HKSCS",
        "gb18030": "GB18030", "gbk": "GBK", "gb2312": "GB2312", "shift_jis": "SHIFT_JIS", "sjis": "SHIFT_JIS",
        "cp932": "CP932", "euc-jp": "EUC-JP", "euc-kr": "EUC-KR", "latin1": "ISO-8859-1", "iso-8859-1": "ISO-8859-1",
        "iso-8859-15": "ISO-8859-15", "cp1252": "CP1252", "utf-16le": "UTF-16LE", "utf-16be": "UTF-16BE",
    ]

    /// Why a conversion failed, in words a script author can act on.
    package struct Failure: Error, CustomStringConvertible, Equatable {
        package let description: String
    }

    /// Decodes `bytes` in `charset` to UTF-8 text.
    package static func decode(_ bytes: [UInt8], charset: String) -> Result<String, Failure> {
        convert(bytes, from: charset, to: "utf-8", direction: "decode").map { String(decoding: $0, as: UTF8.self) }
    }

    /// Encodes UTF-8 text (as bytes) into `charset`.
    package static func encode(_ utf8: [UInt8], charset: String) -> Result<[UInt8], Failure> {
        convert(utf8, from: "utf-8", to: charset, direction: "encode")
    }

    private static func convert(_ bytes: [UInt8], from: String, to: String, direction: String) -> Result<[UInt8], Failure> {
        let named = direction == "decode" ? from : to
        guard let f = charsets[from.lowercased()], let t = charsets[to.lowercased()] else {
            return .failure(Failure(description: "unknown charset '\(named)' (known: \(charsets.keys.sorted().joined(separator: ", ")))"))
        }
        switch Iconv.convert(bytes, from: f, to: t) {
        case .success(let out): return .success(out)
        case .failure(.unknownCharset):
            return .failure(Failure(description: "charset '\(named)' is not available in this system's iconv"))
        case .failure(.invalid(let at)):
            return .failure(Failure(description: direction == "decode"
                ? "invalid \(named) sequence at byte \(at + 1)" : "character at byte \(at + 1) cannot be encoded in \(named)"))
        case .failure(.incomplete(let at)):
            return .failure(Failure(description: "incomplete \(named) sequence at byte \(at + 1)"))
        }
    }
}
