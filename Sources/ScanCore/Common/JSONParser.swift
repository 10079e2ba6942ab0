extension JSON {
    /// Parses JSON text, keeping each object's key order (JSONSerialization does not).
    /// Numbers without a fraction or exponent that fit an Int are `.int`.
    /// - Returns: nil when `bytes` is not one JSON value (with nothing but white space after it).
    package init?<C: Collection>(parsing bytes: C) where C.Element == UInt8 {
        var p = JSONReader(Array(bytes))
        guard let v = p.value(depth: 0) else { return nil }
        p.skipSpace()
        guard p.i == p.b.count else { return nil }
        self = v
    }
}

/// A small recursive-descent reader for ``JSON/init(parsing:)``.
private struct JSONReader {
    let b: [UInt8]
    var i = 0
    init(_ b: [UInt8]) { self.b = b }

    mutating func skipSpace() { while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 } }

    mutating func literal(_ word: String, _ v: JSON) -> JSON? {
        let w = Array(word.utf8)
        guard i + w.count <= b.count, Array(b[i..<i + w.count]) == w else { return nil }
        i += w.count
        return v
    }

    mutating func value(depth: Int) -> JSON? {
        guard depth < 512 else { return nil }
        skipSpace()
        guard i < b.count else { return nil }
        switch b[i] {
        case UInt8(ascii: "n"): return literal("null", .null)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "\""): return string().map { .string($0) }
        case UInt8(ascii: "["):
            i += 1
            var items: [JSON] = []
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                guard let v = value(depth: depth + 1) else { return nil }
                items.append(v)
                skipSpace()
                guard i < b.count else { return nil }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                return nil
            }
        case UInt8(ascii: "{"):
            i += 1
            var pairs: [(String, JSON)] = []
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object(pairs) }
            while true {
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\""), let k = string() else { return nil }
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                guard let v = value(depth: depth + 1) else { return nil }
                pairs.append((k, v))
                skipSpace()
                guard i < b.count else { return nil }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "}") { i += 1; return .object(pairs) }
                return nil
            }
        default: return number()
        }
    }

    mutating func number() -> JSON? {
        let start = i
        var integral = true
        while i < b.count, let c = Optional(b[i]), (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "-") || c == UInt8(ascii: "+")
                || c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            if c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { integral = false }
            i += 1
        }
        let text = String(decoding: b[start..<i], as: UTF8.self)
        if integral, let n = Int(text) { return .int(n) }
        return Double(text).map { .double($0) }
    }

    mutating func hex4() -> UInt32? {
        guard i + 4 <= b.count, b[i..<i + 4].allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar($0)).isHexDigit }),
              let v = UInt32(String(decoding: b[i..<i + 4], as: UTF8.self), radix: 16) else { return nil }
        i += 4
        return v
    }

    mutating func string() -> String? {
        i += 1  // the opening quote
        var out: [UInt8] = []
        while i < b.count {
            let c = b[i]
            i += 1
            switch c {
            case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard i < b.count else { return nil }
                let e = b[i]
                i += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard var v = hex4() else { return nil }
                    if v >= 0xD800 && v < 0xDC00, i + 6 <= b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") {
                        i += 2
                        guard let lo = hex4(), lo >= 0xDC00 && lo < 0xE000 else { return nil }
                        v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00)
                    }
                    out += Array(String(Unicode.Scalar(v).map(Character.init) ?? "\u{FFFD}").utf8)
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                default: return nil  // not a JSON escape
                }
            default: out.append(c)
            }
        }
        return nil
    }
}
