import Foundation
import ScanCore
import ScanPipeline
import ScanScript

/// `scanlua run SCRIPT.lua [ARGS...]`: a Lua script with the engine's modules, for reports and exports.
enum RunCommand {
    static let command = Command(
        name: "run",
        abstract: "Run a Lua script with scanlua's modules (store, json, codec, ...), e.g. a report.",
        usage: "scanlua run [script options] [--instruction-limit N] SCRIPT.lua [ARGS...]",
        arguments: """
            ARGUMENTS:
              SCRIPT.lua              Runs trusted (the full Lua library: io, os, ...): it is your own tool,
                                      like `lua SCRIPT.lua`. `arg[0]` is its path, arg[1]... the ARGS;
                                      print writes to stdout. No handlers are loaded unless it requires them.
            """,
        options: ["db", "config"] + Option.names(in: [.run]),
        notes: """
            EXIT STATUS:
              0 the script finished, 1 it raised an error (printed with file:line), 2 usage error.
            """,
        optionsEndAtPositional: true,
        run: run)

    /// Options end at the script: everything after it belongs to the script (see main.swift).
    static func run(_ args: inout ArgumentList, _ o: OptionValues) throws -> Int32 {
        var rest = args.takeRest()
        if rest.first == "--" { rest.removeFirst() }
        guard let script = rest.first else { throw UsageError("missing SCRIPT.lua") }
        let scriptArgs = Array(rest.dropFirst())
        // A --db that does not exist yet is made by the script's first store call (an import
        // script starts a database that way); if the script then fails, the file goes again: a
        // typo in --db leaves no empty database behind.
        let newDatabase = o[.db].flatMap { db in
            !db.hasPrefix("postgres") && db != ":memory:" && !FileManager.default.fileExists(atPath: db) ? db : nil
        }

        let engine = try makeEngine(o) {
            $0.defaultScripts = false
            $0.limits.trust = true
            $0.limits.instructionLimit = o[.runInstructionLimit] ?? 0
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
            if let db = newDatabase {
                for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: db + suffix) }
                Console.error("scanlua: \(db) did not exist before this run: it was not kept\n")
            }
            return ExitStatus.failure
        }
        return ExitStatus.success
    }
}
