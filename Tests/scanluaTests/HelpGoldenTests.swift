import Foundation
import XCTest

/// Every help text against its golden file in Tests/scanluaTests/Golden: a dropped flag, a changed
/// default or a wrong version fails here. After an intended change, regenerate with
/// `SCANLUA_UPDATE_GOLDEN=1 swift test --filter HelpGoldenTests` and review the diff.
final class HelpGoldenTests: XCTestCase {
    static let commands = ["scan", "watch", "devices", "simulate", "test", "run", "bench", "trust", "outbox", "export",
                           "enqueue", "worker", "results", "manpage", "completions"]

    func check(_ args: [String], golden name: String) throws {
        let r = try CLI.run(args)
        XCTAssertEqual(r.status, 0, r.stderr)
        let url = CLI.packageRoot.appendingPathComponent("Tests/scanluaTests/Golden/\(name).txt")
        if ProcessInfo.processInfo.environment["SCANLUA_UPDATE_GOLDEN"] == "1" {
            try r.stdout.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        XCTAssertEqual(r.stdout, expected, "\(args.joined(separator: " ")) differs from Golden/\(name).txt")
    }

    func testOverviewAndVersion() throws {
        try check(["--help"], golden: "overview")
        try check(["--version"], golden: "version")
        try check(["-V"], golden: "version")
        try check(["version"], golden: "version")
    }

    func testEveryCommandsHelp() throws {
        for command in Self.commands {
            try check(["help", command], golden: "help-\(command)")
            XCTAssertEqual(try CLI.run([command, "--help"]).stdout, try CLI.run(["help", command]).stdout)
        }
    }
}

/// Issue 24 item 6: help that wraps cleanly and usage lines that name every option.
final class HelpLayoutTests: XCTestCase {
    /// No line of any help is wider than 100 columns, and a flag and its text never run together
    /// (the widest, `--format csv|ndjson|json` of export, once did).
    func testHelpLinesWrapCleanly() throws {
        for command in HelpGoldenTests.commands {
            let help = try CLI.run(["help", command]).stdout
            for line in help.split(separator: "\n") {
                XCTAssertLessThanOrEqual(line.count, 100, "scanlua help \(command): \(line)")
                if line.hasPrefix("  -"), line.count > 26 {
                    let flagColumn = line.prefix(26)
                    XCTAssertTrue(flagColumn.hasSuffix("  ") || !line.dropFirst(26).hasPrefix(" ") && flagColumn.hasSuffix(" "),
                                  "scanlua help \(command): the flag and its text run together: \(line)")
                }
            }
        }
        for text in [try CLI.run(["--help"]).stdout, try CLI.run(["watch", "--bogus"]).stderr] {
            for line in text.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 100, line.description) }
        }
        let export = try CLI.run(["help", "export"]).stdout
        XCTAssertTrue(export.contains("  --format csv|ndjson|json\n                          "), export)
    }

    /// Each option a command takes is in its usage line, by its flag or by its group
    /// (`[decoding options]`), and the help lists that group under its own heading.
    func testUsageLinesNameEveryOption() throws {
        for command in HelpGoldenTests.commands {
            let help = try CLI.run(["help", command]).stdout
            let usage = (help.components(separatedBy: "\n\n").first { $0.hasPrefix("USAGE: ") } ?? "")
                .replacingOccurrences(of: "\n       ", with: " ")
            let sections = help.components(separatedBy: "\n\n").filter { $0.range(of: #"^([A-Z]+ )?OPTIONS:"#, options: .regularExpression) != nil }
            for section in sections {
                let heading = String(section.prefix { $0 != ":" })
                let flags = section.split(separator: "\n").dropFirst().compactMap { line -> String? in
                    guard line.hasPrefix("  -") else { return nil }
                    return line.split(separator: " ").first { $0.hasPrefix("--") }.map { String($0.trimmingCharacters(in: .punctuationCharacters.subtracting(["-"]))) }
                }.filter { $0 != "--help" }
                if heading == "OPTIONS" {
                    for flag in flags { XCTAssertTrue(usage.contains(flag), "scanlua \(command): \(flag) is not in \(usage)") }
                } else {
                    let token = "[\(heading.dropLast(" OPTIONS".count).lowercased()) options]"
                    XCTAssertTrue(usage.contains(token) || flags.allSatisfy(usage.contains),
                                  "scanlua \(command): \(usage) names neither \(token) nor each of \(flags)")
                }
            }
        }
        let scan = try CLI.run(["help", "scan"]).stdout
        XCTAssertTrue(scan.contains("[decoding options]") && scan.contains("DECODING OPTIONS:\n") && scan.contains("  --effort LEVEL"))
    }
}
