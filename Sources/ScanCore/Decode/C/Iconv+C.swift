// The only Swift file that calls glibc's iconv.
import Glibc

/// Character-set conversion through iconv.
enum Iconv {
    /// Converts `bytes` from `charset` (an iconv name such as `BIG5`) to UTF-8 text.
    /// - Returns: the text, or nil when the bytes are not valid in that charset (nothing is dropped silently).
    static func toUTF8(_ bytes: [UInt8], from charset: String) -> String? {
        convert(bytes, from: charset, to: "UTF-8").map { String(decoding: $0, as: UTF8.self) }
    }

    /// Converts between two iconv charsets.
    /// - Returns: the converted bytes, or nil on an invalid or incomplete sequence or an unknown charset.
    /// The corresponding C functions are `iconv_open`, `iconv` and `iconv_close`.
    static func convert(_ bytes: [UInt8], from: String, to: String) -> [UInt8]? {
        let cd = iconv_open(to, from)
        if cd == iconv_t(bitPattern: -1) { return nil }
        defer { iconv_close(cd) }
        if bytes.isEmpty { return [] }
        var input = bytes
        var output = [UInt8](repeating: 0, count: bytes.count * 4 + 16)
        let ok = input.withUnsafeMutableBytes { inBuf -> Int? in
            output.withUnsafeMutableBytes { outBuf -> Int? in
                var inPtr = inBuf.baseAddress?.assumingMemoryBound(to: CChar.self)
                var inLeft = inBuf.count
                var outPtr = outBuf.baseAddress?.assumingMemoryBound(to: CChar.self)
                var outLeft = outBuf.count
                if iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft) == -1 || inLeft != 0 { return nil }
                // Flush any shift state.
                if iconv(cd, nil, nil, &outPtr, &outLeft) == -1 { return nil }
                return outBuf.count - outLeft
            }
        }
        guard let written = ok else { return nil }
        return Array(output.prefix(written))
    }
}
