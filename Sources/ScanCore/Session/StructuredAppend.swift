/// Joins the parts of structured-append sequences (QR, PDF417 Macro, DataMatrix, Aztec) into one
/// symbol with the whole payload, whether the parts are in one frame or in several frames of a
/// session. The parts keep their own symbols; the joined one comes with the part that completes it.
public struct StructuredAppendJoiner: Sendable {
    private struct Key: Hashable { var symbology: Symbology; var id: String; var size: Int }
    private var pending: [Key: [Int: Symbol]] = [:]
    private var order: [Key] = []
    /// Incomplete sequences kept at most (the oldest is dropped first).
    public var capacity = 64

    public init() {}

    /// The joined symbols that the parts among `symbols` complete.
    public mutating func add(_ symbols: [Symbol]) -> [Symbol] {
        var joined: [Symbol] = []
        for s in symbols {
            guard let q = s.sequence, q.size > 1, q.index >= 0, q.index < q.size else { continue }
            let key = Key(symbology: s.symbology, id: q.id, size: q.size)
            if pending[key] == nil {
                order.append(key)
                if order.count > capacity { pending[order.removeFirst()] = nil }
            }
            pending[key, default: [:]][q.index] = s
            guard let parts = pending[key], parts.count == q.size else { continue }
            pending[key] = nil
            order.removeAll { $0 == key }
            joined.append(Self.join((0..<q.size).map { parts[$0]! }, in: symbols))
        }
        return joined
    }

    /// The whole message: the parts' bytes in order; placed over the parts seen in this frame.
    static func join(_ parts: [Symbol], in frame: [Symbol]) -> Symbol {
        let here = parts.filter { p in frame.contains { $0 == p } }
        let points = (here.isEmpty ? [parts[parts.count - 1]] : here).flatMap(\.points)
        var s = Symbol(symbology: parts[0].symbology, bytes: parts.flatMap(\.bytes), points: Symbol.outline(points),
                       orientation: parts[0].orientation, quality: parts.map(\.quality).min() ?? 0,
                       modifiers: parts[0].modifiers)
        if let eci = parts[0].eci {
            s.eci = eci
            s.charset = parts[0].charset
            s.text = parts.map(\.text).joined()
        }
        s.decoder = parts[0].decoder
        s.symbologyID = parts[0].symbologyID
        s.joinedParts = parts.count
        return s
    }
}
