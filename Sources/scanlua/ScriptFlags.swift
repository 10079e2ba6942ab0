import ScanScript

/// The flags every command that runs scripts shares (scan, simulate, bench, test).
struct ScriptFlags {
    var options = ScriptOptions()
    var dryRun = false

    static let help = """
          --script FILE           Load a Lua script (repeatable).
          --scripts DIR           Load every *.lua in DIR (not *_test.lua), sorted; DIR joins the require path.
          --config FILE           The Lua config (default ./scanlua.lua, else $XDG_CONFIG_HOME/scanlua/init.lua).
          --no-default-scripts    Do not load the shipped handler library (scripts/default.lua).
          --trust                 Give scripts the full Lua standard library instead of the sandbox.
          --instruction-limit N   Instructions per handler call (default 10000000; 0 = unlimited).
          --memory-limit MIB      Memory of the Lua state in MiB (default 256; 0 = unlimited).
          --max-failures N        Disable a handler after N failures in a row (default 5).
          --dry-run               Print the actions rules return without carrying them out, and roll back
                                  what they wrote to the store.
          --db PATH               The store's SQLite database (default: the config's db, else
                                  $XDG_DATA_HOME/scanlua/scanlua.db).
    """

    /// Consumes `option` if it is a script flag; returns false otherwise.
    mutating func parse(_ option: String, _ args: inout ArgumentList) throws(UsageError) -> Bool {
        switch option {
        case "--script": options.scripts.append(try args.value(for: option))
        case "--scripts": options.scriptDirectories.append(try args.value(for: option))
        case "--config": options.config = try args.value(for: option)
        case "--no-default-scripts": try args.noValue(for: option); options.defaultScripts = false
        case "--trust": try args.noValue(for: option); options.limits.trust = true
        case "--instruction-limit": options.limits.instructionLimit = try args.intValue(for: option, in: 0...Int(Int32.max) * 1000)
        case "--memory-limit": options.limits.memoryLimit = try args.intValue(for: option, in: 0...1 << 20) << 20
        case "--max-failures": options.limits.maxFailures = try args.intValue(for: option, in: 1...1_000_000)
        case "--dry-run": try args.noValue(for: option); dryRun = true
        case "--db": options.database = try args.value(for: option)
        default: return false
        }
        return true
    }

    /// Builds the engine; a script that fails to load is a usage-level error (exit 2) naming file:line.
    func makeEngine() throws(ScriptLoadFailure) -> ScriptEngine {
        do { return try ScriptSetup.makeEngine(options) } catch { throw ScriptLoadFailure(error: error) }
    }
}

/// A script failed to compile or load: reported before any input is read, exit 2.
struct ScriptLoadFailure: Error {
    let error: ScriptError
}
