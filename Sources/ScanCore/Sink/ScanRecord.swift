import Foundation

/// One output record: a decoded symbol with what scripts made of it, or an input that failed.
public struct ScanRecord: Sendable {
    public var info: FrameInfo
    /// The decoded symbol; nil for an input error record.
    public var symbol: Symbol?
    /// Why the input could not be read; nil for a symbol record.
    public var inputError: String?
    /// What a parser produced (`{"type":"raw"}` when none claimed the symbol); nil when no scripts ran.
    public var payload: JSON?
    /// Actions the rules took, as data.
    public var actions: [JSON] = []
    /// Records the rules emitted with `ctx.emit`.
    public var emitted: [JSON] = []
    /// Script errors on this symbol, each with `script:line`.
    public var errors: [JSON] = []
    /// The payload as text for people (only `--format text` prints it).
    public var summary: String?

    public init(info: FrameInfo, symbol: Symbol) {
        self.info = info
        self.symbol = symbol
    }

    public init(info: FrameInfo, inputError: String) {
        self.info = info
        self.inputError = inputError
    }

    /// The record as one NDJSON object, keys in a fixed order.
    public var json: JSON {
        var pairs: [(String, JSON)] = [("source", .string(info.source))]
        if info.index != 0 { pairs.append(("frame", .int(info.index))) }
        if let inputError {
            pairs.append(("error", .string(inputError)))
            return .object(pairs)
        }
        guard let s = symbol else { return .object(pairs) }
        pairs += [
            ("symbology", .string(s.symbology.rawValue)),
            ("text", .string(s.text)),
            ("charset", .string(s.charset)),
            ("bytes", .string(s.bytes.base64)),
            ("points", .array(s.points.map { .array([.int($0.x), .int($0.y)]) })),
            ("bbox", .object([("x", .int(s.bbox.x)), ("y", .int(s.bbox.y)),
                              ("width", .int(s.bbox.width)), ("height", .int(s.bbox.height))])),
            ("orientation", .string(s.orientation)),
            ("quality", .int(s.quality)),
        ]
        if !s.modifiers.isEmpty { pairs.append(("modifiers", .array(s.modifiers.map { .string($0) }))) }
        if let addon = s.addon { pairs.append(("addon", .string(addon))) }
        if let payload { pairs.append(("payload", payload)) }
        if !actions.isEmpty { pairs.append(("actions", .array(actions))) }
        if !emitted.isEmpty { pairs.append(("emitted", .array(emitted))) }
        if !errors.isEmpty { pairs.append(("errors", .array(errors))) }
        return .object(pairs)
    }
}
