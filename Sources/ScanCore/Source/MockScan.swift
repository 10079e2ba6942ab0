import Foundation

/// Mock scans for `scanlua simulate`: symbols without images, as a scanner preview or a UI
/// test would push them.
package enum MockScan {
    /// Why an NDJSON line is not a mock scan.
    package struct LineError: Error { package let message: String }

    /// One NDJSON line -> the main symbol and its siblings (the main symbol first), its source
    /// and its time:
    ///     {"symbology": "qrcode", "text": "..."}   or "bytes": "<base64>";
    ///     optional "source", "time" (seconds since 1970), "modifiers" (["gs1"], ...),
    ///     "symbology_id" ("]C1": GS1-128, which implies the gs1 modifier), and
    ///     "siblings": [{"symbology":, "text"|"bytes":, "modifiers":, "symbology_id":}, ...]
    /// An unknown field is refused, as `scan.simulate` refuses it (a typo would be ignored).
    package static func parse(_ line: String) -> Result<(symbols: [Symbol], source: String?, time: Date?), LineError> {
        guard let object = JSON(parsing: Array(line.utf8)), case .object = object else {
            return .failure(LineError(message: "not a JSON object: \(line.prefix(60))"))
        }
        var symbols: [Symbol] = []
        switch symbol(object, known: fields) {
        case .success(let s): symbols.append(s)
        case .failure(let e): return .failure(e)
        }
        if let siblings = object["siblings"] {
            guard case .array(let list) = siblings else { return .failure(LineError(message: "'siblings' must be a list of objects")) }
            for (i, o) in list.enumerated() {
                switch symbol(o, known: siblingFields) {
                case .success(let s): symbols.append(s)
                case .failure(let e): return .failure(LineError(message: "sibling \(i + 1): \(e.message)"))
                }
            }
        }
        var source: String?
        if let v = object["source"] {
            guard case .string(let s) = v else { return .failure(LineError(message: "'source' must be a string")) }
            source = s
        }
        var time: Date?
        switch object["time"] {
        case nil: break
        case .int(let n)? where validTime.contains(Double(n)): time = Date(timeIntervalSince1970: Double(n))
        case .double(let d)? where validTime.contains(d): time = Date(timeIntervalSince1970: d)
        default: return .failure(LineError(message: "'time' must be a number of seconds since 1970, of a year from 1 to 9999"))
        }
        return .success((symbols, source, time))
    }

    /// The seconds since 1970 of the years 1 to 9999: a time outside them is refused.
    package static let validTime: ClosedRange<Double> = -62_135_596_800 ... 253_402_300_799

    /// The fields of a mock scan, and of a sibling.
    package static let fields = ["symbology", "text", "bytes", "source", "time", "modifiers", "symbology_id", "siblings"]
    package static let siblingFields = ["symbology", "text", "bytes", "modifiers", "symbology_id"]

    /// AIM symbology identifiers of GS1 data (FNC1 first): GS1-128, GS1 DataBar, GS1 DataMatrix,
    /// GS1 QR Code, GS1 Aztec.
    package static let gs1Identifiers: Set<String> = ["]C1", "]e0", "]d2", "]Q3", "]z1"]

    private static func symbol(_ o: JSON, known: [String]) -> Result<Symbol, LineError> {
        guard case .object(let pairs) = o else { return .failure(LineError(message: "needs \"text\" (a string) or \"bytes\" (base64)")) }
        for (key, _) in pairs where !known.contains(key) {
            return .failure(LineError(message: "unknown field '\(key)' (known: \(known.joined(separator: ", ")))"))
        }
        var name = "qrcode"
        if let v = o["symbology"] {
            guard case .string(let s) = v else { return .failure(LineError(message: "'symbology' must be a string")) }
            name = s.lowercased()
        }
        var bytes: [UInt8]
        if case .string(let text)? = o["text"] {
            bytes = Array(text.utf8)
        } else if case .string(let b64)? = o["bytes"] {
            guard let data = Data(base64Encoded: b64) else { return .failure(LineError(message: "'bytes' is not valid base64")) }
            bytes = Array(data)
        } else {
            return .failure(LineError(message: "needs \"text\" (a string) or \"bytes\" (base64)"))
        }
        var modifiers: [String] = []
        if let v = o["modifiers"] {
            guard case .array(let items) = v, let names = Optional(items.compactMap({ if case .string(let m) = $0 { return m }; return nil })),
                  names.count == items.count else {
                return .failure(LineError(message: "'modifiers' must be a list of strings, such as [\"gs1\"]"))
            }
            modifiers = names
        }
        var id: String?
        if let v = o["symbology_id"] {
            guard case .string(let s) = v else { return .failure(LineError(message: "'symbology_id' must be a string, such as \"]C1\"")) }
            id = s
            if gs1Identifiers.contains(s) && !modifiers.contains("gs1") { modifiers.append("gs1") }
        }
        var symbol = Symbol(symbology: Symbology(rawValue: name), bytes: bytes, modifiers: modifiers)
        symbol.symbologyID = id
        return .success(symbol)
    }

    /// Hex digits (spaces and colons allowed) -> bytes, or nil.
    package static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.filter { !$0.isWhitespace && $0 != ":" }.utf8)
        guard digits.count % 2 == 0, digits.allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar($0)).isHexDigit }) else { return nil }
        var bytes: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let b = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(b)
        }
        return bytes
    }
}
