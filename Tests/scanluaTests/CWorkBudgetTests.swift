import Foundation
import XCTest

/// Issue 12 D: work a script starts inside C, where the count hook cannot see it, is charged to
/// the same instruction budget. Each attack ran for minutes before; now each is the handler's
/// "instruction budget exceeded" error at the script's line, and the next event is handled.
final class CWorkBudgetTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-cwork-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Each line of `attacks` is one handler body, run for the event whose text is its number.
    func runAttacks(_ attacks: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        var source = "local scan = require 'scan'\nlocal attacks = {\n"
        for a in attacks { source += "  function() \(a) end,\n" }
        source += """
            }
            scan.parser { name = "attack", parse = function(ev)
              if ev.text == "after" then return { type = "after", ok = ("key=value"):match("(%w+)=(%w+)") } end
              attacks[tonumber(ev.text)]()
              return { type = "finished" }
            end }
            """
        let path = dir.appendingPathComponent("attack.lua").path
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        let input = (1...attacks.count).map { #"{"text":"\#($0)"}"# + "\n" }.joined() + #"{"text":"after"}"# + "\n"
        let started = Date()
        let r = try CLI.run(["simulate", "--no-default-scripts", "--max-failures", "100", "--script", path], stdin: Data(input.utf8))
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(r.records.count, attacks.count + 1, r.stderr, file: file, line: line)
        for (i, record) in r.records.prefix(attacks.count).enumerated() {
            let message = ((record["errors"] as? [[String: Any]])?.first?["message"] as? String) ?? ""
            XCTAssertTrue(message.contains("attack.lua:\(i + 3): instruction budget exceeded (10000000 instructions)"),
                          "attack \(i + 1) (\(attacks[i])): \(record)", file: file, line: line)
        }
        let after = r.records.last?["payload"] as? [String: Any]
        XCTAssertEqual(after?["ok"] as? String, "key", "the next event is handled, string functions intact", file: file, line: line)
        // Unbounded, the cheapest of these ran for over a minute; bounded, each stops at the budget.
        XCTAssertLessThan(elapsed, 60, "bounded by the budget", file: file, line: line)
    }

    func testBacktrackingPatternsAreBoundedByTheBudget() throws {
        try runAttacks([
            #"string.rep("a", 5000):find(string.rep("a-", 30) .. "b")"#,
            #"string.rep("a", 5000):match(string.rep("a*", 20) .. "b")"#,
            #"for _ in string.rep("a", 5000):gmatch(string.rep("a-", 30) .. "b") do end"#,
            #"string.rep("a", 5000):gsub(string.rep("a-", 30) .. "b", "x")"#,
            // A plain find whose first byte matches everywhere: memcmp work per candidate.
            #"local s = string.rep("a", 4000000); local p = string.rep("a", 100000) .. "b"; for i = 1, 100 do s:find(p, 1, true) end"#,
            // Replacement strings copied in C at every match (found by a review: 31 s).
            #"string.gsub(("a"):rep(4000), "", ("%0"):rep(1000000))"#,
        ])
    }

    func testLinearCFunctionsAreChargedByTheirWork() throws {
        try runAttacks([
            #"local s = string.rep("a", 20000000); for i = 1, 50 do utf8.len(s) end"#,
            #"local s = string.rep("a", 20000000); for i = 1, 1000 do local t = s .. "x" end"#,
            #"local t = {}; for i = 1, 200000 do t[i] = i end; for i = 1, 200000 do table.remove(t, 1) end"#,
            #"table.move({}, 1, math.maxinteger, 2)"#,
            #"local s = string.rep("a", 20000000); for i = 1, 1000 do s:upper() end"#,
            #"local src = "return " .. string.rep("1+", 2000000) .. "1"; for i = 1, 100 do load(src) end"#,
            #"local f = ("%Z"):rep(100000); for i = 1, 1e9 do os.date(f) end"#,
            // An empty string repeated: no bytes to charge, but the loop runs in C (a review: endless).
            #"string.rep("", 1e17)"#,
        ])
    }

    func testPatternsStillBehaveAsLuasOwn() throws {
        let path = dir.appendingPathComponent("patterns.lua").path
        try """
            local scan = require 'scan'
            scan.parser { name = "p", parse = function(ev)
              local words = {}
              for w in ("one two  three"):gmatch("%a+") do words[#words + 1] = w end
              local k, v = ("key = value"):match("^(%w+)%s*=%s*(%w+)$")
              local s, e = ("hello world"):find("o w", 1, true)
              local g, n = ("a,b,,c"):gsub(",", ";")
              local b = ("f(a(b)c)d"):match("%b()")
              local f = ("THE (quick) fox"):find("%f[%a]%a+%f[%A]", 5)
              local pos = ("abc"):match("()b()")
              local bad = select(2, pcall(string.match, "x", "(("))
              return { type = "p", words = table.concat(words, "|"), k = k, v = v, s = s, e = e, g = g, n = n,
                       b = b, f = f, pos = pos, bad = bad }
            end }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try CLI.run(["simulate", "--no-default-scripts", "--script", path, "--text", "x"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let p = try XCTUnwrap(r.records.first?["payload"] as? [String: Any])
        XCTAssertEqual(p["words"] as? String, "one|two|three")
        XCTAssertEqual(p["k"] as? String, "key")
        XCTAssertEqual(p["v"] as? String, "value")
        XCTAssertEqual(p["s"] as? Int, 5)
        XCTAssertEqual(p["e"] as? Int, 7)
        XCTAssertEqual(p["g"] as? String, "a;b;;c")
        XCTAssertEqual(p["n"] as? Int, 3)
        XCTAssertEqual(p["b"] as? String, "(a(b)c)")
        XCTAssertEqual(p["f"] as? Int, 6)
        XCTAssertEqual(p["pos"] as? Int, 2)
        XCTAssertEqual(p["bad"] as? String, "unfinished capture")
    }
}
