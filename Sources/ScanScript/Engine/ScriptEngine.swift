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
/// named fields: `host` (the Swift functions the prelude calls, see ``hostTable()``) and
/// `core` (what the prelude's chunks define and the host calls, see ``pushCore(_:)``).
package final class ScriptEngine {
    let lua: LuaState
    /// Directories `require` searches, in order; `io.open` may read below them and the working directory.
    package private(set) var modulePaths: [String]
    /// Whether the config left the shipped handler library on (`scan.options { default_scripts = false }`).
    package private(set) var defaultScriptsEnabled = true
    package private(set) var limits: ScriptLimits

    /// Registry references of the prelude's `core` and `host` tables, and of the sandbox's
    /// globals (`core.env`, set as each user chunk's _ENV).
    private var coreRef: Int32 = 0, hostRef: Int32 = 0
    private(set) var envRef: Int32 = 0
    private var trusted = false
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
    package private(set) var configOptions = OptionValues()
    /// Where `print`, `ctx.log` and handler warnings go.
    package var log: (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
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
        self.modulePaths = modulePaths
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
    private func runPrelude(_ chunk: Prelude.Chunk) throws(ScriptError) {
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
        let dir = (path as NSString).deletingLastPathComponent
        addModulePath(dir.isEmpty ? "." : dir)
        loadedFiles.append(path)
        try run(source: source, chunkName: "@" + path, keepResult: true)
    }

    /// The script and config files run so far (no action may write them).
    package private(set) var loadedFiles: [String] = []

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
    package func addModulePath(_ dir: String) {
        if !modulePaths.contains(dir) { modulePaths.insert(dir, at: 0) }
    }

    /// Runs a module through `require` (so it is loaded once), e.g. the shipped `default`.
    package func require(_ module: String) throws(ScriptError) {
        try run(source: Array("require '\(module)'".utf8), chunkName: "=require")
    }

    /// The install's scripts directory: the shipped library (`default`, the shipped `handlers.*`)
    /// resolves there before any script's folder or the working directory, and so does what it
    /// requires while it loads.
    package var shippedDirectory: String?
    /// Set when the config came from the ``TrustList``: each module required from outside the
    /// shipped directory, then or later, must be on the list with the bytes loaded.
    package var configTrustList: TrustList?
    /// The config file that was loaded, if one was (messages name it: it holds the allow-list).
    package internal(set) var configPath: String?
    /// Above 0 while the shipped library loads.
    private var shippedDepth = 0

    static func isShippedLibrary(_ name: String) -> Bool { name == "default" || name.hasPrefix("handlers.") }

    private func enableTrust() throws(ScriptError) {
        guard !trusted else { return }
        trusted = true
        limits.trust = true
        madeStore?.sandboxed = false  // takes effect if it is not open yet
        try callCore("trust")
    }

    /// Asks every event for its payload's text summary (`scan.summary`), for --format text.
    package func enableSummaries() {
        try? callCore("enable_summaries", [.bool(true)])
    }

    // MARK: Options

    private func setOption(_ key: String, _ L: LuaState) throws(ScriptError) {
        guard let option = Option.configurable.first(where: { $0.name == key }) else {
            throw .argument("scan.options: unknown option '\(key)'")
        }
        let value: JSON
        switch option.luaType {
        case "boolean": value = .bool(L.bool(at: 2))
        case "number": value = L.integer(at: 2).map { .int($0) } ?? .double(L.number(at: 2) ?? 0)
        default: value = .string(L.string(at: 2) ?? "")
        }
        if let reason = option.check(value) {
            throw .argument("scan.options: invalid value \(value.serialized) for '\(key)': \(reason)")
        }
        // Only the config (or the command line) may lift a limit or give trust: a --script may
        // only tighten them.
        if !loadingConfig {
            let current: Int? = key == "instruction_limit" ? limits.instructionLimit : key == "memory_limit" ? limits.memoryLimit
                : key == "max_failures" ? limits.maxFailures : nil
            if let current, let new = L.integer(at: 2), (current != 0 && (new == 0 || new > current)) {
                throw .argument("scan.options: '\(key)' can be raised only by the config or the command line (\(option.flag)); "
                                + "a script may lower it (now \(current))")
            }
            if key == "trust" && L.bool(at: 2) {
                throw .argument("scan.options: 'trust' can be given only by the config or --trust, not by a script")
            }
            if key == "network" {
                throw .argument("scan.options: 'network' can be set only by the config or --network, not by a script")
            }
        }
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
        case "trust":
            // Turning trust on takes effect for the scripts loaded after the config.
            if L.bool(at: 2) { pendingTrust = true }
        default: break
        }
        configOptions[key] = value
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

    private var pendingTrust = false
    private var deferredLog: [String] = []

    /// Says what was logged for after the records (``ScanSession`` calls it once they are written).
    package func flushDeferredLog() {
        let lines = deferredLog
        deferredLog = []
        for line in lines { log(line) }
    }
    /// Set while the config runs: only it may raise limits and give trust with scan.options.
    package var loadingConfig = false

    /// Applies `scan.options { trust = true }` from a config once the config has finished loading.
    package func applyPendingOptions() throws(ScriptError) {
        if pendingTrust { try enableTrust() }
    }

    // MARK: Tests

    /// One `it` of a test file.
    package struct TestResult: Equatable {
        package var name: String
        /// `passed`, `failed` or `pending` (a test without a body, or `pending "name"`).
        package var status: String
        package var message: String?
        package var passed: Bool { status == "passed" }
    }

    /// Loads the test API (describe, it, expect) into the sandbox: only `scanlua test` does.
    package func installTestAPI() throws(ScriptError) {
        try lua.withoutMemoryLimit { () throws(ScriptError) in try runPrelude(Prelude.testing) }
    }

    /// Runs the tests the loaded test files defined, in order; with `filter`, only those whose
    /// full name contains it.
    package func runTests(filter: String? = nil) throws(ScriptError) -> [TestResult] {
        defer { flushDeferredLog() }
        var results: [TestResult] = []
        try callCore("run_tests", filter.map { [.string($0)] } ?? [], results: 1) {
            for i in 0..<lua.rawLength(-1) {
                lua.rawIndex(-1, i + 1)
                lua.rawField(-1, "name")
                lua.rawField(-2, "status")
                lua.rawField(-3, "message")
                results.append(TestResult(name: lua.string(at: -3) ?? "?", status: lua.string(at: -2) ?? "failed", message: lua.string(at: -1)))
                lua.pop(4)
            }
        }
        return results
    }

    // MARK: Host functions

    /// The `host` table: every Swift function and host list the prelude uses, by name.
    private func hostTable() -> LuaValue {
        .table([
            ("limits", .limitFunctions),
            ("append_record", .recordAppender(records.pointer)),
            ("encodable", .jsonCheck),
            ("symbologies", .list(Symbology.knownNames.map { .string($0) })),
            ("options", .table(Option.configurable.map { ($0.name, .string($0.luaType)) })),
            ("list_options", .table(Option.configurable.filter(\.namesList).map { ($0.name, .bool(true)) })),
            ("action_types", .list(ActionType.allCases.map { .string($0.rawValue) })),
            ("max_failures", .function { [unowned self] L in L.push(.int(limits.maxFailures)); return 1 }),
            ("memory_limit_text", .function { L in L.push(.string("\(L.memoryLimit >> 20) MiB")); return 1 }),
            ("log", .function { [unowned self] L throws(ScriptError) in
                let level = L.string(at: 1) ?? "info"
                let message = L.string(at: 2) ?? ""
                // "later": said after the records of the running events (a handler's "disabled"
                // comes after the failure that disabled it).
                if level == "later" { deferredLog.append("scanlua: warn: \(message)\n"); return 0 }
                log(level == "print" ? message + "\n" : "scanlua: \(level): \(message)\n")
                return 0
            }),
            ("set_option", .function { [unowned self] L throws(ScriptError) in
                try setOption(L.string(at: 1) ?? "", L)
                return 0
            }),
            // events(on): scan.simulate outside a session (a test) runs its event in a transaction
            // of its own, rolled back when a rule failed, as in a scan.
            ("events", .function { [unowned self] L throws(ScriptError) in
                if L.bool(at: 1) { store.beginEvents() } else { store.endEvents() }
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
            // Whether a file was already run as a script (--script, --scripts): require gives it
            // back instead of running it twice (its handlers would register twice).
            ("was_run", .function { [unowned self] L throws(ScriptError) in
                let path = L.string(at: 1) ?? ""
                let real = physicalPath(path)
                // The path it was run under (its return value is kept by that path), or false.
                if let run = loadedFiles.first(where: { $0 == path || (real != nil && physicalPath($0) == real) }) {
                    L.push(.string(run))
                } else {
                    L.push(.bool(false))
                }
                return 1
            }),
            ("find_module", .function { [unowned self] L throws(ScriptError) in
                let name = String(decoding: try L.checkString(1, "require"), as: UTF8.self)
                let (path, tried) = findModule(name)
                if let path { L.push(.string(path)); return 1 }
                L.push(.nil)
                L.push(.string(tried))
                return 2
            }),
            ("read_file", .function { [unowned self] L throws(ScriptError) in
                // One read: the bytes checked against the trust list are the bytes loaded.
                let path = String(decoding: try L.checkString(1, "read_file"), as: UTF8.self)
                guard let data = FileManager.default.contents(atPath: path) else {
                    L.push(.nil)
                    L.push(.string("\(path): cannot read module"))
                    return 2
                }
                if let reason = untrustedModule(path, contents: Array(data)) {
                    L.push(.nil)
                    L.push(.string(reason))
                    return 2
                }
                L.push(.bytes(Array(data)))
                return 1
            }),
            // Around the shipped library's own loading: what it requires resolves from the install.
            ("shipped", .function { [unowned self] L throws(ScriptError) in
                shippedDepth += L.bool(at: 1) ? 1 : -1
                return 0
            }),
            ("path_allowed", .function { [unowned self] L throws(ScriptError) in
                let path = String(decoding: try L.checkString(1, "io.open"), as: UTF8.self)
                L.push(.bool(isReadable(path)))
                return 1
            }),
            ("make_event", .function { L throws(ScriptError) in
                // make_event(symbology, bytes, source, { {symbology, bytes, modifiers, id|false}, ... }, time|false,
                // modifiers, id|false) -> one event's batch values (the prelude checked the types).
                func strings(_ index: Int32) -> [String] {
                    (0..<L.rawLength(index)).compactMap { i in L.rawIndex(index, i + 1); defer { L.pop() }; return L.string(at: -1) }
                }
                func symbol(_ name: String, _ bytes: [UInt8], modifiers: [String], id: String?) -> Symbol {
                    // A GS1 identifier (]C1: GS1-128) means FNC1 first, as a decoder would say.
                    let gs1 = id.map { MockScan.gs1Identifiers.contains($0) } ?? false
                    var s = Symbol(symbology: Symbology(rawValue: name), bytes: bytes,
                                   modifiers: gs1 && !modifiers.contains("gs1") ? modifiers + ["gs1"] : modifiers)
                    s.symbologyID = id
                    return s
                }
                let symbology = String(decoding: try L.checkString(1, "scan.simulate"), as: UTF8.self)
                let bytes = try L.checkString(2, "scan.simulate")
                let source = L.string(at: 3) ?? "simulate"
                var siblings: [Symbol] = []
                for i in 0..<L.rawLength(4) {
                    L.rawIndex(4, i + 1)
                    let sib = L.top
                    L.rawIndex(sib, 1)
                    L.rawIndex(sib, 2)
                    L.rawIndex(sib, 3)
                    L.rawIndex(sib, 4)
                    let name = L.string(at: -4) ?? "qrcode"
                    let sb = L.bytes(at: -3) ?? []
                    let mods = strings(L.top - 1)
                    let id = L.string(at: -1)
                    L.pop(5)
                    siblings.append(symbol(name, sb, modifiers: mods, id: id))
                }
                let time = L.number(at: 5).map { Date(timeIntervalSince1970: $0) } ?? Date()
                let main = symbol(symbology, bytes, modifiers: strings(6), id: L.string(at: 7))
                L.pushEvents([ScanEvent(symbol: main, info: FrameInfo(source: source, time: time), siblings: siblings)])
                return 1
            }),
            // For tests (scan.decode_file, scan.scan_lines): an image file through the loaded Lua
            // decoders, and the scan lines a linear decoder would see in it.
            ("decode_file", .function { [unowned self] L throws(ScriptError) in
                let image = try testImage(L, "scan.decode_file")
                decodingFromLua = true
                defer { decodingFromLua = false }
                let symbols = decode(image, region: nil, info: FrameInfo(source: "scan.decode_file", width: image.width, height: image.height))
                L.push(.list(symbols.map { s in
                    .table([("symbology", .string(s.symbology.rawValue)), ("text", .string(s.text)), ("bytes", .bytes(s.bytes)),
                            ("quality", .int(s.quality)), ("points", .list(s.points.map { .table([("x", .int($0.x)), ("y", .int($0.y))]) }))])
                }))
                return 1
            }),
            ("scan_lines", .function { [unowned self] L throws(ScriptError) in
                let image = try testImage(L, "scan.scan_lines")
                let directions = L.string(at: 2) ?? "rows"
                guard ["rows", "columns", "both"].contains(directions) else {
                    throw .argument("scan.scan_lines: directions must be rows, columns or both, got '\(directions)'")
                }
                let step = L.integer(at: 3) ?? 4
                guard step >= 1 else { throw .argument("scan.scan_lines: step must be at least 1") }
                L.pushScanlines(scanlines(image, box: Box(x: 0, y: 0, width: image.width, height: image.height),
                                          directions: directions, step: step).map(\.line))
                return 1
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

    /// Why a module may not run, or nil: where the config came from the trust list, every
    /// module required from outside the install's scripts directory, while loading or at event
    /// time, must be on the list with the bytes loaded (it runs with the powers the config gave).
    private func untrustedModule(_ path: String, contents: [UInt8]) -> String? {
        guard let list = configTrustList else { return nil }
        if let shipped = shippedDirectory, isPhysically(path, inside: shipped) { return nil }
        switch list.verdict(for: path, contents: contents) {
        case .trusted: return nil
        case .unknown:
            return "\(path), required by the trusted ./scanlua.lua, is not trusted, so it was not run: read it, then `scanlua trust \(path)`"
        case .changed:
            return "\(path), required by the trusted ./scanlua.lua, changed since it was trusted, so it was not run: read it again, then `scanlua trust \(path)`"
        }
    }

    func findModule(_ name: String) -> (String?, String) {
        let rel = name.replacingOccurrences(of: ".", with: "/")
        var tried = ""
        // The shipped library (`default`, the shipped `handlers.*`), and what it requires while
        // loading, come from the install first: a planted file of the same name is never run
        // instead. `default` comes from nowhere else; a `handlers.mine` of your own is found as usual.
        let shippedFirst = Self.isShippedLibrary(name) || shippedDepth > 0
        let dirs = (shippedFirst ? shippedDirectory.map { [$0] } ?? [] : []) + (name == "default" ? [] : modulePaths)
        for dir in dirs {
            for candidate in ["\(dir)/\(rel).lua", "\(dir)/\(rel)/init.lua", "\(dir)/lib/\(rel).lua"] {
                if FileManager.default.fileExists(atPath: candidate) { return (Self.display(candidate), tried) }
                tried += "\n\tno file '\(candidate)'"
            }
        }
        return (nil, tried)
    }

    /// Whether the sandbox's io.open may read `path`: it must physically lie (symbolic links
    /// followed, `..` applied to the real directory) below the working directory or a script
    /// directory.
    /// The image file a test names (argument 1), read as scan reads it, within what scripts may read.
    private func testImage(_ L: LuaState, _ api: String) throws(ScriptError) -> GrayImage {
        let path = String(decoding: try L.checkString(1, api), as: UTF8.self)
        guard FileManager.default.fileExists(atPath: path) else { throw .argument("\(api): \(path): no such file") }
        guard isReadable(path) else { throw .argument("\(api): \(path): outside the directories scripts may read") }
        do { return try ImageLoader().load(path: path) } catch { throw .argument("\(api): \(error)") }
    }

    private func isReadable(_ path: String) -> Bool {
        if trusted { return true }
        let roots = [FileManager.default.currentDirectoryPath] + modulePaths
        return roots.contains { isPhysically(path, inside: $0) }
    }

    /// A path relative to the working directory when it is below it: what tracebacks show.
    static func display(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path
    }
}

@available(*, unavailable) extension ScriptEngine: Sendable {}

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
