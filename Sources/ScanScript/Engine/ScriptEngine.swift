import Foundation
import ScanCore
import ScanStore

/// The limits and permissions of an engine.
package struct ScriptLimits: Equatable, Sendable {
    /// Instructions one handler call may run (0 = unlimited). Counted every 1000 instructions.
    package var instructionLimit: Int = 10_000_000
    /// Bytes the whole Lua state may allocate (0 = unlimited).
    package var memoryLimit: Int = 256 << 20
    /// A handler that fails this many times in a row is disabled.
    package var maxFailures: Int = 5
    /// Scripts get the full standard library (io, os, debug, ...) instead of the sandbox.
    package var trust: Bool = false

    package init() {}
}

/// Embedded Lua: the `scan` API, the sandbox, and the dispatch of events to parsers and rules.
///
/// Owns one Lua state. Not thread-safe: decode in parallel, run one engine on one thread.
/// The Swift side talks to the prelude (Sources/ScanScript/Prelude) through two tables with
/// named fields: `host` (the Swift functions the prelude calls, see ``hostTable()``: a few
/// dispatch functions and the host libraries, each a named table of small functions in
/// Engine/Host/) and `core` (what the prelude's chunks define and the host calls, see
/// ``pushCore(_:)``).
package final class ScriptEngine {
    let lua: LuaState
    /// Module search and what scripts may read (`host.loader`).
    let loader: ModuleLoader
    /// Whether the config left the shipped handler library on (`scan.options { default_scripts = false }`).
    package internal(set) var defaultScriptsEnabled = true
    package internal(set) var limits: ScriptLimits
    /// The limits the command line gave (option names): `scan.options` leaves them as they are.
    package var limitsGiven: Set<String> = []

    /// Registry references of the prelude's `core` and `host` tables, and of the sandbox's
    /// globals (`core.env`, set as each user chunk's _ENV).
    private var coreRef: Int32 = 0, hostRef: Int32 = 0
    private(set) var envRef: Int32 = 0
    var trusted = false
    /// The SQLite store behind `require "store"`: `--db`, `scan.options { db = ... }`, or the default.
    /// Opened sandboxed unless scripts are trusted when it opens (PostgreSQL: ``PostgresGuard``).
    package var store: Store {
        if let madeStore { return madeStore }
        let s = Store(path: storePath ?? Store.defaultPath, sandboxed: !trusted)
        madeStore = s
        return s
    }
    private var madeStore: Store?
    /// Set before the store is first used to choose its file.
    package var storePath: String?
    /// With `--dry-run`, what rules wrote to the store is rolled back after each event.
    package var dryRun = false
    /// The Lua decoders a `--symbologies` list names (nil: every one runs).
    package var enabledDecoderNames: Set<String>?
    /// Set while scan.decode_file runs the decoders from inside a Lua call.
    var decodingFromLua = false
    /// The settings a config gave with `scan.options` (the keys of ``Option/configurable``);
    /// command-line flags win over them.
    package internal(set) var configOptions = OptionValues()
    /// Where `print`, `ctx.log` and handler warnings go.
    package var log: (String) -> Void = { FileHandle.standardError.write(Data(TerminalText.escaped($0, keepingNewlines: true).utf8)) }
    /// The records of the batch being dispatched, written by the prelude's `append_record`.
    let records = RecordBuffer()
    /// Events whose store transaction could not be committed (a full disk): the command exits 1.
    package internal(set) var storeFailures = 0
    /// Frames on which a Lua decoder raised or returned something wrong (said on stderr): they
    /// count as script errors for the exit status (3), as records with errors do.
    package internal(set) var decoderFailures = 0
    /// Parser names seen in records, so each becomes a String once.
    var parserNames: [(bytes: [UInt8], name: String)] = []

    package init(limits: ScriptLimits = ScriptLimits(), modulePaths: [String] = []) throws(ScriptError) {
        self.limits = limits
        loader = ModuleLoader(modulePaths: modulePaths)
        lua = LuaState(memoryLimit: limits.memoryLimit, instructionLimit: limits.instructionLimit)
        try lua.withoutMemoryLimit { () throws(ScriptError) in
            lua.push(hostTable())
            hostRef = lua.ref()
            lua.push(.table([]))
            coreRef = lua.ref()
            for chunk in Prelude.chunks { try runPrelude(chunk) }
            pushCore("env")
            envRef = lua.ref()
            lua.installEventKeys()
            // Stack slot 1 holds the traceback handler for the per-event calls, for the engine's life.
            precondition(lua.top == 0, "prelude left values on the stack")
            lua.pushMessageHandler()
        }
        if limits.trust { try enableTrust() }
    }

    /// Runs one prelude chunk as chunk(host, core).
    func runPrelude(_ chunk: Prelude.Chunk) throws(ScriptError) {
        try lua.load(chunk.source, chunkName: "=prelude/" + chunk.name)
        lua.push(.ref(hostRef))
        lua.push(.ref(coreRef))
        try lua.call(nargs: 2, nresults: 0)
    }

    /// Pushes `core[name]`: a function or value the prelude defined. Stack: +1.
    func pushCore(_ name: String) {
        lua.push(.ref(coreRef))
        lua.rawField(-1, name)
        lua.remove(-2)
    }

    /// Calls `core[name](arguments...)` under the traceback handler; the stack is left as it was.
    /// `read` sees the results on top of the stack.
    func callCore(_ name: String, _ arguments: [LuaValue] = [], results: Int32 = 0,
                  read: () throws(ScriptError) -> Void = {}) throws(ScriptError) {
        let base = lua.top
        defer { lua.setTop(base) }
        pushCore(name)
        for a in arguments { lua.push(a) }
        try lua.call(nargs: Int32(arguments.count), nresults: results, handlerAt: base > 0 && !decodingFromLua ? 1 : 0)
        try read()
    }

    // MARK: Loading

    /// Runs a script file in the sandbox under the instruction budget.
    /// - Throws: ``ScriptError/load`` for a syntax error (`file:line: message`), ``ScriptError/runtime`` when it raises.
    package func run(file path: String) throws(ScriptError) {
        let source: [UInt8]
        do { source = Array(try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
            throw .file("\(path): cannot read script: \(fileErrorReason(error))")
        }
        try run(file: path, contents: source)
    }

    /// Runs a script file whose bytes the caller already read (and checked: one read).
    package func run(file path: String, contents source: [UInt8]) throws(ScriptError) {
        loader.willRun(file: path)
        try run(source: source, chunkName: "@" + path, keepResult: true)
    }

    /// The script and config files run so far (no action may write them).
    package var loadedFiles: [String] { loader.loadedFiles }

    /// Runs Lua source in the sandbox; `chunkName` is `@path` for files or `=name`.
    /// `keepResult`: a file's return value is what a later `require` of it returns (a handler
    /// loaded with --script and required by its test gives its module table, not `true`).
    package func run(source: [UInt8], chunkName: String, keepResult: Bool = false) throws(ScriptError) {
        let base = lua.top
        defer { lua.setTop(base) }
        try lua.withoutMemoryLimit { () throws(ScriptError) in try lua.load(source, chunkName: chunkName) }
        lua.push(.ref(envRef))
        _ = lua.setUpvalueEnv(-2)
        lua.armBudget(true)
        defer { lua.armBudget(false) }
        do {
            try lua.call(nargs: 0, nresults: 1)
            if keepResult, chunkName.hasPrefix("@") {
                pushCore("keep_run_result")
                lua.push(.string(String(chunkName.dropFirst())))
                lua.pushCopy(of: -3)
                try lua.call(nargs: 2, nresults: 0)
            }
        } catch .runtime(let message, let traceback) where Self.raisedByPrelude(traceback) {
            // The prelude's checks (a spec's unknown field, a wrong type) name the user's file:line
            // themselves: its own frames would only hide that.
            throw .runtime(message: message, traceback: "")
        }
    }

    /// Whether the innermost Lua frame of a traceback is the prelude's (an argument check raised).
    static func raisedByPrelude(_ traceback: String) -> Bool {
        let frames = traceback.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasPrefix("stack traceback") && !$0.hasPrefix("[C]") }
        return frames.first?.hasPrefix("prelude/") ?? false
    }

    /// Sets the global `arg` for a script run by `scanlua run`: arg[0] the script, arg[1...] its arguments.
    package func setArguments(script: String, _ arguments: [String]) {
        lua.setGlobal("arg", inEnvironment: envRef) { lua.pushArgTable(script, arguments) }
    }

    /// Adds a directory to the front of the `require` search path (user directories win over shipped ones).
    package func addModulePath(_ dir: String) { loader.addModulePath(dir) }

    /// Runs a module through `require` (so it is loaded once), e.g. the shipped `default`.
    package func require(_ module: String) throws(ScriptError) {
        try run(source: Array("require '\(module)'".utf8), chunkName: "=require")
    }

    /// The install's scripts directory (see ``ModuleLoader/shippedDirectory``).
    package var shippedDirectory: String? {
        get { loader.shippedDirectory }
        set { loader.shippedDirectory = newValue }
    }
    /// Set when the config came from the ``TrustList`` (see ``ModuleLoader/configTrustList``).
    package var configTrustList: TrustList? {
        get { loader.configTrustList }
        set { loader.configTrustList = newValue }
    }
    /// The config file that was loaded, if one was (messages name it: it holds the allow-list).
    package internal(set) var configPath: String?

    func enableTrust() throws(ScriptError) {
        guard !trusted else { return }
        trusted = true
        loader.trusted = true
        limits.trust = true
        madeStore?.sandboxed = false  // takes effect if it is not open yet
        try callCore("trust")
    }

    /// Asks every event for its payload's text summary (`scan.summary`), for --format text.
    package func enableSummaries() {
        try? callCore("enable_summaries", [.bool(true)])
    }

    /// Switches off parsers and rules by name (`--disable`, `scan.options { disable = ... }`).
    /// - Throws: a name that no parser or rule has, with the names there are.
    package func disable(_ names: [String]) throws(ScriptError) {
        for name in names where !name.isEmpty {
            var found = false
            try callCore("disable", [.string(name)], results: 1) { found = lua.bool(at: -1) }
            if !found {
                var known: [String] = []
                try callCore("handler_names", results: 1) {
                    for i in 0..<lua.rawLength(-1) { lua.rawIndex(-1, i + 1); known.append(lua.string(at: -1) ?? ""); lua.pop() }
                }
                throw .argument("--disable: no parser, rule or decoder is named '\(name)' (there are: \(known.joined(separator: ", ")))")
            }
        }
    }

    /// Rules whose `on` names a payload type no parser declares and no summary formats: one
    /// warning each, at the rule's `file:line`.
    package func ruleTypeWarnings() throws(ScriptError) -> [String] {
        var warnings: [String] = []
        try callCore("rule_type_warnings", results: 1) {
            for i in 0..<lua.rawLength(-1) { lua.rawIndex(-1, i + 1); warnings.append(lua.string(at: -1) ?? ""); lua.pop() }
        }
        return warnings
    }

    var pendingTrust = false
    private var deferredLog: [String] = []

    /// Says what was logged for after the records (``ScanSession`` calls it once they are written).
    package func flushDeferredLog() {
        let lines = deferredLog
        deferredLog = []
        for line in lines { log(line) }
    }
    /// Set while the config runs: only it may raise limits and give trust with scan.options.
    package var loadingConfig = false

    // MARK: Host functions

    /// The `host` table: the dispatch functions the prelude calls, by name, and the host
    /// libraries, each a named table (Engine/Host/).
    private func hostTable() -> LuaValue {
        .table([
            ("limits", .limitFunctions),
            ("append_record", .recordAppender(records.pointer)),
            ("encodable", .jsonCheck),
            ("symbologies", .list(Symbology.knownNames.map { .string($0) })),
            ("action_types", .list(ActionType.allCases.map { .string($0.rawValue) })),
            ("log", .function { [unowned self] L throws(ScriptError) in
                let level = try L.optText(1, "log", "info")
                let message = try L.optText(2, "log", "")
                // "later": said after the records of the running events (a handler's "disabled"
                // comes after the failure that disabled it).
                if level == "later" { deferredLog.append("scanlua: warn: \(message)\n"); return 0 }
                log(level == "print" ? message + "\n" : "scanlua: \(level): \(message)\n")
                return 0
            }),
            ("end_event", .function { [unowned self] L throws(ScriptError) in
                // end_event(ok): the event that used the store ends its transaction. -> nil | message
                do { try store.endEvent(commit: L.bool(at: 1) && !dryRun) } catch {
                    storeFailures += 1
                    L.push(.string("store: \(error)"))
                    return 1
                }
                return 0
            }),
            ("codec", Codec.module()),
            ("store", storeModule()),
            ("policy", policyLibrary()),
            ("loader", loader.library()),
            ("frames", FrameLibrary.library()),
            ("simulate", simulateLibrary()),
            ("testing", testingLibrary()),
        ])
    }
}

@available(*, unavailable) extension ScriptEngine: Sendable {}
