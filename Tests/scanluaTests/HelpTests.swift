import XCTest

final class HelpTests: XCTestCase {
    func testHelpVariantsPrintTheSameText() throws {
        let a = try CLI.run(["--help"]), b = try CLI.run(["-h"]), c = try CLI.run(["help"])
        XCTAssertEqual(a.status, 0)
        XCTAssertEqual(a.stdout, b.stdout)
        XCTAssertEqual(a.stdout, c.stdout)
        XCTAssertTrue(a.stdout.hasPrefix("OVERVIEW: A Lua-scriptable barcode and QR scanning engine.\n\nUSAGE: scanlua <subcommand> [options]\n"))
        XCTAssertTrue(a.stdout.contains("\n  scan                    Decode every barcode and QR code"), a.stdout)
    }

    func testSubcommandHelp() throws {
        let a = try CLI.run(["help", "scan"]), b = try CLI.run(["scan", "--help"])
        XCTAssertEqual(a.stdout, b.stdout)
        XCTAssertTrue(a.stdout.hasPrefix("OVERVIEW: Decode every barcode and QR code in images and print one record per symbol.\n\nUSAGE: scanlua scan "))
        XCTAssertTrue(a.stdout.contains("--symbologies LIST"))
    }

    func testVersionAndUnknownSubcommand() throws {
        XCTAssertTrue(try CLI.run(["--version"]).stdout.hasPrefix("scanlua "))
        let bad = try CLI.run(["scna", "x.png"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stderr, "Error: unknown subcommand 'scna'\nUsage: scanlua <subcommand> [options]\n  See 'scanlua --help'.\n")
        XCTAssertEqual(try CLI.run([]).status, 2)
    }
}
