/// Joins the parts of structured-append sequences (QR, PDF417 Macro, DataMatrix, Aztec) into one
/// symbol with the whole payload, whether the parts are in one frame or in several frames of a
/// session. The parts keep their own symbols; the joined one comes with the part that completes it.
package struct StructuredAppendJoiner: Sendable {
    private struct Key: Hashable { var symbology: Symbology; var id: String; var size: Int }
    private var pending: [Key: [Int: Symbol]] = [:]
    private var order: [Key] = []
    /// Incomplete sequences kept at most (the oldest is dropped first).
    package var capacity = 64

    package init() {}

    /// The joined symbols that the parts among `symbols` complete.
    package mutating func add(_ symbols: [Symbol]) -> [Symbol] {
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
        // The charset may change between parts (an ECI in one part holds for the next): decode
        // the joined stream with its designators.
        // zxing-cpp starts each part's stream at the default ECI (\000003); in a sequence the
        // charset of the previous part goes on, so that leading designator is dropped after part 1.
        let streams = parts.compactMap(\.eciPayload).enumerated().map { i, stream in
            i > 0 && stream.starts(with: Array("\\000003".utf8)) ? Array(stream.dropFirst(7)) : stream
        }
        if streams.count == parts.count, let decoded = ECI.decode(streams.flatMap { $0 }), !decoded.ecis.isEmpty {
            s.eci = decoded.ecis[0]
            s.text = decoded.text
            var names: [String] = []
            for e in decoded.ecis where !names.contains(ECI.charsetName(e)) { names.append(ECI.charsetName(e)) }
            s.charset = names.joined(separator: "+")
        } else if let eci = parts[0].eci {
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
