// The only Swift file that calls glibc's iconv.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Character-set conversion through iconv.
enum Iconv {
    enum Failure: Error, Equatable {
        case unknownCharset
        /// An invalid sequence starts at this byte offset.
        case invalid(at: Int)
        /// The input ends inside a multi-byte sequence starting at this offset.
        case incomplete(at: Int)
    }

    /// Converts `bytes` from `charset` (an iconv name such as `BIG5`) to UTF-8 text, or nil when invalid.
    static func toUTF8(_ bytes: [UInt8], from charset: String) -> String? {
        guard case .success(let out) = convert(bytes, from: charset, to: "UTF-8") else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// Converts between two iconv charsets; nothing is dropped or replaced silently.
    /// The corresponding C functions are `iconv_open`, `iconv` and `iconv_close`.
    static func convert(_ bytes: [UInt8], from: String, to: String) -> Result<[UInt8], Failure> {
        let cd = iconv_open(to, from)
        if cd == iconv_t(bitPattern: -1) { return .failure(.unknownCharset) }
        defer { iconv_close(cd) }
        if bytes.isEmpty { return .success([]) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: bytes.count * 4 + 16)
        return input.withUnsafeMutableBytes { inBuf in
            output.withUnsafeMutableBytes { outBuf -> Result<[UInt8], Failure> in
                var inPtr = inBuf.baseAddress?.assumingMemoryBound(to: CChar.self)
                var inLeft = inBuf.count
                var outPtr = outBuf.baseAddress?.assumingMemoryBound(to: CChar.self)
                var outLeft = outBuf.count
                if iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft) == -1 {
                    let offset = inBuf.count - inLeft
                    return .failure(errno == EINVAL ? .incomplete(at: offset) : .invalid(at: offset))
                }
                if iconv(cd, nil, nil, &outPtr, &outLeft) == -1 { return .failure(.incomplete(at: inBuf.count)) }
                return .success(Array(outBuf.prefix(outBuf.count - outLeft)))
            }
        }
    }
}
