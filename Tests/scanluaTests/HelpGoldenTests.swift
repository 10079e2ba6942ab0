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
