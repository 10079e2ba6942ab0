// The only Swift files that call the Lua C API are in this folder. `lua_State` is not
// thread-safe: a LuaState is used on one thread at a time.
internal import CLuaShims
import Foundation
import ScanCore

/// A Lua value that Swift can push.
enum LuaValue {
    case `nil`
    case bool(Bool)
    case int(Int)
    case string(String)
    case bytes([UInt8])
    /// A table from fields.
    case table([(String, LuaValue)])
    /// A Swift function (see ``LuaState/function(_:)``), pushed as a C closure.
    case function(LuaState.SwiftFunction)
    /// The value held in the registry under this reference.
    case ref(Int32)
    /// The C table of budget functions (call, parse, hook_thread, tripped, memory_refused, metered, patterns).
    case limitFunctions
    /// A list: a table with keys 1...n.
    case list([LuaValue])
    /// The C function that appends a batch's records to this buffer (see ``RecordBuffer``).
    case recordAppender(RecordBuffer.Pointer)
    /// The C function that tells whether a value can be written as JSON.
    case jsonCheck
}

/// The records of one dispatch batch as JSON text, written by the prelude's `append_record`
/// (C, lua_shims.c) and read back here: per event three segments, payload, parser, extras.
final class RecordBuffer {
    typealias Pointer = UnsafeMutablePointer<scanlua_records>
    let pointer: Pointer

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: scanlua_records())
    }

    deinit {
        scanlua_records_free(pointer)
        pointer.deallocate()
    }

    func reset() { scanlua_records_reset(pointer) }

    /// Segments written so far.
    var count: Int { Int(pointer.pointee.count) }

    /// Everything written, copied once (the records' bytes outlive the next batch).
    func takeData() -> [UInt8] {
        let r = pointer.pointee
        guard r.len > 0, let data = r.data else { return [] }
        // One memcpy (the generic copy from a buffer pointer goes a byte at a time).
        return [UInt8](unsafeUninitializedCapacity: r.len) { buffer, count in
            memcpy(buffer.baseAddress!, data, r.len)
            count = r.len
        }
    }

    /// Where segment `k` ends in the data.
    @inline(__always) func end(_ k: Int) -> Int { Int(pointer.pointee.ends[k]) }
}

/// Owns one `lua_State` (closed in deinit) with its memory and instruction accounting.
final class LuaState {
    typealias SwiftFunction = (LuaState) throws(ScriptError) -> Int32

    let L: OpaquePointer
    private let limits: UnsafeMutablePointer<scanlua_limits>
    private var functions: [SwiftFunction] = []
    /// Registry reference of the interned event keys (see LuaEvent.swift); 0 until first use.
    var eventKeysRef: Int32 = 0
    /// The list `pushEvents(_:reusing:)` fills, kept from batch to batch.
    var eventListRef: Int32 = 0
    /// How many of its slots the last batch filled.
    var eventListFilled: lua_Integer = 0

    /// - Parameters: memoryLimit in bytes (0 = none), instructionLimit per armed call (0 = none).
    init(memoryLimit: Int, instructionLimit: Int) {
        limits = .allocate(capacity: 1)
        limits.initialize(to: scanlua_limits())
        guard let state = scanlua_newstate(limits) else { preconditionFailure("lua_newstate failed") }
        L = state
        luaL_openlibs(L)
        limits.pointee.memory_limit = memoryLimit
        limits.pointee.instruction_limit = Int64(instructionLimit)
    }

    deinit {
        // Finalizers run here, bounded, with no Swift function callable (the engine is going).
        scanlua_close(L, 10_000_000)
        limits.deallocate()
    }

    /// The cap (while a Swift function runs, the one that holds once it returns).
    var memoryLimit: Int {
        get { limits.pointee.in_host != 0 ? limits.pointee.host_limit : limits.pointee.memory_limit }
        set { if limits.pointee.in_host != 0 { limits.pointee.host_limit = newValue } else { limits.pointee.memory_limit = newValue } }
    }
    var instructionLimit: Int {
        get { Int(limits.pointee.instruction_limit) }
        set { limits.pointee.instruction_limit = Int64(newValue) }
    }
    /// Arms (from zero) or disarms the instruction budget: for script loads. Handlers are armed
    /// from the prelude through the C functions of ``LuaValue/limitFunctions``.
    func armBudget(_ armed: Bool) {
        if armed { limits.pointee.memory_refused = 0 }
        scanlua_arm_budget(L, armed ? 1 : 0)
    }

    /// Runs `body` with the memory cap lifted, for host-side pushes: a refused allocation
    /// there would raise a Lua error through Swift frames.
    func withoutMemoryLimit<T>(_ body: () throws(ScriptError) -> T) throws(ScriptError) -> T {
        let saved = limits.pointee.memory_limit
        limits.pointee.memory_limit = 0
        defer { limits.pointee.memory_limit = saved }
        return try body()
    }

    var top: Int32 { lua_gettop(L) }
    func remove(_ i: Int32) { scanlua_lua_remove(L, i) }
    /// Pushes a copy of the value at `i`.
    func pushCopy(of i: Int32) { lua_pushvalue(L, i) }
    func pop(_ n: Int32 = 1) { scanlua_lua_pop(L, n) }
    func setTop(_ n: Int32) { lua_settop(L, n) }

    // MARK: Pushing

    func push(_ value: LuaValue) {
        switch value {
        case .nil: lua_pushnil(L)
        case .bool(let b): lua_pushboolean(L, b ? 1 : 0)
        case .int(let i): lua_pushinteger(L, lua_Integer(i))
        case .string(let s):
            var s = s
            s.withUTF8 { buf in _ = lua_pushlstring(L, UnsafeRawPointer(buf.baseAddress)?.assumingMemoryBound(to: CChar.self), buf.count) }
        case .bytes(let b):
            b.withUnsafeBufferPointer { buf in _ = lua_pushlstring(L, UnsafeRawPointer(buf.baseAddress)?.assumingMemoryBound(to: CChar.self), buf.count) }
        case .table(let fields):
            lua_createtable(L, 0, Int32(fields.count))
            for (k, v) in fields {
                push(.string(k))
                push(v)
                lua_rawset(L, -3)
            }
        case .function(let fn):
            functions.append(fn)
            let context = Unmanaged.passUnretained(self).toOpaque()
            scanlua_push_swift_function(L, LuaState.trampoline, context, Int64(functions.count - 1))
        case .ref(let r):
            lua_rawgeti(L, scanlua_LUA_REGISTRYINDEX, lua_Integer(r))
        case .limitFunctions:
            scanlua_push_limit_functions(L)
        case .list(let items):
            lua_createtable(L, Int32(items.count), 0)
            for (i, v) in items.enumerated() {
                push(v)
                lua_rawseti(L, -2, lua_Integer(i + 1))
            }
        case .recordAppender(let records):
            scanlua_push_record_appender(L, records)
        case .jsonCheck:
            scanlua_push_json_check(L)
        }
    }

    /// Calls the Swift function registered under `id`; an error becomes a Lua error raised in C.
    private static let trampoline: scanlua_swift_fn = { L, context, id in
        let state = Unmanaged<LuaState>.fromOpaque(context!).takeUnretainedValue()
        do throws(ScriptError) {
            return try state.functions[Int(id)](state)
        } catch {
            state.push(.string(error.message))
            return -1
        }
    }

    /// Pops the value on top into the registry and returns its reference.
    func ref() -> Int32 { luaL_ref(L, scanlua_LUA_REGISTRYINDEX) }

    // MARK: Reading


    /// The bytes of the string at `i`, or nil when it is not a string (numbers are not converted).
    func bytes(at i: Int32) -> [UInt8]? {
        guard lua_type(L, i) == LUA_TSTRING else { return nil }
        var len = 0
        guard let p = scanlua_lua_tolstring(L, i, &len) else { return nil }
        return p.withMemoryRebound(to: UInt8.self, capacity: len) { [UInt8](UnsafeBufferPointer(start: $0, count: len)) }
    }

    /// The string at `i` as UTF-8 text (invalid sequences become U+FFFD), or nil.
    func string(at i: Int32) -> String? {
        guard lua_type(L, i) == LUA_TSTRING else { return nil }
        var len = 0
        guard let p = scanlua_lua_tolstring(L, i, &len) else { return nil }
        return p.withMemoryRebound(to: UInt8.self, capacity: len) { String(decoding: UnsafeBufferPointer(start: $0, count: len), as: UTF8.self) }
    }

    /// Pushes bytes as a Lua string without an intermediate array.
    func pushString(_ s: String) {
        var s = s
        s.withUTF8 { buf in _ = lua_pushlstring(L, UnsafeRawPointer(buf.baseAddress)?.assumingMemoryBound(to: CChar.self), buf.count) }
    }

    func pushBytes(_ b: [UInt8]) {
        b.withUnsafeBufferPointer { buf in _ = lua_pushlstring(L, UnsafeRawPointer(buf.baseAddress)?.assumingMemoryBound(to: CChar.self), buf.count) }
    }

    func bool(at i: Int32) -> Bool { lua_toboolean(L, i) != 0 }
    func number(at i: Int32) -> Double? { lua_type(L, i) == LUA_TNUMBER ? scanlua_lua_tonumber(L, i) : nil }
    func integer(at i: Int32) -> Int? {
        guard lua_type(L, i) == LUA_TNUMBER else { return nil }
        if lua_isinteger(L, i) != 0 { return Int(scanlua_lua_tointeger(L, i)) }
        let d = scanlua_lua_tonumber(L, i)
        return d == d.rounded() && abs(d) < 9e18 ? Int(d) : nil
    }

    func isTable(at i: Int32) -> Bool { lua_type(L, i) == LUA_TTABLE }
    func typeName(at i: Int32) -> String { String(cString: lua_typename(L, lua_type(L, i))) }

    // Argument checks of the host libraries' functions, in lauxlib's shape: `check` raises when
    // the argument is missing or of another type, `opt` gives the default for none or nil and
    // raises for another type (luaL_optinteger), with luaL_argerror's wording. `shown`: the
    // argument's number as the script wrote the call, when the prelude passes it on at another
    // place (`f:binarize(level)`: level is #1 to the script, #2 to the host function).

    private func argumentError(_ arg: Int32, _ function: String, shown: Int32?, _ problem: String) -> ScriptError {
        .argument("bad argument #\(shown ?? arg) to '\(function)' (\(problem))")
    }

    private func got(_ arg: Int32, _ expected: String) -> String {
        "\(expected) expected, got \(lua_type(L, arg) == LUA_TNONE ? "no value" : typeName(at: arg))"
    }

    /// Argument `arg` (1-based) as a string's bytes.
    func checkString(_ arg: Int32, _ function: String, shown: Int32? = nil) throws(ScriptError) -> [UInt8] {
        guard let b = bytes(at: arg) else { throw argumentError(arg, function, shown: shown, got(arg, "string")) }
        return b
    }

    /// Argument `arg` as UTF-8 text.
    func checkText(_ arg: Int32, _ function: String, shown: Int32? = nil) throws(ScriptError) -> String {
        String(decoding: try checkString(arg, function, shown: shown), as: UTF8.self)
    }

    /// Argument `arg` as an integer (a float with an integral value is one, as in Lua).
    func checkInteger(_ arg: Int32, _ function: String, shown: Int32? = nil) throws(ScriptError) -> Int {
        guard let n = integer(at: arg) else {
            throw argumentError(arg, function, shown: shown,
                                lua_type(L, arg) == LUA_TNUMBER ? "number has no integer representation" : got(arg, "number"))
        }
        return n
    }

    /// Argument `arg` as text, or `fallback` when it is none or nil.
    func optText(_ arg: Int32, _ function: String, _ fallback: String, shown: Int32? = nil) throws(ScriptError) -> String {
        lua_type(L, arg) <= LUA_TNIL ? fallback : try checkText(arg, function, shown: shown)
    }

    /// Argument `arg` as an integer, or `fallback` when it is none or nil.
    func optInteger(_ arg: Int32, _ function: String, _ fallback: Int, shown: Int32? = nil) throws(ScriptError) -> Int {
        lua_type(L, arg) <= LUA_TNIL ? fallback : try checkInteger(arg, function, shown: shown)
    }

    /// Pushes `t[key]` for the table at `index` without metamethods.
    func rawField(_ index: Int32, _ key: String) {
        let t = lua_absindex(L, index)
        push(.string(key))
        lua_rawget(L, t)
    }

    /// The length of the table at `i` without metamethods.
    func rawLength(_ i: Int32) -> Int { Int(lua_rawlen(L, i)) }

    /// Pushes `t[n]` for the table at `index` without metamethods.
    func rawIndex(_ index: Int32, _ n: Int) { lua_rawgeti(L, index, lua_Integer(n)) }

    // MARK: Loading and calling

    /// Pops the table on top and makes it the `_ENV` (first upvalue) of the function at `fn`.
    func setUpvalueEnv(_ fn: Int32) -> Bool {
        lua_setupvalue(L, lua_absindex(L, fn), 1) != nil
    }

    /// Loads a text chunk; pushes the function. `chunkName` is what tracebacks show (e.g. `@my.lua`).
    func load(_ source: [UInt8], chunkName: String) throws(ScriptError) {
        let status = source.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { scanlua_loadbuffer(L, $0.baseAddress, $0.count, chunkName) }
        }
        guard status == LUA_OK else {
            let message = string(at: -1) ?? "syntax error"
            pop()
            throw .load(message)
        }
    }

    /// Pushes the traceback handler, for ``call(nargs:nresults:handlerAt:)``.
    func pushMessageHandler() { scanlua_push_msghandler(L) }

    /// Calls the function below `nargs` arguments under a traceback handler.
    /// `handlerAt`: the stack index of a handler pushed earlier by ``pushMessageHandler()``
    /// (saves moving one in and out on every call); 0 pushes one for this call only.
    /// Stack: -(nargs+1), +nresults on success; nothing left on failure.
    func call(nargs: Int32, nresults: Int32, handlerAt: Int32 = 0) throws(ScriptError) {
        let status = handlerAt > 0 ? scanlua_pcall_at(L, nargs, nresults, handlerAt) : scanlua_pcall(L, nargs, nresults)
        guard status == LUA_OK else {
            let text = string(at: -1) ?? "(error object is not a string)"
            pop()
            if status == LUA_ERRMEM { throw .runtime(message: "memory limit exceeded (\(memoryLimit / 1_048_576) MiB)", traceback: "") }
            throw ScriptError.runtime(fromTraceback: text)
        }
    }
}

@available(*, unavailable) extension LuaState: Sendable {}
