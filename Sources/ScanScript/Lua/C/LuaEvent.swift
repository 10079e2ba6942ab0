internal import CScanShims
import Foundation
import ScanCore

/// Strings every event uses, interned once: pushing a cached string is an array read, pushing
/// a new one hashes it again (this runs for every field of every symbol). Slots after the
/// strings hold the prelude's event parts (see prelude.lua, `event_parts`).
private let eventKeys = ["symbology", "text", "bytes", "charset", "orientation", "quality", "source", "frame", "time",
                         "addon", "points", "bbox", "modifiers", "siblings", "x", "y", "width", "height",
                         "__index", "__newindex", "__pairs", "__metatable", "read-only"]

private enum Key: Int {
    case symbology = 1, text, bytes, charset, orientation, quality, source, frame, time
    case addon, points, bbox, modifiers, siblings, x, y, width, height
    case index, newindex, pairs, metatable, readOnly
    // The prelude's event parts.
    case nestedKey, noNested, fieldsMetatable, readonlyError, proxyPairs
}

/// Values that repeat across events (symbology names, charsets, orientations), interned once.
private let commonValues: [String: Int] = {
    let values = Symbology.zbarNames + ["utf-8", "big5", "gb18030", "shift_jis", "iso-8859-1", "binary",
                                        "up", "right", "down", "left", "unknown"]
    return Dictionary(uniqueKeysWithValues: values.enumerated().map { ($1, Key.proxyPairs.rawValue + 1 + $0) })
}()

extension LuaState {
    /// Pushes one event as the two values the prelude's `dispatch(fields, ev)` takes: the table
    /// of fields, and the read-only proxy handlers see (see prelude.lua, "Read-only views").
    /// Built directly on the Lua stack: this runs once per symbol. Stack: +2.
    func pushEvent(_ s: Symbol, info: FrameInfo, siblings: [Symbol]) {
        lua_rawgeti(L, scanlua_LUA_REGISTRYINDEX, lua_Integer(eventKeysRef))
        let keys = lua_gettop(L)
        lua_createtable(L, 0, 12)  // 10 scalars, addon, the private key for `nested`
        let fields = lua_gettop(L)
        pushScalars(s, info: info, keys: keys)
        lua_rawgeti(L, keys, lua_Integer(Key.nestedKey.rawValue))
        if s.points.isEmpty && s.modifiers.isEmpty && siblings.isEmpty {
            lua_rawgeti(L, keys, lua_Integer(Key.noNested.rawValue))
        } else {
            lua_createtable(L, 0, 4)
            pushNested(s, keys: keys)
            set(.siblings, keys) {
                lua_createtable(L, Int32(siblings.count), 0)
                for (i, sib) in siblings.enumerated() {
                    lua_createtable(L, 0, 14)
                    pushScalars(sib, info: info, keys: keys)
                    pushNested(sib, keys: keys)
                    lua_rawseti(L, -2, lua_Integer(i + 1))
                }
            }
        }
        lua_rawset(L, fields)
        lua_rawgeti(L, keys, lua_Integer(Key.fieldsMetatable.rawValue))
        lua_setmetatable(L, fields)
        // The proxy: an empty table whose metatable reads through to `fields`.
        lua_createtable(L, 0, 0)
        lua_createtable(L, 0, 4)
        set(.index, keys) { lua_pushvalue(L, fields) }
        set(.newindex, keys) { lua_rawgeti(L, keys, lua_Integer(Key.readonlyError.rawValue)) }
        set(.pairs, keys) { lua_rawgeti(L, keys, lua_Integer(Key.proxyPairs.rawValue)) }
        set(.metatable, keys) { lua_rawgeti(L, keys, lua_Integer(Key.readOnly.rawValue)) }
        lua_setmetatable(L, -2)
        scanlua_lua_remove(L, keys)  // drop the key table under the two results
    }

    /// Builds the table of interned strings and event parts from the prelude's `event_parts`
    /// list on top of the stack (popped). Called once per engine.
    func installEventParts() {
        lua_createtable(L, Int32(eventKeys.count + 5 + commonValues.count), 0)
        for (i, k) in eventKeys.enumerated() {
            pushString(k)
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
        for part in 0..<5 {
            lua_rawgeti(L, -2, lua_Integer(part + 1))
            lua_rawseti(L, -2, lua_Integer(Key.nestedKey.rawValue + part))
        }
        for (value, slot) in commonValues {
            pushString(value)
            lua_rawseti(L, -2, lua_Integer(slot))
        }
        eventKeysRef = luaL_ref(L, scanlua_LUA_REGISTRYINDEX)
        pop()  // event_parts
    }

    /// Pushes a string that is likely one of ``commonValues`` from the key table at `keys`.
    @inline(__always)
    private func pushCommon(_ value: String, keys: Int32) {
        if let slot = commonValues[value] { lua_rawgeti(L, keys, lua_Integer(slot)) } else { pushString(value) }
    }

    /// table[key] = value pushed by `value`, for the table on top; `keys` is the key table's index.
    @inline(__always)
    private func set(_ key: Key, _ keys: Int32, _ value: () -> Void) {
        lua_rawgeti(L, keys, lua_Integer(key.rawValue))
        value()
        lua_rawset(L, -3)
    }

    private func pushScalars(_ s: Symbol, info: FrameInfo, keys: Int32) {
        set(.symbology, keys) { pushCommon(s.symbology.rawValue, keys: keys) }
        set(.text, keys) { pushString(s.text) }
        // Valid UTF-8 payloads are their own text: reuse the string instead of interning it again.
        set(.bytes, keys) {
            if s.charset == "utf-8" { lua_rawgeti(L, keys, lua_Integer(Key.text.rawValue)); lua_rawget(L, -3) }
            else { pushBytes(s.bytes) }
        }
        set(.charset, keys) { pushCommon(s.charset, keys: keys) }
        set(.orientation, keys) { pushCommon(s.orientation, keys: keys) }
        set(.quality, keys) { lua_pushinteger(L, lua_Integer(s.quality)) }
        set(.source, keys) { pushString(info.source) }
        set(.frame, keys) { lua_pushinteger(L, lua_Integer(info.index)) }
        set(.time, keys) { lua_pushnumber(L, info.time.timeIntervalSince1970) }
        if let addon = s.addon { set(.addon, keys) { pushString(addon) } }
    }

    private func pushNested(_ s: Symbol, keys: Int32) {
        set(.points, keys) {
            lua_createtable(L, Int32(s.points.count), 0)
            for (i, p) in s.points.enumerated() {
                lua_createtable(L, 0, 2)
                set(.x, keys) { lua_pushinteger(L, lua_Integer(p.x)) }
                set(.y, keys) { lua_pushinteger(L, lua_Integer(p.y)) }
                lua_rawseti(L, -2, lua_Integer(i + 1))
            }
        }
        set(.bbox, keys) {
            lua_createtable(L, 0, 4)
            set(.x, keys) { lua_pushinteger(L, lua_Integer(s.bbox.x)) }
            set(.y, keys) { lua_pushinteger(L, lua_Integer(s.bbox.y)) }
            set(.width, keys) { lua_pushinteger(L, lua_Integer(s.bbox.width)) }
            set(.height, keys) { lua_pushinteger(L, lua_Integer(s.bbox.height)) }
        }
        set(.modifiers, keys) {
            lua_createtable(L, Int32(s.modifiers.count), 0)
            for (i, m) in s.modifiers.enumerated() {
                pushString(m)
                lua_rawseti(L, -2, lua_Integer(i + 1))
            }
        }
    }
}
