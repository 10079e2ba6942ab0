import Foundation

/// File names are bytes on Linux, and need not be UTF-8. scanlua keeps a path as a String in
/// which each byte that is not part of valid UTF-8 stands as one scalar of U+10FF00...U+10FFFF
/// (the last 256 private-use code points), so it can be opened again byte for byte. Records show
/// such a name with those bytes as `\xff` (``display(_:)``) and carry the exact name in base64 as
/// `source_bytes`; text output and messages show the escaped form.
package enum PathName {
    private static let base: UInt32 = 0x10FF00

    /// The path for these bytes: valid UTF-8 as it is, each other byte as its stand-in scalar.
    package static func fromBytes<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let b = Array(bytes)
        if let valid = String(validating: b, as: UTF8.self) { return valid }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < b.count {
            if let (scalar, length) = scalarAt(b, i) {
                out.append(scalar)
                i += length
            } else {
                out.append(Unicode.Scalar(base + UInt32(b[i]))!)
                i += 1
            }
        }
        return String(out)
    }

    /// The path's bytes, for the system calls that open it.
    package static func bytes(_ path: String) -> [UInt8] {
        guard isRaw(path) else { return Array(path.utf8) }
        var out: [UInt8] = []
        for s in path.unicodeScalars {
            if s.value >= base && s.value <= base + 0xFF { out.append(UInt8(s.value - base)) } else { out += Array(String(s).utf8) }
        }
        return out
    }

    /// Whether the path holds bytes that are not UTF-8.
    package static func isRaw(_ path: String) -> Bool {
        path.unicodeScalars.contains { $0.value >= base && $0.value <= base + 0xFF }
    }

    /// The path for people and records: each byte that is not UTF-8 as `\xHH`.
    package static func display(_ path: String) -> String {
        guard isRaw(path) else { return path }
        var out = ""
        for s in path.unicodeScalars {
            if s.value >= base && s.value <= base + 0xFF { out += "\\x" + String(format: "%02x", s.value - base) } else { out.unicodeScalars.append(s) }
        }
        return out
    }

    /// Runs `body` with the path as a NUL-terminated C string of its bytes.
    package static func withCString<T>(_ path: String, _ body: (UnsafePointer<CChar>) -> T) -> T {
        let b = bytes(path) + [0]
        return b.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) } }
    }

    /// The scalar of a valid UTF-8 sequence at `i` and its length, or nil.
    private static func scalarAt(_ b: [UInt8], _ i: Int) -> (Unicode.Scalar, Int)? {
        let lead = b[i]
        let length = lead < 0x80 ? 1 : lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3 : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0
        guard length > 0, i + length <= b.count else { return nil }
        guard let s = String(validating: b[i..<i + length], as: UTF8.self), let scalar = s.unicodeScalars.first,
              s.unicodeScalars.count == 1 else { return nil }
        return (scalar, length)
    }
}
