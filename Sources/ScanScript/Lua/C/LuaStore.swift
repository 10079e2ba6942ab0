internal import CLuaShims
import ScanCore
import ScanStore

extension LuaState {
    /// Reads the parameters table at `i`: a list for `?` placeholders, or string keys for `:name`.
    /// Strings, numbers and booleans bind; anything else is an argument error.
    func sqlParameters(at i: Int32, function: String) throws(ScriptError) -> ([SQLValue], [String: SQLValue]) {
        let t = lua_absindex(L, i)
        switch lua_type(L, t) {
        case LUA_TNONE, LUA_TNIL: return ([], [:])
        case LUA_TTABLE: break
        default: throw .argument("bad argument #2 to '\(function)' (table of parameters expected, got \(typeName(at: t)))")
        }
        var positional: [SQLValue] = []
        let n = rawLength(t)
        for k in 0..<n {
            rawIndex(t, k + 1)
            defer { pop() }
            positional.append(try sqlValue(at: -1, function: function, what: "parameter \(k + 1)"))
        }
        var named: [String: SQLValue] = [:]
        lua_pushnil(L)
        while lua_next(L, t) != 0 {
            defer { pop() }
            if lua_type(L, -2) == LUA_TSTRING, let key = string(at: -2) {
                named[key] = try sqlValue(at: -1, function: function, what: "parameter :\(key)")
            }
        }
        return (positional, named)
    }

    private func sqlValue(at i: Int32, function: String, what: String) throws(ScriptError) -> SQLValue {
        switch lua_type(L, i) {
        case LUA_TSTRING: return .text(string(at: i) ?? "")
        case LUA_TBOOLEAN: return .integer(bool(at: i) ? 1 : 0)
        case LUA_TNUMBER:
            if lua_isinteger(L, i) != 0 { return .integer(Int64(scanlua_lua_tointeger(L, i))) }
            return .real(scanlua_lua_tonumber(L, i))
        default: throw .argument("bad argument #2 to '\(function)' (\(what) is a \(typeName(at: i)); use strings, numbers or booleans)")
        }
    }

    /// Pushes rows as a list of `{column = value}` tables (NULL columns left out).
    func pushRows(_ rows: [[(String, SQLValue)]]) {
        lua_createtable(L, Int32(rows.count), 0)
        for (r, row) in rows.enumerated() {
            lua_createtable(L, 0, Int32(row.count))
            for (name, value) in row {
                switch value {
                case .null: continue
                case .integer(let n): pushString(name); lua_pushinteger(L, lua_Integer(n))
                case .real(let d): pushString(name); lua_pushnumber(L, d)
                case .text(let s): pushString(name); pushString(s)
                case .blob(let b): pushString(name); pushBytes(b)
                }
                lua_rawset(L, -3)
            }
            lua_rawseti(L, -2, lua_Integer(r + 1))
        }
    }

    /// Reads `{ [1] = "sql", [2] = "sql" }` (or a list) into numbered migrations.
    func migrations(at i: Int32) throws(ScriptError) -> [(version: Int, sql: String)] {
        let t = lua_absindex(L, i)
        guard lua_type(L, t) == LUA_TTABLE else { throw .argument("bad argument #1 to 'migrate' (table of numbered SQL strings expected)") }
        var out: [(version: Int, sql: String)] = []
        lua_pushnil(L)
        while lua_next(L, t) != 0 {
            defer { pop() }
            guard let v = integer(at: -2), v > 0, let sql = string(at: -1) else {
                throw .argument("bad argument #1 to 'migrate' (keys must be positive integers and values SQL strings)")
            }
            out.append((v, sql))
        }
        return out
    }

    /// Pushes `{ [0] = script, args... }`, Lua's usual `arg` table.
    func pushArgTable(_ script: String, _ args: [String]) {
        lua_createtable(L, Int32(args.count), 1)
        pushString(script)
        lua_rawseti(L, -2, 0)
        for (i, a) in args.enumerated() {
            pushString(a)
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
    }

    /// Sets `env[name]` (raw) to the value `value` pushes; `env` is a registry reference.
    func setGlobal(_ name: String, inEnvironment env: Int32, _ value: () -> Void) {
        lua_rawgeti(L, scanlua_LUA_REGISTRYINDEX, lua_Integer(env))
        pushString(name)
        value()
        lua_rawset(L, -3)
        pop()
    }

    /// Pushes the table frame hooks get: `{source, index, time, time_ms, width, height, symbols = {{symbology, text}, ...}}`.
    func pushFrameInfo(_ info: FrameInfo, symbols: [Symbol]) {
        lua_createtable(L, 0, 6)
        pushString("source"); pushString(info.source); lua_rawset(L, -3)
        pushString("index"); lua_pushinteger(L, lua_Integer(info.index)); lua_rawset(L, -3)
        pushString("time"); lua_pushinteger(L, milliseconds(info.time) / 1000); lua_rawset(L, -3)
        pushString("time_ms"); lua_pushinteger(L, milliseconds(info.time)); lua_rawset(L, -3)
        pushString("width"); lua_pushinteger(L, lua_Integer(info.width)); lua_rawset(L, -3)
        pushString("height"); lua_pushinteger(L, lua_Integer(info.height)); lua_rawset(L, -3)
        pushString("symbols")
        lua_createtable(L, Int32(symbols.count), 0)
        for (i, s) in symbols.enumerated() {
            lua_createtable(L, 0, 2)
            pushString("symbology"); pushString(s.symbology.rawValue); lua_rawset(L, -3)
            pushString("text"); pushString(s.text); lua_rawset(L, -3)
            lua_rawseti(L, -2, lua_Integer(i + 1))
        }
        lua_rawset(L, -3)
    }
}
