internal import CLuaShims
import Foundation
import ScanCore

/// Strings the nested event tables use, interned once: pushing a cached string is an array
/// read, pushing a new one hashes it again.
private let eventKeys = ["symbology", "text", "bytes", "charset", "orientation", "quality", "source", "frame", "time",
                         "addon", "points", "bbox", "modifiers", "siblings", "x", "y", "width", "height",
                         "decoder", "symbology_id", "time_ms", "page"]

private enum Key: Int {
    case symbology = 1, text, bytes, charset, orientation, quality, source, frame, time
    case addon, points, bbox, modifiers, siblings, x, y, width, height
    case decoder, symbologyID, timeMS, page
}

/// Milliseconds since 1970, an integer: `ev.time_ms`, and `ev.time` (whole seconds, so
/// `os.date(fmt, ev.time)` works as with `os.time()`).
func milliseconds(_ date: Date) -> lua_Integer {
    // Clamped to the years 1 to 9999 (a time from a script cannot overflow the integer).
    lua_Integer((min(max(date.timeIntervalSince1970, MockScan.validTime.lowerBound), MockScan.validTime.upperBound) * 1000).rounded(.down))
}

/// The values of one event in a batch, in this order (prelude/views.lua, `event_from`, reads them):
/// symbology, text, bytes, charset, orientation, quality, source, frame, time (milliseconds), nested (a table
/// of points, bbox, modifiers and siblings, or false when all are empty), addon, decoder,
/// symbology_id (false when absent), page (a document's page from 1; false for other inputs). `nested.siblings` is `{ frame, i }`: the frame's symbols as
/// plain tables, one list shared by the frame's events in the batch, and this event's place in
/// it; prelude/views.lua makes `ev.siblings` from it when a handler first reads it.
let eventSlots = 14

/// Whether two strings are the same value bit for bit: the same small string, or the same
/// storage. Then they hold the same bytes (String's `==` also holds for canonically equivalent
/// strings of other bytes, and comparing bytes costs more than interning short strings again).
@inline(__always)
private func sameBits(_ a: String, _ b: String) -> Bool {
    withUnsafeBytes(of: a) { x in withUnsafeBytes(of: b) { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
}

extension LuaState {
    /// Pushes the flat list of events' values the prelude's `dispatch_batch` reads, one run of
    /// ``eventSlots`` per event. Lua builds the event tables itself from it, with table
    /// constructors: cheaper than building them through the C API. Stack: +1.
    /// `reusing`: fill the list kept from the last batch (the dispatcher's batches: a new list
    /// each time is 53 KB for the collector to free) instead of a new one (scan.simulate, which
    /// a handler may call while a batch's list is being read).
    func pushEvents(_ events: ArraySlice<ScanEvent>, reusing: Bool = false) {
        // Events are read in place (a copy of a ScanEvent retains each of its strings and arrays).
        events.withUnsafeBufferPointer { pushEvents(in: $0, reusing: reusing) }
    }

    private func pushEvents(in events: UnsafeBufferPointer<ScanEvent>, reusing: Bool) {
        if reusing {
            if eventListRef == 0 {
                lua_createtable(L, Int32(events.count * eventSlots), 0)
                eventListRef = luaL_ref(L, scanlua_LUA_REGISTRYINDEX)
            }
            lua_rawgeti(L, scanlua_LUA_REGISTRYINDEX, lua_Integer(eventListRef))
        } else {
            lua_createtable(L, Int32(events.count * eventSlots), 0)
        }
        let list = lua_gettop(L)
        var k: lua_Integer = 1
        var keys: Int32 = 0
        // The current frame's list of symbol tables, in a slot of its own (replaced at each frame).
        lua_pushnil(L)
        let frameSlot = lua_gettop(L)
        // Which frame's list is there: its array's storage (the events of a frame share one array).
        var frameStorage: UnsafeRawPointer?
        // A string the previous event had in the same slot is copied from there: most events of
        // a batch share their symbology, charset, orientation, source and decoder, and copying a
        // slot is cheaper than interning the string again.
        func push(_ text: String, _ before: String?, _ slot: lua_Integer) {
            if let before, sameBits(text, before) { lua_rawgeti(L, list, slot - lua_Integer(eventSlots)) } else { pushString(text) }
            lua_rawseti(L, list, slot)
        }
        for i in events.indices {
            let first = i == events.startIndex
            push(events[i].symbol.symbology.rawValue, first ? nil : events[i - 1].symbol.symbology.rawValue, k)
            pushString(events[i].symbol.text); lua_rawseti(L, list, k + 1)
            // Valid UTF-8 payloads are their own text: reuse the string instead of interning it again.
            if events[i].symbol.charset == "utf-8" { lua_rawgeti(L, list, k + 1) } else { pushBytes(events[i].symbol.bytes) }
            lua_rawseti(L, list, k + 2)
            push(events[i].symbol.charset, first ? nil : events[i - 1].symbol.charset, k + 3)
            push(events[i].symbol.orientation, first ? nil : events[i - 1].symbol.orientation, k + 4)
            lua_pushinteger(L, lua_Integer(events[i].symbol.quality)); lua_rawseti(L, list, k + 5)
            // The display form (PathName) is made only when the source changes (a frame's events share it).
            if !first, sameBits(events[i].info.source, events[i - 1].info.source) { lua_rawgeti(L, list, k + 6 - lua_Integer(eventSlots)) }
            else { pushString(PathName.display(events[i].info.source)) }
            lua_rawseti(L, list, k + 6)
            lua_pushinteger(L, lua_Integer(events[i].info.index)); lua_rawseti(L, list, k + 7)
            lua_pushinteger(L, milliseconds(events[i].info.time)); lua_rawseti(L, list, k + 8)
            let frameCount = events[i].frameSymbols.count
            if events[i].symbol.points.isEmpty && events[i].symbol.modifiers.isEmpty && frameCount < 2 {
                lua_pushboolean(L, 0)
            } else {
                if keys == 0 {
                    lua_rawgeti(L, scanlua_LUA_REGISTRYINDEX, lua_Integer(eventKeysRef))
                    keys = lua_gettop(L)
                }
                let storage = events[i].frameSymbols.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
                if frameCount > 1 && storage != frameStorage {
                    pushSymbolList(events[i].frameSymbols, info: events[i].info, keys: keys)
                    lua_copy(L, -1, frameSlot)
                    lua_settop(L, -2)
                    frameStorage = storage
                }
                pushNested(events[i].symbol, frame: frameCount > 1 ? frameSlot : 0, index: events[i].index, keys: keys)
            }
            lua_rawseti(L, list, k + 9)
            if let addon = events[i].symbol.addon { pushString(addon) } else { lua_pushboolean(L, 0) }
            lua_rawseti(L, list, k + 10)
            push(events[i].symbol.decoder, first ? nil : events[i - 1].symbol.decoder, k + 11)
            if let id = events[i].symbol.symbologyID { pushString(id) } else { lua_pushboolean(L, 0) }
            lua_rawseti(L, list, k + 12)
            if let page = events[i].info.page { lua_pushinteger(L, lua_Integer(page)) } else { lua_pushboolean(L, 0) }
            lua_rawseti(L, list, k + 13)
            k += lua_Integer(eventSlots)
        }
        if reusing {
            // A smaller batch than the last leaves no values of the last behind: they would stay
            // alive, and count against the memory limit, while this batch's handlers run.
            var stale = k
            while stale <= eventListFilled { lua_pushnil(L); lua_rawseti(L, list, stale); stale += 1 }
            eventListFilled = k - 1
        }
        lua_settop(L, list)
    }

    /// Interns the nested tables' keys once per engine.
    func installEventKeys() {
        lua_createtable(L, Int32(eventKeys.count), 0)
        for (i, k) in eventKeys.enumerated() {
            pushString(k)
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
        eventKeysRef = luaL_ref(L, scanlua_LUA_REGISTRYINDEX)
    }

    /// table[key] = value pushed by `value`, for the table on top; `keys` is the key table's index.
    @inline(__always)
    private func set(_ key: Key, _ keys: Int32, _ value: () -> Void) {
        lua_rawgeti(L, keys, lua_Integer(key.rawValue))
        value()
        lua_rawset(L, -3)
    }

    /// The nested values of an event: points, bbox, modifiers, and `siblings = { frame, index }`
    /// (the frame's list at stack slot `frame`, none when 0). Stack: +1.
    private func pushNested(_ s: Symbol, frame: Int32, index: Int, keys: Int32) {
        lua_createtable(L, 0, 4)
        pushGeometry(s, keys: keys)
        if frame != 0 {
            set(.siblings, keys) {
                lua_createtable(L, 2, 0)
                lua_pushvalue(L, frame)
                lua_rawseti(L, -2, 1)
                lua_pushinteger(L, lua_Integer(index + 1))
                lua_rawseti(L, -2, 2)
            }
        }
    }

    /// The symbols of a frame as plain tables of the event fields (without siblings of their
    /// own), in order: what `ev.siblings` is made from. Stack: +1.
    private func pushSymbolList(_ symbols: [Symbol], info: FrameInfo, keys: Int32) {
        lua_createtable(L, Int32(symbols.count), 0)
        for (i, sib) in symbols.enumerated() {
            lua_createtable(L, 0, 14)
            set(.symbology, keys) { pushString(sib.symbology.rawValue) }
            set(.text, keys) { pushString(sib.text) }
            set(.bytes, keys) { pushBytes(sib.bytes) }
            set(.charset, keys) { pushString(sib.charset) }
            set(.orientation, keys) { pushString(sib.orientation) }
            set(.quality, keys) { lua_pushinteger(L, lua_Integer(sib.quality)) }
            set(.source, keys) { pushString(PathName.display(info.source)) }
            set(.frame, keys) { lua_pushinteger(L, lua_Integer(info.index)) }
            if let page = info.page { set(.page, keys) { lua_pushinteger(L, lua_Integer(page)) } }
            set(.time, keys) { lua_pushinteger(L, milliseconds(info.time) / 1000) }
            set(.timeMS, keys) { lua_pushinteger(L, milliseconds(info.time)) }
            if let addon = sib.addon { set(.addon, keys) { pushString(addon) } }
            set(.decoder, keys) { pushString(sib.decoder) }
            if let id = sib.symbologyID { set(.symbologyID, keys) { pushString(id) } }
            pushGeometry(sib, keys: keys)
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
    }

    private func pushGeometry(_ s: Symbol, keys: Int32) {
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
