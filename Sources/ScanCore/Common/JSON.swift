/// A JSON value whose objects keep their key order, so records print the same way every time.
package enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])
    /// JSON text already written (a payload encoded straight from Lua), copied out as it is.
    case raw(ArraySlice<UInt8>)

    package static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.raw(let x), .raw(let y)): return x == y || JSON(parsing: x) == JSON(parsing: y)
        case (.raw(let x), _): return JSON(parsing: x) == b
        case (_, .raw(let y)): return a == JSON(parsing: y)
        default: return false
        }
    }

    /// The value under `key` of an object (the first, if repeated), else nil.
    package subscript(key: String) -> JSON? {
        switch self {
        case .object(let pairs): return pairs.first { $0.0 == key }?.1
        case .raw(let text): return JSON(parsing: text)?[key]
        default: return nil
        }
    }

    /// Compact JSON text on one line (NDJSON-safe: newlines inside strings are escaped).
    package var serialized: String {
        var out: [UInt8] = []
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the compact JSON text as UTF-8 bytes (the fast path for output).
    package func write(to out: inout [UInt8]) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let b): out += (b ? "true" : "false").utf8
        case .int(let i): JSON.writeInt(i, to: &out)
        case .double(let d): out += JSON.numberText(d).utf8
        case .string(let s): JSON.writeString(s, to: &out)
        case .raw(let text): out += text
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let pairs):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSON.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A double as JSON text, exactly as the C encoder of Lua payloads writes it (lua_shims.c,
    /// `jnumber`): integral values below 1e15 as integers, others in the fewest of 15, 16 or 17
    /// significant digits that read back as the same double; NaN and infinities as null.
    package static func numberText(_ d: Double) -> String {
        guard d.isFinite else { return "null" }  // JSON has no NaN or infinity
        if abs(d) < 1e15, d == d.rounded(.towardZero) { return String(Int64(d)) }
        for precision in 15...17 {
            let text = String(format: "%.\(precision)g", d)
            if Double(text) == d || precision == 17 { return text }
        }
        return "null"
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Escapes quotes, backslashes, C0/C1 controls, DEL, U+2028 and U+2029 (line breaks to some readers).
    /// Runs of bytes that need no escape are copied whole (every record writes several strings).
    package static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var i = 0, run = 0
            let n = bytes.count
            func flush(_ end: Int) {
                if end > run { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<end])) }
            }
            while i < n {
                let b = bytes[i]
                // Plain ASCII and UTF-8 bytes other than the lead bytes of C1 controls and U+2028/9.
                if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") && b != 0x7F && b != 0xC2 && b != 0xE2 {
                    i += 1
                    continue
                }
                var escaped = true
                switch b {
                case UInt8(ascii: "\""): flush(i); out += [0x5C, 0x22]
                case UInt8(ascii: "\\"): flush(i); out += [0x5C, 0x5C]
                case 0x0A: flush(i); out += [0x5C, UInt8(ascii: "n")]
                case 0x0D: flush(i); out += [0x5C, UInt8(ascii: "r")]
                case 0x09: flush(i); out += [0x5C, UInt8(ascii: "t")]
                case 0x00..<0x20, 0x7F: flush(i); escape(UInt32(b), &out)
                case 0xC2 where i + 1 < n && bytes[i + 1] >= 0x80 && bytes[i + 1] < 0xA0:
                    flush(i)
                    escape(UInt32(bytes[i + 1]), &out)  // C1 control U+0080...U+009F
                    i += 1
                case 0xE2 where i + 2 < n && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9):
                    flush(i)
                    escape(bytes[i + 2] == 0xA8 ? 0x2028 : 0x2029, &out)
                    i += 2
                default: escaped = false
                }
                i += 1
                if escaped { run = i }
            }
            flush(n)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// An integer's decimal digits (what `String(n)` gives), without making a string.
    package static func writeInt(_ n: Int, to out: inout [UInt8]) {
        if n < 0 { out.append(UInt8(ascii: "-")) }
        var v = n.magnitude
        var div: UInt = 1
        while v / div >= 10 { div *= 10 }
        while div > 0 {
            out.append(UInt8(ascii: "0") + UInt8(v / div))
            v %= div
            div /= 10
        }
    }

    private static func escape(_ v: UInt32, _ out: inout [UInt8]) {
        out += [0x5C, UInt8(ascii: "u"), hexDigits[Int(v >> 12 & 0xF)], hexDigits[Int(v >> 8 & 0xF)],
                hexDigits[Int(v >> 4 & 0xF)], hexDigits[Int(v & 0xF)]]
    }
}
