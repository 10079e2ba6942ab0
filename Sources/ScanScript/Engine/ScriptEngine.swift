import Foundation
import ScanCore
import ScanStore

/// The limits and permissions of an engine.
public struct ScriptLimits: Equatable, Sendable {
    /// Instructions one handler call may run (0 = unlimited). Counted every 1000 instructions.
    public var instructionLimit: Int = 10_000_000
    /// Bytes the whole Lua state may allocate (0 = unlimited).
    public var memoryLimit: Int = 256 << 20
    /// A handler that fails this many times in a row is disabled.
    public var maxFailures: Int = 5
    /// Scripts get the full standard library (io, os, debug, ...) instead of the sandbox.
    public var trust: Bool = false

    public init() {}
}

/// Embedded Lua: the `scan` API, the sandbox, and the dispatch of events to parsers and rules.
///
/// Owns one Lua state. Not thread-safe: decode in parallel, run one engine on one thread.
public final class ScriptEngine {
    let lua: LuaState
    /// Directories `require` searches, in order; `io.open` may read below them and the working directory.
    public private(set) var modulePaths: [String]
    /// Whether the config left the shipped handler library on (`scan.options { default_scripts = false }`).
    public private(set) var defaultScriptsEnabled = true
    public private(set) var limits: ScriptLimits

    private var env: Int32 = 0, dispatchRef: Int32 = 0, trustRef: Int32 = 0
    private var installTestsRef: Int32 = 0, runTestsRef: Int32 = 0
    var decoderSpecsRef: Int32 = 0, callDecoderRef: Int32 = 0, frameMetatableRef: Int32 = 0
    private var enableSummariesRef: Int32 = 0
    var hookCountRef: Int32 = 0, runHooksRef: Int32 = 0
    private var trusted = false
    /// The SQLite store behind `require "store"`: `--db`, `scan.options { db = ... }`, or the default.
    public private(set) lazy var store = Store(path: storePath ?? Store.defaultPath)
    /// Set before the store is first used to choose its file.
    public var storePath: String?
    /// Scan-session settings from `scan.options` (duplicates, interval, once, roi, max_frames,
    /// max_fps, timeout, beep); command-line flags win over them.
    public private(set) var sessionOptions: [String: JSON] = [:]
    /// Where `print`, `ctx.log` and handler warnings go.
    public var log: (String) -> Void = { Console.error($0) }

    public init(limits: ScriptLimits = ScriptLimits(), modulePaths: [String] = []) throws(ScriptError) {
        self.limits = limits
        self.modulePaths = modulePaths
        lua = LuaState(memoryLimit: limits.memoryLimit, instructionLimit: limits.instructionLimit)
        try lua.withoutMemoryLimit { () throws(ScriptError) in
            try lua.load(PackageResources.prelude_lua, chunkName: "=prelude")
            lua.push(hostTable())
            try lua.call(nargs: 1, nresults: 1)
            for (key, slot) in [("env", \ScriptEngine.env), ("dispatch", \.dispatchRef), ("trust", \.trustRef),
                                ("install_test_api", \.installTestsRef), ("run_tests", \.runTestsRef),
                                ("decoder_specs", \.decoderSpecsRef), ("call_decoder", \.callDecoderRef),
                                ("frame_mt", \.frameMetatableRef), ("enable_summaries", \.enableSummariesRef),
                                ("hook_count", \.hookCountRef), ("run_hooks", \.runHooksRef)] {
                lua.rawField(-1, key)
                self[keyPath: slot] = lua.ref()
            }
            lua.rawField(-1, "event_parts")
            lua.installEventParts()
            lua.pop()
            // Stack slot 1 holds the traceback handler for the per-event calls, for the engine's life.
            precondition(lua.top == 0, "prelude left values on the stack")
            lua.pushMessageHandler()
        }
        if limits.trust { try enableTrust() }
    }

    // MARK: Loading

    /// Runs a script file in the sandbox under the instruction budget.
    /// - Throws: ``ScriptError/load`` for a syntax error (`file:line: message`), ``ScriptError/runtime`` when it raises.
    public func run(file path: String) throws(ScriptError) {
        let source: [UInt8]
        do { source = Array(try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
            throw .file("\(path): cannot read script: \(fileErrorReason(error))")
        }
        let dir = (path as NSString).deletingLastPathComponent
        addModulePath(dir.isEmpty ? "." : dir)
        try run(source: source, chunkName: "@" + path)
    }

    /// Runs Lua source in the sandbox; `chunkName` is `@path` for files or `=name`.
    public func run(source: [UInt8], chunkName: String) throws(ScriptError) {
        try lua.withoutMemoryLimit { () throws(ScriptError) in try lua.load(source, chunkName: chunkName) }
        lua.push(.ref(env))
        _ = lua.setUpvalueEnv(-2)
        lua.armBudget(true)
        defer { lua.armBudget(false) }
        try lua.call(nargs: 0, nresults: 0)
    }

    /// Sets the global `arg` for a script run by `scanlua run`: arg[0] the script, arg[1...] its arguments.
    public func setArguments(script: String, _ arguments: [String]) {
        lua.setGlobal("arg", inEnvironment: env) { lua.pushArgTable(script, arguments) }
    }

    /// Adds a directory to the front of the `require` search path (user directories win over shipped ones).
    public func addModulePath(_ dir: String) {
        if !modulePaths.contains(dir) { modulePaths.insert(dir, at: 0) }
    }

    /// Runs a module through `require` (so it is loaded once), e.g. the shipped `default`.
    public func require(_ module: String) throws(ScriptError) {
        try run(source: Array("require '\(module)'".utf8), chunkName: "=require")
    }

    private func enableTrust() throws(ScriptError) {
        guard !trusted else { return }
        trusted = true
        limits.trust = true
        lua.push(.ref(trustRef))
        try lua.call(nargs: 0, nresults: 0)
    }

    // MARK: Events

    /// Pushes one event through the parsers and rules. Never throws: script errors are in the result.
    public func process(_ event: ScanEvent) -> ScriptResult {
        let base = lua.top
        defer { lua.setTop(base) }
        lua.push(.ref(dispatchRef))
        do {
            try lua.withoutMemoryLimit { () throws(ScriptError) in
                lua.pushEvent(event.symbol, info: event.info, siblings: event.siblings)
            }
            try lua.call(nargs: 2, nresults: 8, handlerAt: 1)
            return try lua.withoutMemoryLimit { () throws(ScriptError) in try readResult(at: base + 1) }
        } catch {
            // The dispatcher itself failed (memory exhausted between handlers, a payload that is not JSON).
            return ScriptResult(payload: .object([("type", .string("raw"))]), parser: nil, actions: [], emitted: [],
                                errors: [.object([("message", .string("scanlua: " + error.message))])], summary: nil)
        }
    }

    /// Reads dispatch's results: payload, parser, errors, actions, action rules, emitted, emitted rules.
    private func readResult(at i: Int32) throws(ScriptError) -> ScriptResult {
        ScriptResult(payload: try lua.json(at: i), parser: lua.string(at: i + 1),
                     actions: try tagged(i + 3, rules: i + 4), emitted: try tagged(i + 5, rules: i + 6),
                     errors: try list(i + 2), summary: lua.string(at: i + 7))
    }

    private func list(_ index: Int32) throws(ScriptError) -> [JSON] {
        guard lua.isTable(at: index) else { return [] }
        if case .array(let items) = try lua.json(at: index) { return items }
        return []
    }

    /// A list of tables, each given a `rule` field from the parallel list of rule names.
    private func tagged(_ index: Int32, rules: Int32) throws(ScriptError) -> [JSON] {
        var items = try list(index)
        guard !items.isEmpty else { return items }
        for n in items.indices {
            lua.rawIndex(rules, n + 1)
            let rule = lua.string(at: -1) ?? ""
            lua.pop()
            if case .object(var pairs) = items[n] {
                pairs.removeAll { $0.0 == "rule" }
                pairs.append(("rule", .string(rule)))
                items[n] = .object(pairs)
            }
        }
        return items
    }

    /// Asks every event for its payload's text summary (`scan.summary`), for --format text.
    public func enableSummaries() {
        lua.push(.ref(enableSummariesRef))
        lua.push(.bool(true))
        try? lua.call(nargs: 1, nresults: 0)
    }

    // MARK: Tests

    /// One `it` of a test file.
    public struct TestResult: Equatable {
        public var name: String
        public var passed: Bool
        public var message: String?
    }

    /// Defines `describe`, `it` and `expect` for test files.
    public func installTestAPI() throws(ScriptError) {
        lua.push(.ref(installTestsRef))
        try lua.call(nargs: 0, nresults: 0)
    }

    /// Runs the tests the loaded test files defined, in order.
    public func runTests() throws(ScriptError) -> [TestResult] {
        let base = lua.top
        defer { lua.setTop(base) }
        lua.push(.ref(runTestsRef))
        try lua.call(nargs: 0, nresults: 1)
        var results: [TestResult] = []
        let n = lua.rawLength(-1)
        for i in 1...max(n, 1) where n > 0 {
            lua.rawIndex(-1, i)
            lua.rawField(-1, "name")
            let name = lua.string(at: -1) ?? "?"
            lua.pop()
            lua.rawField(-1, "ok")
            let ok = lua.bool(at: -1)
            lua.pop()
            lua.rawField(-1, "message")
            let message = lua.string(at: -1)
            lua.pop(2)
            results.append(TestResult(name: name, passed: ok, message: message))
        }
        return results
    }

    // MARK: Host functions

    private func hostTable() -> LuaValue {
        .table([
            ("limits", .limitFunctions),
            ("max_failures", .function { [unowned self] L in L.push(.int(limits.maxFailures)); return 1 }),
            ("memory_limit_text", .function { L in L.push(.string("\(L.memoryLimit >> 20) MiB")); return 1 }),
            ("log", .function { [unowned self] L throws(ScriptError) in
                let level = L.string(at: 1) ?? "info"
                let message = L.string(at: 2) ?? ""
                log(level == "print" ? message + "\n" : "scanlua: \(level): \(message)\n")
                return 0
            }),
            ("set_option", .function { [unowned self] L throws(ScriptError) in
                try setOption(L.string(at: 1) ?? "", L)
                return 0
            }),
            ("find_module", .function { [unowned self] L throws(ScriptError) in
                let name = String(decoding: try L.checkString(1, "require"), as: UTF8.self)
                let (path, tried) = findModule(name)
                if let path { L.push(.string(path)); return 1 }
                L.push(.nil)
                L.push(.string(tried))
                return 2
            }),
            ("read_file", .function { L throws(ScriptError) in
                let path = String(decoding: try L.checkString(1, "read_file"), as: UTF8.self)
                guard let data = FileManager.default.contents(atPath: path) else {
                    L.push(.nil)
                    L.push(.string("\(path): cannot read module"))
                    return 2
                }
                L.push(.bytes(Array(data)))
                return 1
            }),
            ("path_allowed", .function { [unowned self] L throws(ScriptError) in
                let path = String(decoding: try L.checkString(1, "io.open"), as: UTF8.self)
                L.push(.bool(isReadable(path)))
                return 1
            }),
            ("make_event", .function { L throws(ScriptError) in
                // make_event(symbology, bytes, source, { {symbology, bytes}, ... }) -> fields, event
                let symbology = String(decoding: try L.checkString(1, "scan.simulate"), as: UTF8.self)
                let bytes = try L.checkString(2, "scan.simulate")
                let source = L.string(at: 3) ?? "simulate"
                var siblings: [Symbol] = []
                for i in 0..<L.rawLength(4) {
                    L.rawIndex(4, i + 1)
                    L.rawIndex(-1, 1)
                    L.rawIndex(-2, 2)
                    let name = L.string(at: -2) ?? "qrcode"
                    let sb = L.bytes(at: -1) ?? []
                    L.pop(3)
                    siblings.append(Symbol(symbology: Symbology(rawValue: name), bytes: sb))
                }
                let symbol = Symbol(symbology: Symbology(rawValue: symbology), bytes: bytes)
                L.pushEvent(symbol, info: FrameInfo(source: source), siblings: siblings)
                return 2
            }),
            ("codec", Codec.module()),
            ("store", storeModule()),
            ("otsu", .function { L throws(ScriptError) in
                L.push(.int(FrameOps.otsu(try L.checkString(1, "otsu"))))
                return 1
            }),
            ("binarize", .function { L throws(ScriptError) in
                L.push(.bytes(FrameOps.binarize(try L.checkString(1, "binarize"), level: L.integer(at: 2) ?? 128)))
                return 1
            }),
            ("adaptive", .function { L throws(ScriptError) in
                let data = try L.checkString(1, "adaptive")
                L.push(.bytes(FrameOps.adaptive(data, width: L.integer(at: 2) ?? 0, height: L.integer(at: 3) ?? 0,
                                                radius: max(1, L.integer(at: 4) ?? 7), offset: L.integer(at: 5) ?? 5)))
                return 1
            }),
            ("column", .function { L throws(ScriptError) in
                let data = try L.checkString(1, "column")
                L.push(.bytes(FrameOps.column(data, width: L.integer(at: 2) ?? 0, height: L.integer(at: 3) ?? 0, x: L.integer(at: 4) ?? 0)))
                return 1
            }),
        ])
    }

    private func setOption(_ key: String, _ L: LuaState) throws(ScriptError) {
        switch key {
        case "instruction_limit":
            limits.instructionLimit = L.integer(at: 2) ?? limits.instructionLimit
            L.instructionLimit = limits.instructionLimit
        case "memory_limit":
            limits.memoryLimit = L.integer(at: 2) ?? limits.memoryLimit
            L.memoryLimit = limits.memoryLimit
        case "max_failures": limits.maxFailures = L.integer(at: 2) ?? limits.maxFailures
        case "default_scripts": defaultScriptsEnabled = L.bool(at: 2)
        case "db": if storePath == nil { storePath = L.string(at: 2) }
        case "duplicates", "roi": sessionOptions[key] = .string(L.string(at: 2) ?? "")
        case "interval", "max_frames", "max_fps", "timeout": sessionOptions[key] = .double(L.number(at: 2) ?? 0)
        case "once", "beep": sessionOptions[key] = .bool(L.bool(at: 2))
        case "trust":
            // Turning trust on takes effect for the scripts loaded after the config.
            if L.bool(at: 2) { pendingTrust = true }
        default: throw .argument("scan.options: unknown option '\(key)'")
        }
    }

    private var pendingTrust = false

    /// Applies `scan.options { trust = true }` from a config once the config has finished loading.
    public func applyPendingOptions() throws(ScriptError) {
        if pendingTrust { try enableTrust() }
    }

    func findModule(_ name: String) -> (String?, String) {
        let rel = name.replacingOccurrences(of: ".", with: "/")
        var tried = ""
        for dir in modulePaths {
            for candidate in ["\(dir)/\(rel).lua", "\(dir)/\(rel)/init.lua", "\(dir)/lib/\(rel).lua"] {
                if FileManager.default.fileExists(atPath: candidate) { return (Self.display(candidate), tried) }
                tried += "\n\tno file '\(candidate)'"
            }
        }
        return (nil, tried)
    }

    private func isReadable(_ path: String) -> Bool {
        if trusted { return true }
        let resolved = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        let roots = [FileManager.default.currentDirectoryPath] + modulePaths
        return roots.contains { root in
            let r = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath().path
            return resolved == r || resolved.hasPrefix(r.hasSuffix("/") ? r : r + "/")
        }
    }

    /// A path relative to the working directory when it is below it: what tracebacks show.
    static func display(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path
    }
}

@available(*, unavailable) extension ScriptEngine: Sendable {}
