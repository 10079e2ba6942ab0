import Foundation
import ScanCore

extension LuaState {
    /// Pushes one event as two values, what the prelude's `dispatch(fields, nested)` takes:
    /// a table of the scalar fields, and a table of points, bbox, modifiers and siblings, or nil
    /// when the symbol has none of them (simulated scans; the prelude supplies empty ones).
    /// Built directly on the Lua stack: this runs once per symbol. Stack: +2.
    func pushEvent(_ s: Symbol, info: FrameInfo, siblings: [Symbol]) {
        newTable(fields: 11)
        pushScalars(s, info: info)
        guard !s.points.isEmpty || !s.modifiers.isEmpty || !siblings.isEmpty else {
            push(.nil)
            return
        }
        newTable(fields: 4)
        pushNested(s)
        setRaw("siblings") {
            newTable(array: Int32(siblings.count))
            for (i, sib) in siblings.enumerated() { pushSibling(sib, info: info); setIndex(i + 1) }
        }
    }

    /// Pushes a sibling: one table with every field (no siblings of its own). Stack: +1.
    func pushSibling(_ s: Symbol, info: FrameInfo) {
        newTable(fields: 14)
        pushScalars(s, info: info)
        pushNested(s)
    }

    private func pushScalars(_ s: Symbol, info: FrameInfo) {
        setRaw("symbology") { pushString(s.symbology.rawValue) }
        setRaw("text") { pushString(s.text) }
        setRaw("bytes") { pushBytes(s.bytes) }
        setRaw("charset") { pushString(s.charset) }
        setRaw("orientation") { pushString(s.orientation) }
        setRaw("quality") { pushInt(s.quality) }
        setRaw("source") { pushString(info.source) }
        setRaw("frame") { pushInt(info.index) }
        setRaw("time") { pushNumber(info.time.timeIntervalSince1970) }
        if let addon = s.addon { setRaw("addon") { pushString(addon) } }
    }

    private func pushNested(_ s: Symbol) {
        setRaw("points") {
            newTable(array: Int32(s.points.count))
            for (i, p) in s.points.enumerated() {
                newTable(fields: 2)
                setRaw("x") { pushInt(p.x) }
                setRaw("y") { pushInt(p.y) }
                setIndex(i + 1)
            }
        }
        setRaw("bbox") {
            newTable(fields: 4)
            setRaw("x") { pushInt(s.bbox.x) }
            setRaw("y") { pushInt(s.bbox.y) }
            setRaw("width") { pushInt(s.bbox.width) }
            setRaw("height") { pushInt(s.bbox.height) }
        }
        setRaw("modifiers") {
            newTable(array: Int32(s.modifiers.count))
            for (i, m) in s.modifiers.enumerated() { pushString(m); setIndex(i + 1) }
        }
    }
}
