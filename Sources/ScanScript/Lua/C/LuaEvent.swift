import Foundation
import ScanCore

extension LuaState {
    /// Pushes the event table handed to the dispatcher (the prelude wraps it read-only).
    /// Built directly on the Lua stack: this runs once per symbol.
    func pushEvent(_ s: Symbol, info: FrameInfo, siblings: [Symbol]?) {
        newTable(fields: 14)
        setRaw("symbology") { pushString(s.symbology.rawValue) }
        setRaw("text") { pushString(s.text) }
        setRaw("bytes") { pushBytes(s.bytes) }
        setRaw("charset") { pushString(s.charset) }
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
        setRaw("orientation") { pushString(s.orientation) }
        setRaw("quality") { pushInt(s.quality) }
        setRaw("modifiers") {
            newTable(array: Int32(s.modifiers.count))
            for (i, m) in s.modifiers.enumerated() { pushString(m); setIndex(i + 1) }
        }
        setRaw("source") { pushString(info.source) }
        setRaw("frame") { pushInt(info.index) }
        setRaw("time") { pushNumber(info.time.timeIntervalSince1970) }
        if let addon = s.addon { setRaw("addon") { pushString(addon) } }
        if let siblings {
            setRaw("siblings") {
                newTable(array: Int32(siblings.count))
                for (i, sib) in siblings.enumerated() { pushEvent(sib, info: info, siblings: nil); setIndex(i + 1) }
            }
        }
    }
}
