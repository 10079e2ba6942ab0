import Foundation
import XCTest

/// Issue 23: what a handler author meets, from the docs alone: each trap of the issue, as the
/// author sees it (the payload, the message at file:line, the exit status, no file created).
final class HandlerAuthorTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        // Short: Lua shortens chunk names over 60 bytes in messages.
        dir = URL(fileURLWithPath: "/tmp/sla-" + UUID().uuidString.prefix(8).lowercased())
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Item 4: the README's ten-line handler loads without a warning (a parser without `types`
    /// returns its own name), and a typo in `on` gets a "did you mean".
    func testTheReadmeHandlerHasNoWarningAndATypoGetsDidYouMean() throws {
        let readme = try String(contentsOf: CLI.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "```lua\n-- my.lua\n"))
        let end = try XCTUnwrap(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let handler = try write("my.lua", String(readme[start.upperBound..<end.lowerBound]))
        let r = try CLI.run(["simulate", "--script", handler, "--text", "TICKET:A12"], cwd: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "", "no warning")
        XCTAssertEqual((r.records.first?["emitted"] as? [[String: Any]])?.first?["seat"] as? String, "A12")

        let typo = try write("typo.lua", """
            local scan = require "scan"
            scan.rule { name = "price", on = "prodcut", run = function() end }
            """)
        let t = try CLI.run(["simulate", "--script", typo, "--text", "x"], cwd: dir)
        XCTAssertTrue(t.stderr.contains("typo.lua:2: scan.rule 'price': no parser returns payload type 'prodcut' (did you mean 'product'?)"), t.stderr)
    }

    /// Item 5: a mock scan reaches nothing unless asked: the append action is marked dry-run, no
    /// file is written, stderr says so once; --perform append carries it out.
    func testSimulatePerformsNoActionUnlessAsked() throws {
        let shelf = CLI.packageRoot.appendingPathComponent("examples/new-code-type/shelf-label.lua").path
        let scans = Data("{\"text\":\"SHELF1:A03-2-14:4719512002889:30\"}\n{\"text\":\"SHELF1:A03-2-14:4719512002889:30\"}\n".utf8)
        let r = try CLI.run(["simulate", "--script", shelf], stdin: scans, cwd: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let statuses = r.records.compactMap { ($0["actions"] as? [[String: Any]])?.first?["status"] as? String }
        XCTAssertEqual(statuses, ["dry-run", "dry-run"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("stocktake.csv").path), "nothing written")
        XCTAssertEqual(r.stderr.components(separatedBy: "marked dry-run, not carried out").count - 1, 1, "said once: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("--perform append carries out append actions"), r.stderr)

        let performed = try CLI.run(["simulate", "--script", shelf, "--perform", "append"], stdin: scans, cwd: dir)
        XCTAssertEqual(performed.records.compactMap { ($0["actions"] as? [[String: Any]])?.first?["status"] as? String }, ["done", "done"])
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("stocktake.csv"), encoding: .utf8).split(separator: "\n").count, 2)
        XCTAssertEqual(try CLI.run(["simulate", "--perform", "print", "--text", "x"]).status, 2, "an unknown action type is a usage error")
    }

    /// Items 6 and 8: `scanlua test` finds *_test.lua files from the working directory; one that
    /// finds none fails; a failure shows the parser's error and the first difference's path;
    /// before_each/after_each, pending and --filter.
    func testTheTestRunnerFindsFilesShowsErrorsAndRunsOneTest() throws {
        let empty = try CLI.run(["test"], cwd: dir)
        XCTAssertEqual(empty.status, 1, "a run that tested nothing is no success")
        XCTAssertTrue(empty.stderr.contains("no *_test.lua files in .: nothing was tested"), empty.stderr)

        try write("handlers/bcbp.lua", """
            local scan = require "scan"
            scan.parser { name = "boarding-pass", match = "^M1", parse = function(ev)
              if #ev.text < 58 then error("a BCBP is at least 58 characters, got " .. #ev.text) end
              return { type = "boarding-pass", legs = tonumber(ev.text:sub(2, 2)), name = ev.text:sub(3, 22):match("^(.-)%s*$"),
                       seats = { ev.text:sub(49, 52) } }
            end }
            """)
        try write("handlers/deep/bcbp_test.lua", """
            package_loaded = nil
            local bcbp = require "bcbp"
            local count = 0
            describe("boarding passes", function()
              before_each(function() count = count + 1 end)
              after_each(function() count = count + 100 end)
              it("counts the hooks", function() expect(count).to_be(1) end)
              it("runs each before_each again", function() expect(count).to_be(102) end)
              it("reads the name", function()
                local r = scan.simulate { text = "M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100" }
                expect(r.payload).to_equal({ type = "boarding-pass", legs = 1, name = "DESMARAIS/LUC", seats = { "001B" } })
              end)
              it("fails on a short pass", function()
                expect(scan.simulate { text = "M1SHORT" }.parser).to_equal("boarding-pass")
              end)
              it("a test still to write")
              pending("another one")
            end)
            """)
        let r = try CLI.run(["test", "--scripts", dir.appendingPathComponent("handlers").path], cwd: dir)
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stdout.hasSuffix("1 test files\n2 passed, 2 failed, 2 pending\n"), r.stdout)
        // The path of the first difference, then both tables on one line each.
        XCTAssertTrue(r.stdout.contains("boarding passes > reads the name\n  "), r.stdout)
        XCTAssertTrue(r.stdout.contains("at .seats[1]: expected \"001B\", got \"001A\""), r.stdout)
        // The parser's own error, which left only nil behind.
        XCTAssertTrue(r.stdout.contains("script errors in this test's scan.simulate calls:\n    parser 'boarding-pass': "), r.stdout)
        XCTAssertTrue(r.stdout.contains("bcbp.lua:3: a BCBP is at least 58 characters, got 7"), r.stdout)
        XCTAssertTrue(r.stdout.contains("PENDING handlers/deep/bcbp_test.lua: boarding passes > a test still to write"), r.stdout)

        let one = try CLI.run(["test", "--scripts", dir.appendingPathComponent("handlers").path, "--filter", "reads the name"], cwd: dir)
        XCTAssertTrue(one.stdout.hasSuffix("0 passed, 1 failed\n"), one.stdout)
        let none = try CLI.run(["test", "--scripts", dir.appendingPathComponent("handlers").path, "--filter", "no such test"], cwd: dir)
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("no test's name contains 'no such test'"), none.stderr)
    }

    /// Item 7: records that carry script errors make the run exit 3, for scan and simulate.
    func testScriptErrorsGiveExitStatusThree() throws {
        let broken = try write("broken.lua", """
            require("scan").parser { name = "broken", parse = function(ev) return ev.text.missing.field end }
            """)
        let sim = try CLI.run(["simulate", "--no-default-scripts", "--script", broken, "--text", "x"])
        XCTAssertEqual(sim.status, 3, sim.stderr)
        XCTAssertTrue(sim.stderr.contains("1 record carries script errors"), sim.stderr)
        let scan = try CLI.run(["scan", "--no-default-scripts", "--script", broken, CLI.fixture("qrcode.png"), CLI.fixture("blank.png")])
        XCTAssertEqual(scan.status, 3, "over 4 (nothing found in blank.png): \(scan.stderr)")
        XCTAssertEqual(try CLI.run(["scan", "--no-default-scripts", CLI.fixture("qrcode.png")]).status, 0)
    }

    /// Items 9 and 10: ev.time is whole seconds (os.date works), ev.time_ms the milliseconds;
    /// mock scans take time, modifiers and symbology_id (GS1-128 parses), and refuse unknown fields.
    func testEventTimeAndMockScanFields() throws {
        let clock = try write("clock.lua", """
            local scan = require "scan"
            scan.parser { name = "clock", parse = function(ev)
              return { type = "clock", day = os.date("!%Y-%m-%d %H:%M:%S", ev.time), ms = ev.time_ms, gs1 = ev.modifiers[1], id = ev.symbology_id }
            end }
            """)
        let line = #"{"symbology":"code128","text":"0109506000134352","time":1764662400.25,"symbology_id":"]C1"}"# + "\n"
        let r = try CLI.run(["simulate", "--no-default-scripts", "--script", clock], stdin: Data(line.utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        let p = try XCTUnwrap(r.records.first?["payload"] as? [String: Any])
        XCTAssertEqual(p["day"] as? String, "2025-12-02 08:00:00")
        XCTAssertEqual(p["ms"] as? Int, 1764662400250)
        XCTAssertEqual(p["gs1"] as? String, "gs1", "]C1 says FNC1 first")
        XCTAssertEqual(p["id"] as? String, "]C1")
        // With the shipped handlers, GS1-128 from a mock scan parses as GS1.
        let gs1 = try CLI.run(["simulate"], stdin: Data(line.utf8))
        XCTAssertEqual((gs1.records.first?["payload"] as? [String: Any])?["type"] as? String, "gs1")
        // The same in a Lua test, and a typo is an error at its line.
        try write("t/sim_test.lua", """
            describe("mock scans", function()
              it("carry time and GS1", function()
                local r = scan.simulate { symbology = "code128", text = "0109506000134352", modifiers = { "gs1" }, time = 1764662400 }
                expect(r.payload.type).to_equal("gs1")
              end)
              it("refuse unknown fields", function()
                expect(function() scan.simulate { text = "x", tiem = 5 } end).to_fail("sim_test.lua:7: scan.simulate: unknown field 'tiem'")
              end)
            end)
            """)
        let t = try CLI.run(["test", dir.appendingPathComponent("t").path])
        XCTAssertTrue(t.stdout.hasSuffix("2 passed, 0 failed\n"), t.stdout)
        let unknown = try CLI.run(["simulate"], stdin: Data(#"{"text":"x","tme":5}"#.utf8 + [0x0A]))
        XCTAssertEqual(unknown.records.first?["error"] as? String,
                       "unknown field 'tme' (known: symbology, text, bytes, source, time, modifiers, symbology_id, siblings)")
        let sym = try CLI.run(["simulate", "--symbology", "code-11", "--text", "x"])
        XCTAssertEqual(sym.status, 2)
        XCTAssertTrue(sym.stderr.contains("unknown symbology 'code-11'"), sym.stderr)
    }

    /// Item 11: a Lua decoder's symbology is a --symbologies name, a list without it turns it
    /// off, --disable names it; a wrong return type is reported at the decode function's line; a
    /// value carries fields to its parser; a Lua test runs the decoders on an image file and
    /// sees its scan lines, which say where the image's edge cuts a quiet zone.
    func testLuaDecodersAreNamedDisabledLocatedAndTestable() throws {
        let pharma = CLI.packageRoot.appendingPathComponent("examples/new-code-type/pharmacode.lua").path
        let image = CLI.packageRoot.appendingPathComponent("examples/new-code-type/images/pharma-1234-s1.png").path
        func texts(_ args: [String]) throws -> [String] {
            try CLI.run(["scan", "--no-default-scripts", "--script", pharma] + args + [image]).records.compactMap { r in
                (r["symbology"] as? String).map { "\($0):\(r["text"] as? String ?? "")" }
            }
        }
        XCTAssertEqual(try texts([]), ["pharmacode:1234"])
        XCTAssertEqual(try texts(["--symbologies", "pharmacode"]), ["pharmacode:1234"])
        XCTAssertEqual(try texts(["--symbologies", "qrcode"]), [], "a list without it turns the Lua decoder off")
        XCTAssertEqual(try texts(["--disable", "pharmacode"]), [])
        let typo = try CLI.run(["scan", "--no-default-scripts", "--script", pharma, "--symbologies", "pharmacod", image])
        XCTAssertEqual(typo.status, 2)
        XCTAssertTrue(typo.stderr.contains("unknown symbology 'pharmacod' (did you mean 'pharmacode'?)"), typo.stderr)

        let wrong = try write("wrong.lua", """
            local scan = require "scan"
            scan.decoder { name = "dots", kind = "linear",
              decode = function(line) return 42 end }
            """)
        let w = try CLI.run(["scan", "--no-default-scripts", "--script", wrong, image])
        XCTAssertEqual(w.status, 3, "a failing Lua decoder counts as a script error")
        XCTAssertTrue(w.stderr.contains("decoder 'dots' on \(image): \(wrong):3: decode must return nil, a string"), w.stderr)

        let bars = try write("bars.lua", """
            local scan = require "scan"
            scan.decoder { name = "bars", kind = "linear", min_lines = 1,
              decode = function(line) return { text = "B" .. #line.widths, fields = { bars = (#line.widths + 1) // 2 } } end }
            scan.parser { name = "bars", symbologies = "bars", parse = function(ev) return { bars = ev.fields.bars } end }
            """)
        try write("fields_test.lua", """
            require "bars"
            describe("a decoder in a test", function()
              it("reads an image file", function()
                local found = scan.decode_file("\(image)")
                expect(#found).to_be(1)
                expect(found[1].symbology).to_equal("bars")
                local r = scan.simulate { symbology = "bars", text = found[1].text }
                expect(r.payload.type).to_equal("bars")
                expect(r.payload.bars).to_equal(found[1].fields.bars)
                -- A simulated event's own fields win over what decode_file kept for the same bytes.
                local own = scan.simulate { symbology = "bars", text = found[1].text, fields = { bars = 99 } }
                expect(own.payload.bars).to_equal(99)
              end)
              it("shows its scan lines", function()
                local lines = scan.scan_lines("\(image)", { directions = "rows", step = 8 })
                expect(#lines > 0).to_be(true)
                local line = lines[#lines // 2]
                expect(line.direction).to_equal("row")
                expect(line.edge_before).to_be(true)
                expect(line.edge_after).to_be(true)
                expect(#line.widths % 2).to_be(1)
              end)
            end)
            """)
        let t = try CLI.run(["test", "--no-default-scripts", dir.appendingPathComponent("fields_test.lua").path])
        XCTAssertTrue(t.stdout.hasSuffix("2 passed, 0 failed\n"), t.stdout)
        // The fields reach the parser in a scan too.
        let s = try CLI.run(["scan", "--no-default-scripts", "--script", bars, image])
        let payload = s.records.first { $0["symbology"] as? String == "bars" }?["payload"] as? [String: Any]
        XCTAssertEqual(payload?["bars"] as? Int, 10, s.stdout)
    }

    /// After a review: what a new user tripped over next.
    func testRequireAfterScriptRollbackTimeBoundsViewsAndEmptyTestFiles() throws {
        try write("h/ticket.lua", """
            local scan = require "scan"
            local M = {}
            function M.seat(text) return text:match("^T:(%w+)") end
            scan.parser { name = "ticket", match = "^T:", parse = function(ev)
              return { seat = M.seat(ev.text), box = ev.bbox, fields = ev.fields }
            end }
            scan.rule { name = "import", on = "ticket", run = function(p)
              require("store").exec("CREATE TABLE IF NOT EXISTS seen (seat TEXT)")
              require("store").exec("INSERT INTO seen VALUES (?)", { p.seat })
              if p.seat == "BAD" then error("refused") end
            end }
            return M
            """)
        try write("h/ticket_test.lua", """
            local ticket = require "ticket"
            describe("ticket", function()
              it("is the module table under --script too", function() expect(ticket.seat("T:A1")).to_equal("A1") end)
              it("rolls back what a failing rule wrote", function()
                scan.simulate { text = "T:OK" }
                scan.simulate { text = "T:BAD" }
                local rows = require("store").query("SELECT seat FROM seen ORDER BY seat")
                expect(#rows).to_be(1)
              end)
              it("writes an event's views as their tables", function()
                expect(scan.simulate { text = "T:A1", fields = { row = 3 } }.payload.fields.row).to_be(3)
              end)
              it("refuses what no scan could give", function()
                expect(function() scan.simulate { text = "T:A1", symbology = "code-11" } end).to_fail("unknown symbology 'code%-11'")
                expect(function() scan.simulate { text = "T:A1", time = 1e20 } end).to_fail("'time' must be seconds since 1970")
              end)
              it("removes a handle once", function()
                local h = scan.rule { name = "tmp", run = function() end }
                expect(scan.remove(h)).to_be(true)
                expect(scan.remove(h)).to_be(false)
              end)
            end)
            """)
        let t = try CLI.run(["test", "--no-default-scripts", "--script", dir.appendingPathComponent("h/ticket.lua").path, dir.appendingPathComponent("h").path])
        XCTAssertTrue(t.stdout.hasSuffix("5 passed, 0 failed\n"), t.stdout)
        // The record writes ev.bbox as the object it shows (it was {"<table>":{...}}).
        let r = try CLI.run(["simulate", "--no-default-scripts", "--script", dir.appendingPathComponent("h/ticket.lua").path,
                             "--db", dir.appendingPathComponent("s.db").path, "--text", "T:A1"])
        XCTAssertTrue(r.stdout.contains(#""box":{"height":0,"width":0,"x":0,"y":0}"#), r.stdout)
        let huge = try CLI.run(["simulate", "--no-default-scripts"], stdin: Data(#"{"text":"x","time":1e20}"#.utf8 + [0x0A]))
        XCTAssertEqual(huge.records.first?["error"] as? String, "'time' must be a number of seconds since 1970, of a year from 1 to 9999")
        try write("empty/nothing_test.lua", "local x = 1\n")
        let empty = try CLI.run(["test", dir.appendingPathComponent("empty").path])
        XCTAssertEqual(empty.status, 1)
        XCTAssertTrue(empty.stderr.contains("the test file defines no test (it): nothing was tested"), empty.stderr)
    }

    /// Item 12: the smaller traps, each with a message that says what to do.
    func testSmallTrapsSayWhatToDo() throws {
        let os = try write("os.lua", #"require("scan").parser { name = "o", parse = function() os.execute("ls") end }"#)
        let r = try CLI.run(["simulate", "--no-default-scripts", "--script", os, "--text", "x"])
        let message = (r.records.first?["errors"] as? [[String: Any]])?.first?["message"] as? String ?? ""
        XCTAssertTrue(message.contains("os.lua:1: os.execute is not available in the sandbox: scripts run sandboxed unless trusted (--trust"), message)

        let emit = try write("emit.lua", #"require("scan").rule { name = "e", run = function(p, ctx) ctx.emit { f = function() end } end }"#)
        let e = try CLI.run(["simulate", "--no-default-scripts", "--script", emit, "--text", "x"])
        XCTAssertNil(e.records.first?["emitted"], "not \"<function>\"")
        XCTAssertTrue(((e.records.first?["errors"] as? [[String: Any]])?.first?["message"] as? String ?? "")
                        .contains("emit.lua:1: ctx.emit: field 'f' is a function, which has no JSON form"), e.stdout)

        let types = try write("types.lua", """
            local scan = require "scan"
            scan.parser { name = "five", match = "^5", parse = function() return { type = 5 } end }
            scan.parser { name = "ticket", types = "ticket", match = "^T", parse = function() return { type = "coupon" } end }
            """)
        let five = try CLI.run(["simulate", "--no-default-scripts", "--script", types, "--text", "5"])
        XCTAssertEqual((five.records.first?["payload"] as? [String: Any])?["type"] as? String, "raw")
        XCTAssertTrue(((five.records.first?["errors"] as? [[String: Any]])?.first?["message"] as? String ?? "").contains("types.lua:2: payload.type must be a string, got number"))
        let coupon = try CLI.run(["simulate", "--no-default-scripts", "--script", types, "--text", "T1"])
        XCTAssertTrue(((coupon.records.first?["errors"] as? [[String: Any]])?.first?["message"] as? String ?? "")
                        .contains("types.lua:3: payload.type 'coupon' is not among the parser's types"), coupon.stdout)

        let spec = try write("spec.lua", """
            local scan = require "scan"
            scan.parser { name = "b", pars = function() end }
            """)
        let s = try CLI.run(["simulate", "--no-default-scripts", "--script", spec, "--text", "x"])
        XCTAssertEqual(s.status, 2)
        XCTAssertEqual(s.stderr, "scanlua: \(spec):2: scan.parser: unknown field 'pars'; did you mean 'parse'? (fields: name, parse, match, symbologies, priority, when, types)\n",
                       "no prelude stack trace")

        let typo = dir.appendingPathComponent("typo.db").path
        let run = try write("report.lua", #"for _, r in ipairs(require("store").query("SELECT name FROM inventory")) do print(r.name) end"#)
        let rr = try CLI.run(["run", "--db", typo, run])
        XCTAssertEqual(rr.status, 1)
        XCTAssertTrue(rr.stderr.contains("no such table: inventory"), rr.stderr)
        XCTAssertTrue(rr.stderr.contains("\(typo) did not exist before this run: it was not kept"), rr.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: typo), "no empty file left behind")
        // A script that succeeds keeps the database it started (an import).
        let importer = try write("import.lua", #"require("store").exec("CREATE TABLE t (x)")"#)
        XCTAssertEqual(try CLI.run(["run", "--db", typo, importer]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: typo))

        // A script that uses the store without --db is told which store that is.
        let home = dir.appendingPathComponent("xdg").path
        let store = try write("store.lua", #"require("scan").rule { name = "s", run = function() require("store").once("k") end }"#)
        let st = try CLI.run(["simulate", "--no-default-scripts", "--script", store, "--text", "x"], env: ["XDG_DATA_HOME": home])
        XCTAssertTrue(st.stderr.contains("scanlua: store: \(home)/scanlua/scanlua.db, the default store (--db or the config's db names another)"), st.stderr)
    }

    /// A handler removed or registered by a handler while an event is dispatched stops at once
    /// and leaves (or joins) the lists after that event: the others run as they would have (the
    /// loop used to meet the shifted list: "attempt to index a nil value (local 'p')").
    func testHandlersRemovedOrAddedDuringAnEventChangeTheListsAfterIt() throws {
        let s = try write("change.lua", """
            local scan = require "scan"
            local p, r
            p = scan.parser { name = "p", priority = 10, match = "^A", parse = function(ev)
              if ev.text == "A2" then scan.remove(p) end
            end }
            scan.parser { name = "q", priority = 5, parse = function(ev)
              if ev.text == "A2" then
                scan.rule { name = "late", run = function(pl, ctx) ctx.emit { late = pl.n } end }
              end
              return { type = "q", n = ev.text }
            end }
            r = scan.rule { name = "r", run = function(pl, ctx)
              if pl.n == "A3" then scan.remove(r) end
              ctx.emit { r = pl.n }
            end }
            scan.rule { name = "s", run = function(pl, ctx) ctx.emit { s = pl.n } end }
            """)
        let input = ["A1", "A2", "A3", "A4"].map { "{\"text\":\"\($0)\"}\n" }.joined()
        let out = try CLI.run(["simulate", "--no-default-scripts", "--script", s], stdin: Data(input.utf8))
        XCTAssertEqual(out.status, 0, out.stdout + out.stderr)
        let emitted = out.records.map { (($0["emitted"] as? [[String: Any]]) ?? []).map { e in
            e.filter { $0.key != "rule" }.map { "\($0.key)=\($0.value)" }.joined() } }
        XCTAssertEqual(out.records.map { ($0["payload"] as? [String: Any])?["type"] as? String }, ["q", "q", "q", "q"], out.stdout)
        XCTAssertEqual(emitted, [["r=A1", "s=A1"], ["r=A2", "s=A2"], ["r=A3", "s=A3", "late=A3"], ["s=A4", "late=A4"]], out.stdout)
        XCTAssertFalse(out.stdout.contains("errors"), out.stdout)
    }

    /// What the dispatcher checks of a parser's value (read raw in C by limits.parse, or in Lua
    /// after a `when`): a value that is not a table is an error and the next parser gets the
    /// symbol; a `type` that only a metatable gives is not read (the parser's name is used).
    func testAParsersValueIsCheckedRawWithOrWithoutWhen() throws {
        let parsers = try write("values.lua", """
            local scan = require "scan"
            scan.parser { name = "word", match = "^W", parse = function() return "nope" end }
            scan.parser { name = "guarded", match = "^W", when = function(ev) return #ev.text > 2 end,
              parse = function(ev) return { type = "guarded", n = #ev.text } end }
            scan.parser { name = "meta", match = "^M", parse = function() return setmetatable({ k = 1 }, { __index = { type = "other" } }) end }
            """)
        let w = try CLI.run(["simulate", "--no-default-scripts", "--script", parsers, "--text", "W12"])
        XCTAssertEqual((w.records.first?["payload"] as? [String: Any])?["type"] as? String, "guarded", w.stdout)
        XCTAssertEqual((w.records.first?["payload"] as? [String: Any])?["n"] as? Int, 3)
        XCTAssertTrue(((w.records.first?["errors"] as? [[String: Any]])?.first?["message"] as? String ?? "")
                        .contains("values.lua:2: parse must return a table or nil, got string"), w.stdout)
        let short = try CLI.run(["simulate", "--no-default-scripts", "--script", parsers, "--text", "W1"])
        XCTAssertEqual((short.records.first?["payload"] as? [String: Any])?["type"] as? String, "raw", short.stdout)
        let m = try CLI.run(["simulate", "--no-default-scripts", "--script", parsers, "--text", "M1"])
        XCTAssertEqual((m.records.first?["payload"] as? [String: Any])?["type"] as? String, "meta", m.stdout)
        XCTAssertNil(m.records.first?["errors"], m.stdout)

        // A payload that cannot be written (a cycle) is raw, with an error naming its parser's line.
        let cycle = try write("cycle.lua", """
            require("scan").parser { name = "loop", parse = function()
              local t = { type = "loop" }; t.self = t; return t end }
            """)
        let c = try CLI.run(["simulate", "--no-default-scripts", "--script", cycle, "--text", "x"])
        XCTAssertEqual((c.records.first?["payload"] as? [String: Any])?["type"] as? String, "raw", c.stdout)
        let error = (c.records.first?["errors"] as? [[String: Any]])?.first
        XCTAssertEqual(error?["parser"] as? String, "loop", c.stdout)
        XCTAssertTrue((error?["message"] as? String ?? "").hasSuffix("cycle.lua:1: the payload is not JSON: table nests deeper than 64 levels (a cycle?)"), c.stdout)

        // A read-only view (a frozen library, the event) is not a payload: its `type` would be
        // set in a table every handler shares.
        let views = try write("views.lua", """
            local scan = require "scan"
            scan.parser { name = "lib", match = "^L", parse = function() return string end }
            scan.parser { name = "event", match = "^E", when = function() return true end, parse = function(ev) return ev end }
            scan.parser { name = "check", parse = function() return { type = "check", polluted = rawget(string, "type") ~= nil } end }
            """)
        let input = ["L1", "E1", "X1"].map { "{\"text\":\"\($0)\"}\n" }.joined()
        let v = try CLI.run(["simulate", "--no-default-scripts", "--script", views], stdin: Data(input.utf8))
        XCTAssertEqual(v.records.count, 3, v.stdout)
        for (record, line) in zip(v.records.prefix(2), [2, 3]) {
            XCTAssertTrue(((record["errors"] as? [[String: Any]])?.first?["message"] as? String ?? "")
                            .hasSuffix("views.lua:\(line): parse must return a table or nil, got a read-only view (return a table of your own)"), v.stdout)
        }
        XCTAssertEqual(v.records.map { ($0["payload"] as? [String: Any])?["polluted"] as? Bool }, [false, false, false], v.stdout)

        // An error object that is not a string names the line that raised it.
        let object = try write("object.lua", """
            require("scan").parser { name = "obj", parse = function()
              error({ code = 1 }) end }
            """)
        let o = try CLI.run(["simulate", "--no-default-scripts", "--script", object, "--text", "x"])
        XCTAssertTrue(((o.records.first?["errors"] as? [[String: Any]])?.first?["message"] as? String ?? "")
                        .hasSuffix("object.lua:2: (error object is a table value)"), o.stdout)
    }
}
