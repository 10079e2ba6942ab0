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
        case .int(let i): out += String(i).utf8
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
    package static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var i = 0
            let n = bytes.count
            while i < n {
                let b = bytes[i]
                switch b {
                case UInt8(ascii: "\""): out += [0x5C, 0x22]
                case UInt8(ascii: "\\"): out += [0x5C, 0x5C]
                case 0x0A: out += [0x5C, UInt8(ascii: "n")]
                case 0x0D: out += [0x5C, UInt8(ascii: "r")]
                case 0x09: out += [0x5C, UInt8(ascii: "t")]
                case 0x00..<0x20, 0x7F: escape(UInt32(b), &out)
                case 0xC2 where i + 1 < n && bytes[i + 1] >= 0x80 && bytes[i + 1] < 0xA0:
                    escape(UInt32(bytes[i + 1]), &out)  // C1 control U+0080...U+009F
                    i += 1
                case 0xE2 where i + 2 < n && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9):
                    escape(bytes[i + 2] == 0xA8 ? 0x2028 : 0x2029, &out)
                    i += 2
                default: out.append(b)
                }
                i += 1
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func escape(_ v: UInt32, _ out: inout [UInt8]) {
        out += [0x5C, UInt8(ascii: "u"), hexDigits[Int(v >> 12 & 0xF)], hexDigits[Int(v >> 8 & 0xF)],
                hexDigits[Int(v >> 4 & 0xF)], hexDigits[Int(v & 0xF)]]
    }
}
