import Foundation
import XCTest

/// End-to-end: scripts through scan, simulate and test, as a user runs them.
final class ScriptCommandTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-cli-\(UUID().uuidString)")
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

    let tenLineHandler = """
        local scan = require "scan"
        scan.parser {
          name = "invoice-right",
          symbologies = { "qrcode" },
          match = "^%*%*",
          parse = function(ev)
            return { type = "invoice-right", items = ev.text:sub(3), pair = ev.siblings[1] and #ev.siblings[1].text }
          end,
        }
        """

    func testATenLineHandlerRunsUnderScanSimulateAndTest() throws {
        let handler = try write("my.lua", tenLineHandler)
        // Without the shipped library, whose e-invoice parser would claim these codes first.
        let scan = try CLI.run(["scan", "--no-default-scripts", "--script", handler, CLI.fixture("einvoice-photo.jpg")])
        XCTAssertEqual(scan.status, 0, scan.stderr)
        let right = try XCTUnwrap(scan.records.first { ($0["text"] as? String)?.hasPrefix("**") == true })
        let payload = try XCTUnwrap(right["payload"] as? [String: Any])
        XCTAssertEqual(payload["type"] as? String, "invoice-right")
        XCTAssertEqual(payload["items"] as? String, "口罩:1:210:牛奶:1:25")
        XCTAssertEqual(payload["pair"] as? Int, 111, "the left code (111 bytes) is its sibling")
        let left = try XCTUnwrap(scan.records.first { ($0["text"] as? String)?.hasPrefix("AB") == true })
        XCTAssertEqual((left["payload"] as? [String: Any])?["type"] as? String, "raw")

        let sim = try CLI.run(["simulate", "--no-default-scripts", "--script", handler, "--text", "**牛奶:1:25"])
        XCTAssertEqual(sim.status, 0, sim.stderr)
        XCTAssertEqual((sim.records.first?["payload"] as? [String: Any])?["items"] as? String, "牛奶:1:25")

        try write("my_test.lua", """
            require "my"
            describe("my handler", function()
              it("claims right codes", function()
                expect(scan.simulate { text = "**x:1:2" }.payload.items).to_equal("x:1:2")
              end)
            end)
            """)
        let test = try CLI.run(["test", "--no-default-scripts", dir.path])
        XCTAssertEqual(test.status, 0, test.stdout)
        XCTAssertTrue(test.stdout.hasSuffix("1 passed, 0 failed\n"), test.stdout)
    }

    func testErrorLoopAndHogGiveErrorsOnTheRecordWhileTheRestGoesOn() throws {
        let handler = try write("bad.lua", """
            local scan = require "scan"
            scan.parser { name = "crash", symbologies = "qrcode", match = "^https", priority = 90, parse = function(ev)
              return ev.nothing.here
            end }
            scan.parser { name = "spin", symbologies = "ean13", priority = 90, parse = function(ev)
              while true do end
            end }
            scan.parser { name = "hog", symbologies = "code128", priority = 90, parse = function(ev)
              local t = {} for i = 1, 1e9 do t[i] = ("x"):rep(1 << 20) .. i end
            end }
            scan.rule { name = "count", run = function(p, ctx) ctx.emit { type = "seen", payload = p.type } end }
            """)
        let r = try CLI.run(["scan", "--script", handler, "--instruction-limit", "2000000", "--memory-limit", "64",
                             CLI.fixture("several.png"), CLI.fixture("code39.png")])
        XCTAssertEqual(r.status, 3, "records carry script errors: \(r.stderr)")
        let records = r.records
        XCTAssertEqual(records.count, 4, "every decoded symbol still gets its record")
        func record(_ symbology: String) -> [String: Any]? { records.first { $0["symbology"] as? String == symbology } }
        func firstError(_ symbology: String) -> String {
            ((record(symbology)?["errors"] as? [[String: Any]])?.first?["message"] as? String) ?? "none"
        }
        XCTAssertTrue(firstError("qrcode").hasSuffix("bad.lua:3: attempt to index a nil value (field 'nothing')"), firstError("qrcode"))
        XCTAssertTrue(firstError("ean13").hasSuffix("bad.lua:6: instruction budget exceeded (2000000 instructions)"), firstError("ean13"))
        XCTAssertTrue(firstError("code128").hasSuffix("bad.lua:8: memory limit exceeded (64 MiB)"), firstError("code128"))
        XCTAssertEqual((record("code128")?["errors"] as? [[String: Any]])?.first?["parser"] as? String, "hog")
        XCTAssertEqual(firstError("code39"), "none")
        // The failing parser fell through to the shipped url parser; the rule ran on every symbol.
        XCTAssertEqual((record("qrcode")?["payload"] as? [String: Any])?["type"] as? String, "url")
        for s in ["qrcode", "ean13", "code128", "code39"] {
            XCTAssertEqual((record(s)?["emitted"] as? [[String: Any]])?.count, 1, s)
        }
    }

    func testSyntaxErrorStopsBeforeScanningWithExit2() throws {
        let bad = try write("syntax.lua", "scan.parser {\n  name = 'x',\n  parse = function(ev) return { end,\n}\n")
        let r = try CLI.run(["scan", "--script", bad, CLI.fixture("qrcode.png")])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stdout, "", "nothing was scanned")
        XCTAssertTrue(r.stderr.contains("syntax.lua:3: unexpected symbol near 'end'"), r.stderr)
        let missing = try CLI.run(["scan", "--script", dir.appendingPathComponent("nope.lua").path, CLI.fixture("qrcode.png")])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("nope.lua: cannot read script: No such file or directory"), missing.stderr)
    }

    func testActionsAreCarriedOutOrOnlyPrintedWithDryRun() throws {
        let handler = try write("act.lua", """
            local scan = require "scan"
            scan.rule { name = "log", on = "url", run = function(p)
              return { { type = "append", path = "seen.txt", line = p.host }, { type = "append", path = "../escape.txt", line = "x" } }
            end }
            """)
        let dry = try CLI.run(["scan", "--dry-run", "--script", handler, CLI.fixture("qrcode.png")], cwd: dir)
        let dryActions = try XCTUnwrap(dry.records.first?["actions"] as? [[String: Any]])
        XCTAssertEqual(dryActions.map { $0["status"] as? String }, ["dry-run", "dry-run"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("seen.txt").path))

        let real = try CLI.run(["scan", "--script", handler, CLI.fixture("qrcode.png"), CLI.fixture("qrcode.png")], cwd: dir)
        let actions = try XCTUnwrap(real.records.first?["actions"] as? [[String: Any]])
        XCTAssertEqual(actions[0]["status"] as? String, "done")
        XCTAssertEqual(actions[0]["rule"] as? String, "log")
        XCTAssertEqual(actions[1]["status"] as? String, "failed")
        XCTAssertEqual(actions[1]["error"] as? String,
                       "../escape.txt: append is limited to paths below the working directory (use --trust to lift this)")
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("seen.txt"), encoding: .utf8), "example.com\nexample.com\n")
    }

    func testStopActionEndsTheScan() throws {
        let handler = try write("stop.lua", """
            local scan = require "scan"
            scan.rule { name = "first", on = "url", run = function() return { type = "stop" } end }
            """)
        let r = try CLI.run(["scan", "--raw", "--script", handler, CLI.fixture("ean13.png"), CLI.fixture("qrcode.png"), CLI.fixture("code39.png")])
        XCTAssertEqual(r.stdout, "4719512002889\nhttps://example.com/scanlua\n")
        XCTAssertEqual(r.status, 0)
    }

    /// Mistakes in a spec stop the load at the user's file:line, not inside scanlua's prelude.
    func testSpecMistakesAreErrorsAtTheUsersLine() throws {
        let cases: [(String, String)] = [
            ("scan.parser { name = 'a', symbology = 'qrcode', parse = function() end }",
             "scan.parser: unknown field 'symbology'; did you mean 'symbologies'? (fields: name, parse, match, symbologies, priority, when, types)"),
            ("scan.parser { name = 'a', symbologies = { 'qrcode', 'qr' }, parse = function() end }",
             "scan.parser: unknown symbology 'qr' in 'symbologies' (built in: qrcode, ean13,"),
            ("scan.parser { parse = function() end }", "scan.parser: 'name' must be a non-empty string"),
            ("scan.rule { name = 'r', onn = 'url', run = function() end }", "scan.rule: unknown field 'onn'; did you mean 'on'?"),
            ("scan.summary { type = 'x', format = function() end, colour = 'red' }", "scan.summary: unknown field 'colour'"),
            ("scan.parser { name = 'a', types = 7, parse = function() end }", "scan.parser: 'types' must be a string or a list of strings"),
        ]
        for (spec, message) in cases {
            let path = try write("spec.lua", "local scan = require 'scan'\n\n" + spec + "\n")
            let r = try CLI.run(["simulate", "--no-default-scripts", "--script", path, "--text", "x"])
            XCTAssertEqual(r.status, 2, spec)
            XCTAssertTrue(r.stderr.contains("spec.lua:3: " + message), "\(spec)\n\(r.stderr)")
        }
        // A Lua decoder's symbology may key a parser once the decoder is registered.
        let ok = try write("ok.lua", """
            local scan = require 'scan'
            scan.decoder { name = 'dots', kind = 'image', decode = function() end }
            scan.parser { name = 'dotty', symbologies = 'dots', parse = function() end }
            """)
        XCTAssertEqual(try CLI.run(["simulate", "--no-default-scripts", "--script", ok, "--text", "x"]).status, 0)
    }

    /// A rule's `on` naming a payload type no parser declares (a typo) is a warning at the rule's
    /// line, once everything is loaded; the load and the scan go on.
    func testARuleOnAnUnknownPayloadTypeIsAWarning() throws {
        let path = try write("rules.lua", """
            local scan = require 'scan'
            scan.rule { name = 'typo', on = { 'prodcut', 'url' }, run = function() end }
            scan.rule { name = 'mine', on = 'ticket', run = function() end }
            scan.rule { name = 'all', run = function() end }
            scan.rule { name = 'plain', on = 'raw', run = function() end }
            scan.parser { name = 'ticket', types = { 'ticket' }, match = '^T:', parse = function() return { type = 'ticket' } end }
            """)
        let r = try CLI.run(["simulate", "--script", path, "--text", "https://example.com/"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual((r.records.first?["payload"] as? [String: Any])?["type"] as? String, "url", "the scan goes on")
        let warnings = r.stderr.split(separator: "\n").filter { $0.contains("warning:") }
        XCTAssertEqual(warnings.count, 1, r.stderr)
        XCTAssertTrue(warnings.first?.hasPrefix("scanlua: warning: ") ?? false, r.stderr)
        XCTAssertTrue(warnings.first?.contains("rules.lua:2: scan.rule 'typo': no parser returns payload type 'prodcut' (did you mean 'product'?) (known: ") ?? false,
                      r.stderr)
        XCTAssertTrue(warnings.first?.contains("product, ") ?? false, "the shipped parsers' types are known: \(r.stderr)")
        XCTAssertTrue(warnings.first?.hasSuffix("; a parser declares what it returns in 'types')") ?? false, r.stderr)
        // The shipped handlers and examples load without a warning (in a scratch directory: the
        // examples' configs create their databases in the working directory).
        let examples = CLI.packageRoot.appendingPathComponent("examples").path
        for args in [["simulate", "--text", "x"], ["simulate", "--config", examples + "/household/init.lua", "--text", "x"],
                     ["simulate", "--config", examples + "/forwarding/init.lua", "--text", "x"],
                     ["simulate", "--script", examples + "/first-handler/shelf_check.lua", "--script", examples + "/new-code-type/shelf-label.lua", "--text", "x"]] {
            let clean = try CLI.run(args, cwd: dir)
            XCTAssertFalse(clean.stderr.contains("warning:"), "\(args): \(clean.stderr)")
        }
    }

    /// `scanlua test --script t/ticket.lua t` whose test does `require "ticket"`: the module the
    /// script flag loaded is given back, not run a second time ("already registered" before).
    func testATestMayRequireTheScriptItWasGiven() throws {
        _ = try write("t/ticket.lua", """
            require("scan").parser { name = "ticket", match = "^TICKET:", parse = function(ev) return { type = "ticket", id = ev.text:sub(8) } end }
            """)
        _ = try write("t/ticket_test.lua", """
            require "ticket"
            describe("ticket", function()
              it("parses", function() expect(scan.simulate { text = "TICKET:A1" }.payload.id).to_equal("A1") end)
            end)
            """)
        let r = try CLI.run(["test", "--no-default-scripts", "--script", "t/ticket.lua", "t"], cwd: dir)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.hasSuffix("1 passed, 0 failed\n"), r.stdout)
    }

    /// `--disable NAME` and the config's `disable` switch off one handler, shipped ones included.
    func testDisableSwitchesOffOneShippedHandler() throws {
        func type(_ r: CLI.Result) -> String? { (r.records.first?["payload"] as? [String: Any])?["type"] as? String }
        XCTAssertEqual(type(try CLI.run(["simulate", "--text", "https://example.com/"])), "url")
        XCTAssertEqual(type(try CLI.run(["simulate", "--disable", "url", "--text", "https://example.com/"])), "raw")
        XCTAssertEqual(type(try CLI.run(["simulate", "--disable", "url", "--text", "4719512002889", "--symbology", "ean13"])), "product",
                       "only that one")
        let config = try write("disable.lua", "require('scan').options { disable = { 'url', 'product' } }\n")
        XCTAssertEqual(type(try CLI.run(["simulate", "--config", config, "--text", "https://example.com/"])), "raw")
        let unknown = try CLI.run(["simulate", "--disable", "nope", "--text", "x"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("--disable: no parser, rule or decoder is named 'nope' (there are: contact, gs1,"), unknown.stderr)
    }

    /// Priority decides across keyed and heuristic parsers: a user's heuristic with priority 90
    /// beats the shipped url parser (keyed, priority 10); with the default 0 it does not.
    func testPriorityDecidesAcrossKeyedAndHeuristicParsers() throws {
        for (priority, expected) in [(90, "mine"), (0, "url")] {
            let path = try write("mine.lua", "require('scan').parser { name = 'mine', priority = \(priority), match = '^https', parse = function() return {} end }\n")
            let r = try CLI.run(["simulate", "--script", path, "--text", "https://example.com/"])
            XCTAssertEqual((r.records.first?["payload"] as? [String: Any])?["type"] as? String, expected, "priority \(priority)")
        }
    }

    /// Every registration returns a handle; scan.remove takes it away (and frees its name).
    func testEveryRegistrationReturnsAHandleThatRemoveTakesAway() throws {
        let path = try write("handles.lua", """
            local scan = require "scan"
            local p = scan.parser { name = "p", parse = function() return { type = "p" } end }
            local r = scan.rule { name = "r", run = function(_, ctx) ctx.emit { type = "ran" } end }
            local s = scan.summary { type = "p", format = function() return "P" end }
            local h = scan.on_stop(function() end)
            local d = scan.decoder { name = "dots", kind = "image", decode = function() end }
            assert(p.kind == "parser" and p.name == "p" and r.kind == "rule" and d.kind == "decoder")
            assert(scan.remove(p) == true and scan.remove(r) == true and scan.remove(s) and scan.remove(h) and scan.remove(d))
            assert(not pcall(function() p.name = "x" end), "handles are read-only")
            local ok, err = pcall(scan.remove, { kind = "parser", name = "p" })
            assert(not ok and err:find("expected a handle"), err)
            scan.parser { name = "again", parse = function(ev) if ev.text == "again" then return { type = "again" } end end }
            scan.rule { name = "r", run = function() end }  -- the name is free again
            """)
        let r = try CLI.run(["simulate", "--no-default-scripts", "--script", path, "--text", "x"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual((r.records.first?["payload"] as? [String: Any])?["type"] as? String, "raw", "the removed parser is gone")
        XCTAssertNil(r.records.first?["emitted"], "the removed rule is gone")
    }

    /// A store error in a rule names the rule's line.
    func testStoreErrorsCarryTheScriptLine() throws {
        let path = try write("st.lua", """
            local store = require "store"
            require("scan").rule { name = "r", run = function()
              store.exec("INSERT INTO nowhere VALUES (?)", { 1 })
            end }
            """)
        let r = try CLI.run(["simulate", "--no-default-scripts", "--db", dir.appendingPathComponent("st.db").path, "--script", path, "--text", "x"])
        let message = ((r.records.first?["errors"] as? [[String: Any]])?.first?["message"] as? String) ?? ""
        XCTAssertTrue(message.hasSuffix("st.lua:3: store: no such table: nowhere (SQLite error 1 in: INSERT INTO nowhere VALUES (?))"), message)
    }

    /// `scanlua run SCRIPT --help` hands --help to the script.
    func testRunPassesHelpToTheScript() throws {
        let script = try write("args.lua", "print('args: ' .. table.concat(arg, ' '))\n")
        let r = try CLI.run(["run", script, "--help", "x"])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stdout, "args: --help x\n")
    }

    /// A list field stays a JSON list when empty (json.array, honoured by the record encoder).
    func testEmptyWarningsAreAJSONList() throws {
        let r = try CLI.run(["simulate", "--text", "https://example.com/"])
        XCTAssertTrue(r.stdout.contains(#""warnings":[]"#), r.stdout)
        let marked = try write("marked.lua", """
            local json = require "json"
            require("scan").parser { name = "m", parse = function() return { type = "m", none = json.array(), empty = {} } end }
            """)
        let m = try CLI.run(["simulate", "--no-default-scripts", "--script", marked, "--text", "x"])
        XCTAssertTrue(m.stdout.contains(#""payload":{"type":"m","empty":{},"none":[]}"#), m.stdout)
    }

    func testConfigFileSetsOptionsAndLoadsHandlers() throws {
        try write("handlers/tagger.lua", """
            local scan = require "scan"
            scan.parser { name = "tag", parse = function(ev) return { type = "tagged", text = ev.text } end }
            """)
        try write("scanlua.lua", """
            local scan = require "scan"
            scan.options { default_scripts = false, max_failures = 2 }
            require "handlers.tagger"
            """)
        // ./scanlua.lua is picked up from the working directory once trusted; default scripts are off, so url does not claim.
        let state = ["XDG_STATE_HOME": dir.appendingPathComponent("state").path]
        XCTAssertEqual(try CLI.run(["trust", "scanlua.lua"], cwd: dir, env: state).status, 0)
        // What it requires runs with its powers, so it is trusted file by file too (issue 21).
        XCTAssertEqual(try CLI.run(["trust", "handlers/tagger.lua"], cwd: dir, env: state).status, 0)
        let r = try CLI.run(["simulate", "--text", "https://example.com/"], cwd: dir, env: state)
        XCTAssertEqual((r.records.first?["payload"] as? [String: Any])?["type"] as? String, "tagged", r.stderr)

        let xdg = try write("xdg/scanlua/init.lua", "require('scan').options { default_scripts = false }\n")
        _ = xdg
        let viaXDG = try CLI.run(["simulate", "--text", "https://example.com/"],
                                 env: ["XDG_CONFIG_HOME": dir.appendingPathComponent("xdg").path])
        XCTAssertEqual((viaXDG.records.first?["payload"] as? [String: Any])?["type"] as? String, "raw")

        let bad = try write("bad-config.lua", "require('scan').options { colour = 'blue' }\n")
        let r2 = try CLI.run(["simulate", "--config", bad, "--text", "x"])
        XCTAssertEqual(r2.status, 2)
        XCTAssertTrue(r2.stderr.contains("bad-config.lua:1: scan.options: unknown option 'colour'"), r2.stderr)
    }

    func testSimulateReadsNDJSONWithSiblingsAndReportsBadLines() throws {
        let handler = try write("pair.lua", """
            local scan = require "scan"
            scan.parser { name = "pair", match = "^L", parse = function(ev)
              return { type = "pair", right = ev.siblings[1] and ev.siblings[1].text or false, charset = ev.charset }
            end }
            """)
        let input = """
            {"symbology": "qrcode", "text": "L-left", "siblings": [{"text": "**right"}]}
            not json
            {"bytes": "pGa4bg=="}
            {"symbology": "qrcode"}

            """
        let r = try CLI.run(["simulate", "--no-default-scripts", "--script", handler], stdin: Data(input.utf8))
        XCTAssertEqual(r.status, 1)
        let recs = r.records
        XCTAssertEqual(recs.count, 4)
        XCTAssertEqual((recs[0]["payload"] as? [String: Any])?["right"] as? String, "**right")
        XCTAssertEqual(recs[1]["error"] as? String, "not a JSON object: not json")
        XCTAssertEqual(recs[1]["source"] as? String, "stdin:2")
        XCTAssertEqual(recs[2]["text"] as? String, "口罩")
        XCTAssertEqual(recs[2]["charset"] as? String, "big5")
        XCTAssertEqual(recs[3]["error"] as? String, "needs \"text\" (a string) or \"bytes\" (base64)")
        let hex = try CLI.run(["simulate", "--no-default-scripts", "--symbology", "code128", "--hex", "a4 66 b8 6e"])
        XCTAssertEqual(hex.records.first?["symbology"] as? String, "code128")
        XCTAssertEqual(hex.records.first?["text"] as? String, "口罩")
        XCTAssertEqual(try CLI.run(["simulate", "--hex", "zz"]).status, 2)
    }

    func testTestCommandReportsFailuresWithFileAndLine() throws {
        try write("t/math_test.lua", """
            describe("math", function()
              it("adds", function() expect(1 + 1).to_equal(2) end)
              it("is wrong", function()
                expect({ a = 1 }).to_equal({ a = 2 })
              end)
            end)
            """)
        try write("t/broken_test.lua", "this is not lua\n")
        let r = try CLI.run(["test", dir.appendingPathComponent("t").path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stdout.contains("math_test.lua: math > is wrong\n  "), r.stdout)
        XCTAssertTrue(r.stdout.contains("math_test.lua:4: at .a: expected 2, got 1\n  expected: {a = 2}\n  got:      {a = 1}"), r.stdout)
        XCTAssertTrue(r.stdout.contains("broken_test.lua: could not load"), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("1 passed, 2 failed\n"), r.stdout)
    }

    func testHandlerDisabledAfterFailuresWarnsOnce() throws {
        let handler = try write("flaky.lua", "require('scan').parser { name = 'flaky', parse = function() error('nope') end }\n")
        let input = String(repeating: "{\"text\": \"x\"}\n", count: 4)
        let r = try CLI.run(["simulate", "--max-failures", "2", "--script", handler], stdin: Data(input.utf8))
        XCTAssertEqual(r.records.map { ($0["errors"] as? [Any])?.count ?? 0 }, [1, 1, 0, 0])
        XCTAssertEqual(r.stderr.components(separatedBy: "parser 'flaky'").count - 1, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("disabled after 2 failures in a row; last: "), r.stderr)
        // In text mode the second failure is said before the warning that it disabled the parser.
        let text = try CLI.run(["simulate", "--format", "text", "--max-failures", "2", "--script", handler], stdin: Data(input.utf8))
        let lines = text.stderr.split(separator: "\n").map(String.init)
        let disabled = try XCTUnwrap(lines.firstIndex { $0.contains("disabled after 2 failures") }, text.stderr)
        XCTAssertEqual(lines[..<disabled].filter { $0.contains("nope") }.count, 2, text.stderr)
    }
}

extension ScriptCommandTests {
    /// Random and hostile payloads through `scanlua simulate` with the shipped handlers: every line
    /// gives one record, none with a script error.
    func testSimulateSurvivesHostilePayloadsWithTheShippedHandlers() throws {
        // Seeded, so a failure reproduces: the seed is in every failure message.
        let seed: UInt64 = 0x5CA11A
        var generator = SplitMix64(seed: seed)
        var lines: [String] = []
        let prefixes = ["", "**", "WIFI:", "BCD\n", "SPC\n", "000201", "https://", "BEGIN:VCARD\n", "MECARD:", "(01)",
                        "AB11223344102052399990000014400000154000000000123456"]
        for (i, prefix) in prefixes.enumerated() {
            var bytes = Array(prefix.utf8)
            bytes += (0..<(200 + i * 50)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            lines.append("{\"symbology\": \"qrcode\", \"bytes\": \"\(Data(bytes).base64EncodedString())\"}")
        }
        lines.append("{\"symbology\": \"code128\", \"text\": \"\(String(repeating: ";:\\\\", count: 20000))\"}")
        let r = try CLI.run(["simulate"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.count, lines.count)
        for record in r.records {
            XCTAssertNil(record["errors"], "seed \(seed): \(record)")
            XCTAssertNotNil((record["payload"] as? [String: Any])?["type"] as? String)
        }
    }
}

extension ScriptCommandTests {
    func testLuaTestsGetAnInMemoryStore() throws {
        try write("t/store_test.lua", """
            local store = require "store"
            describe("store in tests", function()
              it("is a fresh in-memory database", function()
                expect(store.path()).to_equal(":memory:")
                store.migrate { [1] = "CREATE TABLE t (x)" }
                store.exec("INSERT INTO t VALUES (?)", { 1 })
                expect(store.query("SELECT x FROM t")).to_equal({ { x = 1 } })
              end)
            end)
            """)
        let r = try CLI.run(["test", dir.appendingPathComponent("t").path], env: ["XDG_DATA_HOME": dir.appendingPathComponent("data").path])
        XCTAssertEqual(r.status, 0, r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("1 passed, 0 failed\n"), r.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("data/scanlua/scanlua.db").path))
    }
}

/// A small seeded generator (SplitMix64), so random tests reproduce.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
