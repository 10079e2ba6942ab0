import ScanCore
import XCTest
@testable import scanlua

final class ArgumentListTests: XCTestCase {
    func parse(_ argv: [String], _ names: [String], untilPositional: Bool = false) throws -> (OptionValues, [String]) {
        var args = ArgumentList(argv)
        let values = try args.options(names, untilPositional: untilPositional)
        return (values, args.positionals + args.takeRest())
    }

    func message(_ body: () throws -> Void) -> String? {
        do { try body() } catch let e as UsageError { return e.message } catch { return "\(error)" }
        return nil
    }

    func testValuesSpacedOrWithEqualsAndPositionalsAnywhere() throws {
        let (v, rest) = try parse(["a.png", "--format", "text", "--roi=1,2,3,4", "b.png", "-"], ["format", "roi"])
        XCTAssertEqual(v[.format], "text")
        XCTAssertEqual(v[.roi], "1,2,3,4")
        XCTAssertEqual(rest, ["a.png", "b.png", "-"])
    }

    func testDoubleDashEndsOptions() throws {
        let (v, rest) = try parse(["--once", "--", "--format", "-x.png"], ["once", "format"])
        XCTAssertEqual(v[.once], true)
        XCTAssertNil(v[.format])
        XCTAssertEqual(rest, ["--format", "-x.png"])
    }

    func testRepeatableListsNegatedSwitchesAndScaledIntegers() throws {
        let (v, _) = try parse(["--script", "a.lua", "--script=b.lua", "--no-default-scripts", "--memory-limit", "64"],
                               ["script", "default_scripts", "memory_limit"])
        XCTAssertEqual(v[.script], ["a.lua", "b.lua"])
        XCTAssertEqual(v[.defaultScripts], false)
        XCTAssertEqual(v[.memoryLimit], 64 << 20)
    }

    func testNegativeNumbersAreValuesButOtherDashWordsAreNot() throws {
        XCTAssertEqual(message { _ = try self.parse(["--interval", "-1"], ["interval"]) },
                       "invalid value '-1' for '--interval': expected a number at least 0")
        XCTAssertEqual(message { _ = try self.parse(["--format", "--once"], ["format", "once"]) }, "missing value for '--format'")
        XCTAssertEqual(message { _ = try self.parse(["--format"], ["format"]) }, "missing value for '--format'")
    }

    func testUsageErrorsNameTheFlag() throws {
        XCTAssertEqual(message { _ = try self.parse(["--nope"], ["format"]) }, "unknown option '--nope'")
        XCTAssertEqual(message { _ = try self.parse(["--once=yes"], ["once"]) }, "option '--once' takes no value")
        XCTAssertEqual(message { _ = try self.parse(["--format", "xml"], ["format"]) },
                       "invalid value 'xml' for '--format': expected ndjson or text")
        XCTAssertEqual(message { _ = try self.parse(["--max-failures", "0"], ["max_failures"]) },
                       "invalid value '0' for '--max-failures': expected an integer in 1...1000000")
        XCTAssertEqual(message { _ = try self.parse(["--max-frames", "many"], ["max_frames"]) },
                       "invalid value 'many' for '--max-frames': expected an integer in 1...4611686018427387903")
    }

    func testOptionsCanEndAtTheFirstPositional() throws {
        let (v, rest) = try parse(["--db", "x.db", "report.lua", "--db", "y"], ["db"], untilPositional: true)
        XCTAssertEqual(v[.db], "x.db")
        XCTAssertEqual(rest, ["report.lua", "--db", "y"])
    }
}
