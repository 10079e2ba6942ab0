import ScanCore

/// `host.frames`: the image operations behind the Lua frame view's methods (prelude/frames.lua),
/// each checking its arguments as lauxlib's functions do. The frame's data, width and height come
/// from the view (checked there); errors name the method and its arguments as the script wrote
/// them. The work is ``FrameOps``'.
enum FrameLibrary {
    static func library() -> LuaValue {
        .table([
            // otsu(data) -> level
            ("otsu", .function { L throws(ScriptError) in
                L.push(.int(FrameOps.otsu(try L.checkString(1, "frame:otsu"))))
                return 1
            }),
            // binarize(data[, level = 128]) -> data
            ("binarize", .function { L throws(ScriptError) in
                let data = try L.checkString(1, "frame:binarize")
                L.push(.bytes(FrameOps.binarize(data, level: try L.optInteger(2, "frame:binarize", 128, shown: 1))))
                return 1
            }),
            // adaptive(data, width, height[, radius = 7[, offset = 5]]) -> data
            ("adaptive", .function { L throws(ScriptError) in
                let data = try L.checkString(1, "frame:adaptive")
                let width = try L.checkInteger(2, "frame:adaptive"), height = try L.checkInteger(3, "frame:adaptive")
                let radius = try L.optInteger(4, "frame:adaptive", 7, shown: 1), offset = try L.optInteger(5, "frame:adaptive", 5, shown: 2)
                L.push(.bytes(FrameOps.adaptive(data, width: width, height: height, radius: max(1, radius), offset: offset)))
                return 1
            }),
            // column(data, width, height, x) -> the column's bytes
            ("column", .function { L throws(ScriptError) in
                let data = try L.checkString(1, "frame:column")
                let width = try L.checkInteger(2, "frame:column"), height = try L.checkInteger(3, "frame:column")
                let x = try L.checkInteger(4, "frame:column", shown: 1)
                L.push(.bytes(FrameOps.column(data, width: width, height: height, x: x)))
                return 1
            }),
        ])
    }
}
