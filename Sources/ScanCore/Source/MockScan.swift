import Foundation

/// Mock scans for `scanlua simulate`: symbols without images, as a scanner preview or a UI
/// test would push them.
public enum MockScan {
    /// Why an NDJSON line is not a mock scan.
    public struct LineError: Error { public let message: String }

    /// One NDJSON line -> the main symbol and its siblings (the main symbol first), and its source.
    ///     {"symbology": "qrcode", "text": "..."}   or "bytes": "<base64>";
    ///     optional "source", and "siblings": [{"symbology":, "text"|"bytes":}, ...]
    public static func parse(_ line: String) -> Result<(symbols: [Symbol], source: String?), LineError> {
        guard let object = JSON(parsing: Array(line.utf8)), case .object = object else {
            return .failure(LineError(message: "not a JSON object: \(line.prefix(60))"))
        }
        func symbol(_ o: JSON) -> Result<Symbol, LineError> {
            guard case .object = o else { return .failure(LineError(message: "needs \"text\" (a string) or \"bytes\" (base64)")) }
            var name = "qrcode"
            if case .string(let s)? = o["symbology"] { name = s.lowercased() }
            if case .string(let text)? = o["text"] {
                return .success(Symbol(symbology: Symbology(rawValue: name), bytes: Array(text.utf8)))
            }
            if case .string(let b64)? = o["bytes"] {
                guard let data = Data(base64Encoded: b64) else { return .failure(LineError(message: "'bytes' is not valid base64")) }
                return .success(Symbol(symbology: Symbology(rawValue: name), bytes: Array(data)))
            }
            return .failure(LineError(message: "needs \"text\" (a string) or \"bytes\" (base64)"))
        }
        var symbols: [Symbol] = []
        switch symbol(object) {
        case .success(let s): symbols.append(s)
        case .failure(let e): return .failure(e)
        }
        if let siblings = object["siblings"] {
            guard case .array(let list) = siblings else { return .failure(LineError(message: "'siblings' must be a list of objects")) }
            for (i, o) in list.enumerated() {
                switch symbol(o) {
                case .success(let s): symbols.append(s)
                case .failure(let e): return .failure(LineError(message: "sibling \(i + 1): \(e.message)"))
                }
            }
        }
        var source: String?
        if case .string(let s)? = object["source"] { source = s }
        return .success((symbols, source))
    }

    /// Hex digits (spaces and colons allowed) -> bytes, or nil.
    public static func hexBytes(_ text: String) -> [UInt8]? {
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
