import Foundation
import ScanCore
import ScanPipeline
import ScanScript

/// `scanlua test [PATH...]`: runs Lua test files (`*_test.lua`), each in a fresh engine.
enum TestCommand {
    static let command = Command(
        name: "test",
        abstract: "Run Lua test files (*_test.lua) against the registered parsers and rules.",
        usage: "scanlua test [--filter TEXT] [script options] [PATH...]",
        arguments: """
            ARGUMENTS:
              PATH                    A *_test.lua file or a directory searched recursively for them
                                      (default: the working directory; hidden folders are skipped).

            Each file runs in a fresh engine that has loaded what scan would load (config, the shipped
            handlers, --script/--scripts), plus describe/it/pending/before_each/after_each/expect and
            scan.simulate; see docs/lua-api.md. The store is a fresh in-memory database per file unless
            --db is given. Failures print with file:line, the path of the first difference of a table
            and the script errors of the test's scan.simulate calls; the last line is
            "N passed, N failed" (and ", N pending"). Exit 1 on any failure, and when no test file (or
            no test matching --filter) was found: a run that tested nothing is not a success.
            """,
        options: Option.names(in: [.test, .scripts]),
        run: run)

    static func run(_ args: inout ArgumentList, _ o: OptionValues) throws -> Int32 {
        let roots = args.positionals.isEmpty ? ["."] : args.positionals
        var files: [String] = []
        for root in roots {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDir) else {
                throw UsageError("no such file or directory: '\(root)'")
            }
            if !isDir.boolValue { files.append(root); continue }
            files += testFiles(in: root)
        }
        let filter = o[.filter]
        var passed = 0, failed = 0, pending = 0
        for file in files {
            do {
                // Each file gets a fresh in-memory store unless --db names one: tests never touch your data.
                let engine = try makeEngine(o) { if $0.database == nil { $0.database = ":memory:" } }
                try engine.installTestAPI()
                try engine.run(file: file)
                for result in try engine.runTests(filter: filter) {
                    switch result.status {
                    case "passed": passed += 1
                    case "pending":
                        pending += 1
                        Console.write("PENDING \(file): \(result.name)\n")
                    default:
                        failed += 1
                        Console.write("FAIL \(file): \(result.name)\n  \(result.message ?? "")\n")
                    }
                }
            } catch {
                failed += 1
                Console.write("FAIL \(file): could not load\n  \((error as? ScriptLoadFailure).map { "\($0.error)" } ?? "\(error)")\n")
            }
        }
        Console.write("\(files.count) test files\n\(passed) passed, \(failed) failed" + (pending > 0 ? ", \(pending) pending" : "") + "\n")
        if files.isEmpty {
            Console.error("scanlua: no *_test.lua files in \(roots.joined(separator: " ")): nothing was tested\n")
            return ExitStatus.failure
        }
        if let filter, passed + failed + pending == 0 {
            Console.error("scanlua: no test's name contains '\(filter)'\n")
            return ExitStatus.failure
        }
        if passed + failed + pending == 0 {
            Console.error("scanlua: \(files.count == 1 ? "the test file defines" : "the \(files.count) test files define") no test (it): nothing was tested\n")
            return ExitStatus.failure
        }
        return failed > 0 ? ExitStatus.failure : ExitStatus.success
    }

    /// The *_test.lua files below `root`, sorted; hidden folders (.git, .build) are skipped.
    static func testFiles(in root: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var found: [String] = []
        while let rel = walker.nextObject() as? String {
            if (rel as NSString).lastPathComponent.hasPrefix(".") { walker.skipDescendants(); continue }
            if rel.hasSuffix("_test.lua") { found.append(rel) }
        }
        let prefix = root == "." ? "" : (root.hasSuffix("/") ? root : root + "/")
        return found.sorted().map { prefix + $0 }
    }
}
