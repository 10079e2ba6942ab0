internal import CScanShims
import Foundation
import ScanCore

extension LuaState {
    /// The event table handed to the dispatcher (the prelude wraps it read-only).
    static func eventValue(_ s: Symbol, info: FrameInfo, siblings: [Symbol]?) -> LuaValue {
        var fields: [(String, LuaValue)] = [
            ("symbology", .string(s.symbology.rawValue)),
            ("text", .string(s.text)),
            ("bytes", .bytes(s.bytes)),
            ("charset", .string(s.charset)),
            ("points", .list(s.points.map { .table([("x", .int($0.x)), ("y", .int($0.y))]) })),
            ("bbox", .table([("x", .int(s.bbox.x)), ("y", .int(s.bbox.y)),
                             ("width", .int(s.bbox.width)), ("height", .int(s.bbox.height))])),
            ("orientation", .string(s.orientation)),
            ("quality", .int(s.quality)),
            ("modifiers", .list(s.modifiers.map { .string($0) })),
            ("source", .string(info.source)),
            ("frame", .int(info.index)),
            ("time", .number(info.time.timeIntervalSince1970)),
        ]
        if let addon = s.addon { fields.append(("addon", .string(addon))) }
        if let siblings {
            fields.append(("siblings", .list(siblings.map { eventValue($0, info: info, siblings: nil) })))
        }
        return .table(fields)
    }
}
