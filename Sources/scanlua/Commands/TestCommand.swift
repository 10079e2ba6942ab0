import Foundation
import ScanCore
import ScanPipeline
import ScanScript

/// `scanlua test [PATH...]`: runs Lua test files (`*_test.lua`), each in a fresh engine.
enum TestCommand {
    static let command = Command(
        name: "test",
        abstract: "Run Lua test files (*_test.lua) against the registered parsers and rules.",
        usage: "scanlua test [script options] [PATH...]",
        arguments: """
            ARGUMENTS:
              PATH                    A *_test.lua file or a directory searched recursively for them
                                      (default: scripts and examples in the working directory).

            Each file runs in a fresh engine that has loaded what scan would load (config, the shipped
            handlers, --script/--scripts), plus describe/it/expect and scan.simulate; see docs/lua-api.md.
            The store is a fresh in-memory database per file unless --db is given.
            Failures print with file:line; the last line is "N passed, N failed". Exit 1 on any failure.
            """,
        options: Option.names(in: [.scripts]),
        run: run)

    static func run(_ args: inout ArgumentList, _ o: OptionValues) throws -> Int32 {
        let roots = args.positionals.isEmpty
            ? ["scripts", "examples"].filter { FileManager.default.fileExists(atPath: $0) }
            : args.positionals
        var files: [String] = []
        for root in roots {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDir) else {
                throw UsageError("no such file or directory: '\(root)'")
            }
            if !isDir.boolValue { files.append(root); continue }
            let found = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }
                .filter { $0.hasSuffix("_test.lua") }.sorted() ?? []
            files += found.map { root.hasSuffix("/") ? root + $0 : root + "/" + $0 }
        }

        var passed = 0, failed = 0
        for file in files {
            do {
                // Each file gets a fresh in-memory store unless --db names one: tests never touch your data.
                let engine = try makeEngine(o) { if $0.database == nil { $0.database = ":memory:" } }
                try engine.installTestAPI()
                try engine.run(file: file)
                for result in try engine.runTests() {
                    if result.passed {
                        passed += 1
                    } else {
                        failed += 1
                        Console.write("FAIL \(file): \(result.name)\n  \(result.message ?? "")\n")
                    }
                }
            } catch {
                failed += 1
                Console.write("FAIL \(file): could not load\n  \((error as? ScriptLoadFailure).map { "\($0.error)" } ?? "\(error)")\n")
            }
        }
        Console.write("\(files.count) test files\n\(passed) passed, \(failed) failed\n")
        return failed > 0 ? ExitStatus.failure : ExitStatus.success
    }
}
