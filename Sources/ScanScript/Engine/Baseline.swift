import ScanCore

// The benchmark's plain-Lua loop (scanlua bench --simulate): the same work as a dispatch, without
// the sandbox, the budget or the host, in the same Lua state.
extension ScriptEngine {
    /// Runs `source` in the full environment without the sandbox or the instruction budget, as
    /// chunk(event_parts, count, prefix): for the benchmark's plain-Lua baseline, which builds the
    /// same event tables as the host does (see prelude/views.lua).
    package func runBaseline(source: String, count: Int, prefix: String) throws(ScriptError) {
        let arguments: [LuaValue] = [.int(count), .string(prefix)]
        let base = lua.top
        defer { lua.setTop(base) }
        try lua.load(Array(source.utf8), chunkName: "=baseline")
        pushCore("event_parts")
        for a in arguments { lua.push(a) }
        try lua.call(nargs: Int32(arguments.count + 1), nresults: 0, handlerAt: 1)
    }
}
