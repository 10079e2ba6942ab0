import Foundation
import ScanCore

/// Which scripts an engine loads and with what limits: what the CLI flags and the config decide.
package struct ScriptOptions {
    /// What loads after the shipped handlers, in order: `--scripts DIR` then `--script FILE` on
    /// the command line; the library's ``ScanSettings`` scripts as given.
    package enum Load: Equatable, Sendable {
        /// A script file.
        case file(String)
        /// Every `*.lua` in it (not `*_test.lua`), sorted; the directory joins the `require` path.
        case directory(String)
        /// Source text, called `name` in errors.
        case source(name: String, code: String)
    }

    package var loads: [Load] = []
    /// `--config FILE`; when nil, `./scanlua.lua`, then `$XDG_CONFIG_HOME/scanlua/init.lua`, if ``findsConfig``.
    package var config: String?
    /// Whether a config is looked for when none is named (the CLI: yes; the library: no).
    package var findsConfig = true
    /// `--no-default-scripts` turns off the shipped handler library (`scripts/default.lua`).
    package var defaultScripts = true
    /// Where the shipped handlers are; nil: ``ScriptSetup/shippedScriptsDirectory()``.
    package var shippedDirectory: String?
    package var limits = ScriptLimits()
    /// The limits the command line gave (their option names): a config's `scan.options` does not change them.
    package var limitsGiven: Set<String> = []
    /// `--db PATH`: the store's database (else the config's `db`, else the default path).
    package var database: String?
    /// `--disable NAME` (repeatable): parsers and rules switched off once everything is loaded.
    package var disabled: [String] = []
    /// Whether rules are checked against the parsers' types after loading: commands that load a
    /// config only for its settings (outbox, export) run no rules, so they say nothing of them.
    package var checksRules = true

    package init() {}

    /// The script options of a command line (the CLI's `[script options]`).
    package init(_ o: OptionValues) {
        loads = (o[.scripts] ?? []).map(Load.directory) + (o[.script] ?? []).map(Load.file)
        config = o[.config]
        defaultScripts = o[.defaultScripts] ?? true
        limits.trust = o[.trust] ?? false
        for (key, field) in ScriptEngine.limitOptions {
            if let n = o[key] { limits[keyPath: field] = n; limitsGiven.insert(key.name) }
        }
        database = o[.db]
        disabled = o[.disable] ?? []
    }
}

/// Builds engines the way every command does: config, shipped handlers, then the user's scripts.
package enum ScriptSetup {
    /// The shipped scripts directory: `$SCANLUA_SCRIPTS`, `scripts/` beside the binary,
    /// `../share/scanlua/scripts` from it, or the source tree's `scripts/` above a build directory.
    package static func shippedScriptsDirectory() -> String? {
        let fm = FileManager.default
        func valid(_ dir: String) -> Bool { fm.fileExists(atPath: dir + "/default.lua") }
        if let env = ProcessInfo.processInfo.environment["SCANLUA_SCRIPTS"], valid(env) { return env }
        let exe = (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        for candidate in [dir.appendingPathComponent("scripts"), dir.appendingPathComponent("../share/scanlua/scripts")] {
            if valid(candidate.standardizedFileURL.path) { return candidate.standardizedFileURL.path }
        }
        // A SwiftPM build: <root>/.build/<triple>/debug/scanlua -> <root>/scripts
        for _ in 0..<5 {
            dir = dir.deletingLastPathComponent()
            if fm.fileExists(atPath: dir.appendingPathComponent("Package.swift").path), valid(dir.appendingPathComponent("scripts").path) {
                return dir.appendingPathComponent("scripts").path
            }
        }
        return nil
    }

    /// The config to load, read once: what is checked is what runs.
    package struct ConfigFile {
        package var path: String
        package var source: [UInt8]
        /// Trusted by the ``TrustList`` (`./scanlua.lua`): what it requires with config powers
        /// must be on the list too. Named configs carry the operator's trust by being named.
        package var byTrustList: Bool
    }

    /// The config file to load: the explicit one, `./scanlua.lua`, or `$XDG_CONFIG_HOME/scanlua/init.lua`
    /// (`~/.config/scanlua/init.lua` when XDG_CONFIG_HOME is unset). An explicit file must exist;
    /// `./scanlua.lua` must be on the ``TrustList`` with the contents read here (one read: the
    /// bytes hashed are the bytes loaded, so a file renamed over it meanwhile is not run).
    package static func configFile(explicit: String?) throws(ScriptError) -> ConfigFile? {
        let fm = FileManager.default
        if let explicit {
            guard fm.fileExists(atPath: explicit) else { throw .file("\(explicit): config file not found") }
            guard let data = fm.contents(atPath: explicit) else { throw .file("\(explicit): cannot read config file") }
            return ConfigFile(path: explicit, source: Array(data), byTrustList: false)
        }
        if fm.fileExists(atPath: "scanlua.lua") || (try? fm.destinationOfSymbolicLink(atPath: "scanlua.lua")) != nil {
            // A link would borrow the trust of a file elsewhere, and run with this folder's modules.
            // The read below does not follow one either (O_NOFOLLOW), whatever is renamed in meanwhile.
            guard let source = readRegularFileNoFollow("scanlua.lua") else {
                if (try? fm.destinationOfSymbolicLink(atPath: "scanlua.lua")) != nil {
                    throw .file("./scanlua.lua is a symbolic link, so it was not run: name the file it points to with --config")
                }
                throw .file("./scanlua.lua cannot be read as a regular file, so it was not run")
            }
            // The entry of the file in this folder: its directory's real path, the name as it is
            // (a link renamed in after the read must not lend another file's entry).
            let real = (physicalPath(".") ?? fm.currentDirectoryPath) + "/scanlua.lua"
            switch TrustList().verdict(forRealPath: real, contents: source) {
            case .trusted:
                return ConfigFile(path: "scanlua.lua", source: source, byTrustList: true)
            case .unknown:
                throw .file("./scanlua.lua is not trusted, so it was not run: read it, then `scanlua trust scanlua.lua`"
                            + " (or name it with --config scanlua.lua)")
            case .changed:
                throw .file("./scanlua.lua changed since it was trusted, so it was not run: read it again, then"
                            + " `scanlua trust scanlua.lua` (or name it with --config scanlua.lua)")
            }
        }
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (env["HOME"].map { $0 + "/.config" } ?? "")
        let user = base + "/scanlua/init.lua"
        guard fm.fileExists(atPath: user) else { return nil }
        guard let data = fm.contents(atPath: user) else { throw .file("\(user): cannot read config file") }
        return ConfigFile(path: user, source: Array(data), byTrustList: false)
    }

    /// Lua files a `--scripts DIR` loads: `*.lua` but not `*_test.lua`, sorted by name.
    package static func scripts(in dir: String) throws(ScriptError) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
            throw .file("\(dir): cannot list script directory")
        }
        return names.filter { $0.hasSuffix(".lua") && !$0.hasSuffix("_test.lua") && !$0.hasPrefix(".") }.sorted()
            .map { dir.hasSuffix("/") ? dir + $0 : dir + "/" + $0 }
    }

    /// A ready engine. Load order: config, the shipped handler library (unless turned off by
    /// the flag or the config), `--scripts` directories, then `--script` files.
    /// - Throws: the first script that fails to compile or raises while loading.
    package static func makeEngine(_ options: ScriptOptions) throws(ScriptError) -> ScriptEngine {
        let shipped = options.shippedDirectory ?? shippedScriptsDirectory()
        let engine = try ScriptEngine(limits: options.limits, modulePaths: shipped.map { [$0] } ?? [])
        engine.limitsGiven = options.limitsGiven
        engine.shippedDirectory = shipped
        engine.storePath = options.database
        if let config = options.config != nil || options.findsConfig ? try configFile(explicit: options.config) : nil {
            engine.configPath = config.path
            engine.loadingConfig = true
            // For the engine's life: a module required at event time runs with the powers the
            // config gave as much as one required while it loaded.
            engine.configTrustList = config.byTrustList ? TrustList() : nil
            defer { engine.loadingConfig = false }
            try engine.run(file: config.path, contents: config.source)
            try engine.applyPendingOptions()
        }
        if options.defaultScripts && engine.defaultScriptsEnabled {
            guard shipped != nil else {
                throw .file("the shipped scripts directory was not found (set SCANLUA_SCRIPTS, or use --no-default-scripts)")
            }
            try engine.require("default")
        }
        for load in options.loads {
            switch load {
            case .file(let file): try engine.run(file: file)
            case .directory(let dir):
                engine.addModulePath(dir)
                for file in try scripts(in: dir) { try engine.run(file: file) }
            case .source(let name, let code): try engine.run(source: Array(code.utf8), chunkName: "=" + name)
            }
        }
        let fromConfig = engine.configOptions[.disable] ?? []
        try engine.disable(options.disabled + fromConfig)
        if options.checksRules { for warning in try engine.ruleTypeWarnings() { engine.log("scanlua: warning: \(warning)\n") } }
        return engine
    }
}
