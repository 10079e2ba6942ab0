internal import CLuaShims
import ScanCore

/// A value a decoder returned: its bytes and, when the decoder said, where it was.
struct DecodedValue {
    var bytes: [UInt8]
    var points: [Point]?
}

extension LuaState {
    /// Pushes a scan line as the table linear decoders read:
    /// `{direction=, index=, widths={...}, positions={...}, quiet_before=, quiet_after=,
    /// edge_before=, edge_after=, threshold=}`.
    func pushScanline(_ line: Scanline) {
        lua_createtable(L, 0, 9)
        pushString("direction"); pushString(line.direction); lua_rawset(L, -3)
        pushString("index"); lua_pushinteger(L, lua_Integer(line.index)); lua_rawset(L, -3)
        pushString("widths")
        lua_createtable(L, Int32(line.widths.count), 0)
        for (i, w) in line.widths.enumerated() { lua_pushinteger(L, lua_Integer(w)); lua_rawseti(L, -2, lua_Integer(i + 1)) }
        lua_rawset(L, -3)
        pushString("positions")
        lua_createtable(L, Int32(line.positions.count), 0)
        for (i, p) in line.positions.enumerated() { lua_pushinteger(L, lua_Integer(p)); lua_rawseti(L, -2, lua_Integer(i + 1)) }
        lua_rawset(L, -3)
        pushString("quiet_before"); lua_pushinteger(L, lua_Integer(line.quietBefore)); lua_rawset(L, -3)
        pushString("quiet_after"); lua_pushinteger(L, lua_Integer(line.quietAfter)); lua_rawset(L, -3)
        pushString("edge_before"); lua_pushboolean(L, line.edgeBefore ? 1 : 0); lua_rawset(L, -3)
        pushString("edge_after"); lua_pushboolean(L, line.edgeAfter ? 1 : 0); lua_rawset(L, -3)
        pushString("threshold"); lua_pushinteger(L, lua_Integer(line.threshold)); lua_rawset(L, -3)
    }

    /// Pushes a list of scan lines (scan.scan_lines in a test). Stack: +1.
    func pushScanlines(_ lines: [Scanline]) {
        lua_createtable(L, Int32(lines.count), 0)
        for (i, line) in lines.enumerated() {
            pushScanline(line)
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
    }

    /// Pushes the frame view image decoders read: `{data=, width=, height=, x=, y=}` for the
    /// pixels inside `box`, with the metatable on top of the stack (the prelude's frame methods,
    /// replaced by the view). Stack: 0.
    func pushFrame(_ image: GrayImage, box: Box) {
        let pixels = box.width == image.width && box.height == image.height ? image.pixels : image.cropped(to: box).pixels
        lua_createtable(L, 0, 5)
        pushString("data"); pushBytes(pixels); lua_rawset(L, -3)
        pushString("width"); lua_pushinteger(L, lua_Integer(box.width)); lua_rawset(L, -3)
        pushString("height"); lua_pushinteger(L, lua_Integer(box.height)); lua_rawset(L, -3)
        pushString("x"); lua_pushinteger(L, lua_Integer(box.x)); lua_rawset(L, -3)
        pushString("y"); lua_pushinteger(L, lua_Integer(box.y)); lua_rawset(L, -3)
        lua_pushvalue(L, -2)
        lua_setmetatable(L, -2)
        scanlua_lua_remove(L, -2)
    }

    /// Reads what a decoder returned at `i`: nil, a string, a value table
    /// `{text=|bytes=, points={{x=,y=},...}}`, or a list of those.
    /// - Throws: when something else came back (the message says what).
    func decodedValues(at i: Int32) throws(ScriptError) -> [DecodedValue] {
        let i = lua_absindex(L, i)
        switch lua_type(L, i) {
        case LUA_TNIL, LUA_TNONE: return []
        case LUA_TSTRING: return [DecodedValue(bytes: bytes(at: i) ?? [], points: nil)]
        case LUA_TTABLE:
            if let single = try decodedValue(table: i) { return [single] }
            var values: [DecodedValue] = []
            let n = rawLength(i)
            for k in 0..<n {
                rawIndex(i, k + 1)
                defer { pop() }
                if lua_type(L, -1) == LUA_TSTRING {
                    values.append(DecodedValue(bytes: bytes(at: -1) ?? [], points: nil))
                } else if lua_type(L, -1) == LUA_TTABLE, let v = try decodedValue(table: lua_absindex(L, -1)) {
                    values.append(v)
                } else {
                    throw .conversion("decode must return nil, a string, a {text=...} table or a list of them; item \(k + 1) is a \(typeName(at: -1))")
                }
            }
            return values
        default:
            throw .conversion("decode must return nil, a string, a {text=...} table or a list of them, got \(typeName(at: i))")
        }
    }

    /// A `{text=|bytes=, points=}` table at absolute index `t`, or nil when it has neither text nor bytes.
    private func decodedValue(table t: Int32) throws(ScriptError) -> DecodedValue? {
        rawField(t, "bytes")
        if lua_type(L, -1) != LUA_TSTRING { pop(); rawField(t, "text") }
        defer { pop() }
        guard lua_type(L, -1) == LUA_TSTRING, let b = bytes(at: -1) else { return nil }
        rawField(t, "points")
        defer { pop() }
        var points: [Point]?
        if lua_type(L, -1) == LUA_TTABLE {
            var list: [Point] = []
            for k in 0..<rawLength(-1) {
                rawIndex(-1, k + 1)
                guard lua_type(L, -1) == LUA_TTABLE else {
                    let got = typeName(at: -1)
                    pop()
                    throw .conversion("points must be a list of {x=, y=} tables; point \(k + 1) is a \(got)")
                }
                rawField(-1, "x")
                rawField(-2, "y")
                let x = integer(at: -2), y = integer(at: -1)
                pop(3)
                // Pixel coordinates: anything beyond a billion is not a place in a frame.
                guard let x, let y, (-(1 << 30)...(1 << 30)).contains(x), (-(1 << 30)...(1 << 30)).contains(y) else {
                    throw .conversion("points must be {x=, y=} with integer pixel coordinates; point \(k + 1) is not")
                }
                list.append(Point(x: x, y: y))
            }
            points = list
        } else if lua_type(L, -1) != LUA_TNIL {
            throw .conversion("points must be a list of {x=, y=} tables, got \(typeName(at: -1))")
        }
        return DecodedValue(bytes: b, points: points)
    }
}
