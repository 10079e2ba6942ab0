import Foundation
import ScanCore

// Mock scans (`scan.simulate`, `scanlua simulate`, the tests): `host.simulate` makes one event's
// batch values from a spec and wraps a simulated event in a store transaction of its own.
extension ScriptEngine {
    /// `host.simulate`: make_event(...), events(on).
    func simulateLibrary() -> LuaValue {
        .table([
            // make_event(symbology, bytes, source, { {symbology, bytes, modifiers, id|false}, ... }, time|false,
            // modifiers, id|false) -> one event's batch values (the prelude checked the spec's types).
            ("make_event", .function { L throws(ScriptError) in
                func strings(_ index: Int32) -> [String] {
                    (0..<L.rawLength(index)).compactMap { i in L.rawIndex(index, i + 1); defer { L.pop() }; return L.string(at: -1) }
                }
                func symbol(_ name: String, _ bytes: [UInt8], modifiers: [String], id: String?) -> Symbol {
                    // A GS1 identifier (]C1: GS1-128) means FNC1 first, as a decoder would say.
                    let gs1 = id.map { MockScan.gs1Identifiers.contains($0) } ?? false
                    var s = Symbol(symbology: Symbology(rawValue: name), bytes: bytes,
                                   modifiers: gs1 && !modifiers.contains("gs1") ? modifiers + ["gs1"] : modifiers)
                    s.symbologyID = id
                    return s
                }
                let symbology = try L.checkText(1, "scan.simulate")
                let bytes = try L.checkString(2, "scan.simulate")
                let source = try L.optText(3, "scan.simulate", "simulate")
                var siblings: [Symbol] = []
                for i in 0..<L.rawLength(4) {
                    L.rawIndex(4, i + 1)
                    let sib = L.top
                    L.rawIndex(sib, 1)
                    L.rawIndex(sib, 2)
                    L.rawIndex(sib, 3)
                    L.rawIndex(sib, 4)
                    let name = L.string(at: -4) ?? "qrcode"
                    let sb = L.bytes(at: -3) ?? []
                    let mods = strings(L.top - 1)
                    let id = L.string(at: -1)
                    L.pop(5)
                    siblings.append(symbol(name, sb, modifiers: mods, id: id))
                }
                let time = L.number(at: 5).map { Date(timeIntervalSince1970: $0) } ?? Date()
                let main = symbol(symbology, bytes, modifiers: strings(6), id: L.string(at: 7))
                L.pushEvents([ScanEvent(symbol: main, info: FrameInfo(source: source, time: time), siblings: siblings)][...])
                return 1
            }),
            // events(on): scan.simulate outside a session (a test) runs its event in a transaction
            // of its own, rolled back when a rule failed, as in a scan.
            ("events", .function { [unowned self] L throws(ScriptError) in
                if L.bool(at: 1) { store.beginEvents() } else { store.endEvents() }
                return 0
            }),
        ])
    }
}
