import Foundation
import ScanCore
import ScanScript

/// `scanlua run SCRIPT.lua [ARGS...]`: a Lua script with the engine's modules, for reports and exports.
enum RunCommand {
    static let command = Command(
        name: "run",
        abstract: "Run a Lua script with scanlua's modules (store, json, codec, ...), e.g. a report.",
        usage: "scanlua run [--db PATH] [--config FILE] SCRIPT.lua [ARGS...]",
        details: """
            ARGUMENTS:
              SCRIPT.lua              Runs trusted (the full Lua library: io, os, ...): it is your own tool,
                                      like `lua SCRIPT.lua`. `arg[0]` is its path, arg[1]... the ARGS;
                                      print writes to stdout. No handlers are loaded unless it requires them.

            OPTIONS:
              --db PATH               The store's database (default: the config's db, else
                                      $XDG_DATA_HOME/scanlua/scanlua.db).
              --config FILE           A config to load first (default ./scanlua.lua, else the XDG one).
              --instruction-limit N   Instructions for the whole script (default 0 = unlimited).
              -h, --help              Show help information.

            EXIT STATUS:
              0 the script finished, 1 it raised an error (printed with file:line), 2 usage error.
            """,
        run: run)

    static func run(_ args: inout ArgumentList) throws -> Int32 {
        var options = ScriptOptions()
        options.defaultScripts = false
        options.limits.trust = true
        options.limits.instructionLimit = 0
        // Options end at the script: everything after it belongs to the script.
        while args.nextIsOption, let option = args.nextOption() {
            switch option {
            case "--db": options.database = try args.value(for: option)
            case "--config": options.config = try args.value(for: option)
            case "--instruction-limit": options.limits.instructionLimit = try args.intValue(for: option, in: 0...Int(Int32.max) * 1000)
            default: throw UsageError("unknown option '\(option)'")
            }
        }
        var rest = args.takeRest()
        if rest.first == "--" { rest.removeFirst() }
        guard let script = rest.first else { throw UsageError("missing SCRIPT.lua") }
        let scriptArgs = Array(rest.dropFirst())

        let engine: ScriptEngine
        do {
            engine = try ScriptSetup.makeEngine(options)
        } catch {
            throw ScriptLoadFailure(error: error)
        }
        engine.log = { text in
            // print goes to stdout here: a report's output is its result.
            if text.hasPrefix("scanlua: ") { Console.error(text) } else { Console.write(text) }
        }
        do {
            engine.setArguments(script: script, scriptArgs)
            try engine.run(file: script)
        } catch {
            Console.error("scanlua: \(error)\n")
            return ExitStatus.failure
        }
        return ExitStatus.success
    }
}
