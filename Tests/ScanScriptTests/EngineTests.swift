import Foundation
import ScanCore
import XCTest
@testable import ScanScript

/// Engine tests: each writes a small script, loads it, and pushes events through.
final class EngineTests: XCTestCase {
    var dir: URL!
    var logged: [String] = []
    /// Every engine a test made: the Lua stack of each must be balanced when the test ends.
    var engines: [ScriptEngine] = []

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-engine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        // One slot: the traceback handler pushed at init.
        for e in engines { XCTAssertEqual(e.lua.top, 1, "the Lua stack is unbalanced after the test") }
        engines = []
        try? FileManager.default.removeItem(at: dir)
    }

    /// A fresh engine with the shipped library modules on its path and `source` loaded as `name`.
    func engine(_ source: String, name: String = "handler.lua", limits: ScriptLimits = ScriptLimits()) throws -> ScriptEngine {
        let e = try ScriptEngine(limits: limits, modulePaths: [Self.shippedScripts])
        engines.append(e)
        e.log = { [unowned self] in self.logged.append($0) }
        let path = dir.appendingPathComponent(name).path
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        try e.run(file: path)
        return e
    }

    static var shippedScripts: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts").path
    }

    func event(_ text: String, symbology: String = "qrcode", siblings: [String] = []) -> ScanEvent {
        ScanEvent(symbol: Symbol(symbology: Symbology(rawValue: symbology), bytes: Array(text.utf8)),
                  info: FrameInfo(source: "test.png"),
                  siblings: siblings.map { Symbol(symbology: Symbology(rawValue: "qrcode"), bytes: Array($0.utf8)) })
    }

    func testParserClaimsAndRuleEmitsAndReturnsActions() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.parser {
              name = "greeting",
              symbologies = { "qrcode" },
              match = "^HELLO ",
              parse = function(ev) return { who = ev.text:sub(7), n = #ev.siblings } end,
            }
            scan.rule {
              name = "log-it",
              on = "greeting",
              when = function(p) return p.who ~= "nobody" end,
              run = function(p, ctx)
                ctx.emit { type = "note", message = "hello " .. p.who }
                return { type = "append", path = "out.txt", line = p.who }
              end,
            }
            """)
        let r = e.process(event("HELLO world", siblings: ["x", "y"]))
        XCTAssertEqual(r.parser, "greeting")
        XCTAssertEqual(r.payload.serialized, #"{"type":"greeting","n":2,"who":"world"}"#)
        XCTAssertEqual(r.emitted.map(\.serialized), [#"{"type":"note","message":"hello world","rule":"log-it"}"#])
        XCTAssertEqual(r.actions.map(\.serialized), [#"{"type":"append","line":"world","path":"out.txt","rule":"log-it"}"#])
        XCTAssertEqual(r.errors, [])

        let skipped = e.process(event("HELLO nobody"))
        XCTAssertEqual(skipped.actions, [])
        let raw = e.process(event("something else"))
        XCTAssertEqual(raw.payload.serialized, #"{"type":"raw"}"#)
        XCTAssertNil(raw.parser)
        XCTAssertEqual(e.process(event("HELLO world", symbology: "code128")).payload.serialized, #"{"type":"raw"}"#)
    }

    func testPriorityFirstThenKeyedParsersThenOrder() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "generic-high", priority = 100, parse = function(ev) if ev.text ~= "g" then return nil end return { type = "g" } end }
            scan.parser { name = "generic-same", priority = 5, parse = function() return { type = "g5" } end }
            scan.parser { name = "keyed-low", symbologies = "qrcode", priority = 1, parse = function() return { type = "k1" } end }
            scan.parser { name = "keyed-high", symbologies = "qrcode", priority = 5, parse = function(ev) if ev.text == "pass" then return nil end return { type = "k5" } end }
            """)
        XCTAssertEqual(e.process(event("g")).parser, "generic-high", "priority decides across both kinds")
        XCTAssertEqual(e.process(event("x")).parser, "keyed-high", "at the same priority, keyed first")
        XCTAssertEqual(e.process(event("pass")).parser, "generic-same", "then the heuristic of that priority, before lower keyed ones")
        XCTAssertEqual(e.process(event("x", symbology: "ean13")).parser, "generic-same")
    }

    func testEventIsReadOnlyAndHasTheContractFields() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "fields", parse = function(ev)
              return { symbology = ev.symbology, text = ev.text, bytes = ev.bytes, charset = ev.charset,
                       source = ev.source, frame = ev.frame, bbox_w = ev.bbox.width, npoints = #ev.points,
                       sibling = ev.siblings[1] and ev.siblings[1].text, has_time = type(ev.time) == "number" }
            end }
            scan.parser { name = "writer", priority = 10, parse = function(ev) ev.text = "changed" end }
            """)
        let r = e.process(event("口罩", siblings: ["**right"]))
        XCTAssertEqual(r.payload.serialized,
                       #"{"type":"fields","bbox_w":0,"bytes":"口罩","charset":"utf-8","frame":0,"has_time":true,"npoints":0,"sibling":"**right","source":"test.png","symbology":"qrcode","text":"口罩"}"#)
        XCTAssertEqual(r.errors.count, 1)
        XCTAssertEqual(r.errors.first?["parser"], .string("writer"))
        XCTAssertTrue(r.errors.first?["message"]?.serialized.contains("handler.lua:7: scan event is read-only") ?? false,
                      "\(r.errors)")
    }

    func testRuntimeErrorIsOnTheRecordWithScriptLineAndOthersGoOn() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "broken", priority = 9, parse = function(ev)
              local t = nil
              return t.field
            end }
            scan.parser { name = "fine", parse = function(ev) return { ok = true } end }
            """)
        let r = e.process(event("x"))
        XCTAssertEqual(r.parser, "fine")
        XCTAssertEqual(r.errors.count, 1)
        XCTAssertEqual(r.errors[0]["parser"], .string("broken"))
        guard case .string(let m)? = r.errors[0]["message"] else { return XCTFail() }
        XCTAssertTrue(m.hasSuffix("handler.lua:4: attempt to index a nil value (local 't')"), m)
        guard case .string(let tb)? = r.errors[0]["traceback"] else { return XCTFail("no traceback") }
        XCTAssertTrue(tb.hasPrefix("stack traceback:"), tb)
    }

    func testInfiniteLoopHitsTheInstructionBudget() throws {
        var limits = ScriptLimits()
        limits.instructionLimit = 1_000_000
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "spin", priority = 5, parse = function(ev)
              while true do end
            end }
            scan.parser { name = "sneaky", priority = 4, parse = function(ev)
              while true do pcall(function() while true do end end) end
            end }
            scan.parser { name = "after", parse = function() return { type = "after" } end }
            """, limits: limits)
        let r = e.process(event("x"))
        XCTAssertEqual(r.parser, "after", "the symbol still gets a payload")
        XCTAssertEqual(r.errors.count, 2)
        guard case .string(let m)? = r.errors[0]["message"], case .string(let m2)? = r.errors[1]["message"] else { return XCTFail() }
        XCTAssertTrue(m.hasSuffix("handler.lua:3: instruction budget exceeded (1000000 instructions)"), m)
        XCTAssertTrue(m2.contains("handler.lua:6: instruction budget exceeded"), m2)
    }

    func testMemoryHogHitsTheCap() throws {
        var limits = ScriptLimits()
        limits.memoryLimit = 32 << 20
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "hog", priority = 5, parse = function(ev)
              local t = {}
              for i = 1, 1e9 do t[i] = string.rep("x", 100) .. i end
            end }
            scan.parser { name = "big-string", priority = 4, parse = function(ev) return { s = string.rep("y", 1 << 30) } end }
            scan.parser { name = "after", parse = function() return { type = "after" } end }
            """, limits: limits)
        let r = e.process(event("x"))
        XCTAssertEqual(r.parser, "after")
        let messages = r.errors.map { $0["message"]?.serialized ?? "" }
        XCTAssertEqual(messages.count, 2)
        XCTAssertTrue(messages[0].hasSuffix("/handler.lua:2: memory limit exceeded (32 MiB)\""), messages[0])
        XCTAssertTrue(messages[1].hasSuffix("/handler.lua:6: memory limit exceeded (32 MiB)\""), messages[1])
        // The state recovered: the next event is fine.
        XCTAssertEqual(e.process(event("y")).parser, "after")
    }

    func testHandlerIsDisabledAfterRepeatedFailures() throws {
        var limits = ScriptLimits()
        limits.maxFailures = 3
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "flaky", parse = function(ev) error("boom") end }
            """, limits: limits)
        for _ in 0..<3 { XCTAssertEqual(e.process(event("x")).errors.count, 1) }
        XCTAssertEqual(e.process(event("x")).errors.count, 0, "disabled after 3 failures")
        XCTAssertEqual(logged.filter { $0.contains("parser 'flaky'") && $0.contains("disabled after 3 failures") }.count, 1, "\(logged)")
    }

    func testSandboxHasNoProcessOrFileEscapes() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "probe", parse = function(ev)
              local f, err = io.open("/etc/passwd")
              local w, werr = io.open("x.txt", "w")
              -- Each is out of reach, and using it says why (issue 23: not "attempt to call a nil value").
              local function hidden(f)
                local ok, err = pcall(f)
                return not ok and err:find("is not available in the sandbox: scripts run sandboxed unless trusted (--trust", 1, true) ~= nil
              end
              return { os_execute = hidden(function() return os.execute end), popen = hidden(function() return io.popen end),
                       debug = hidden(function() return debug end), loadfile = hidden(function() return loadfile end),
                       dofile = hidden(function() return dofile end), package = hidden(function() return package end),
                       passwd = f == nil and err or "opened", write = werr,
                       bytecode = select(2, load(string.char(27) .. "Lua", "x", "b")) }
            end }
            """)
        let p = e.process(event("x")).payload
        for key in ["os_execute", "popen", "debug", "loadfile", "dofile", "package"] { XCTAssertEqual(p[key], .bool(true), key) }
        XCTAssertEqual(p["passwd"], .string("/etc/passwd: outside the directories scripts may read (the working directory and script directories)"))
        XCTAssertEqual(p["write"], .string("x.txt: only reading is allowed in the sandbox (mode 'r')"))
        XCTAssertEqual(p["bytecode"], .string("load: only text chunks are allowed"))
    }

    func testTrustOpensTheFullLibrary() throws {
        var limits = ScriptLimits()
        limits.trust = true
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "t", parse = function() return { execute = type(os.execute), open = type(io.open("/etc/hostname") or io.open("/etc/passwd")) } end }
            """, limits: limits)
        XCTAssertEqual(e.process(event("x")).payload.serialized, #"{"type":"t","execute":"function","open":"userdata"}"#)
    }

    func testSyntaxErrorNamesFileAndLine() throws {
        XCTAssertThrowsError(try engine("local x = = 1\n", name: "bad.lua")) { error in
            guard case .load(let m)? = error as? ScriptError else { return XCTFail("\(error)") }
            // Lua shortens long chunk names to "...tail", so compare the end.
            XCTAssertTrue(m.hasSuffix("/bad.lua:1: unexpected symbol near '='"), m)
        }
    }

    func testRegistrationErrorsPointAtTheCaller() throws {
        XCTAssertThrowsError(try engine("local scan = require 'scan'\n\nscan.parser { name = 'x' }\n")) { error in
            let m = (error as? ScriptError)?.message ?? ""
            XCTAssertTrue(m.hasSuffix("/handler.lua:3: scan.parser: 'parse' must be a function"), m)
        }
    }

    func testBadActionsAreErrorsNotCrashes() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.rule { name = "r", run = function(p, ctx) return { { type = "launch" }, "oops" } end }
            """)
        let r = e.process(event("x"))
        XCTAssertEqual(r.actions, [])
        XCTAssertEqual(r.errors.count, 2)
        XCTAssertTrue(r.errors[0].serialized.contains("unknown action type 'launch' (known: append, stop, http, mqtt)"), r.errors[0].serialized)
        XCTAssertTrue(r.errors[1].serialized.contains("an action must be a table with a string 'type', got string"))
    }

    func testCodecModule() throws {
        let e = try engine("""
            local scan, codec, hex = require "scan", require "codec", require "hex"
            scan.parser { name = "c", parse = function(ev)
              local big5 = codec.encode("口罩", "big5")
              local bad, err = codec.decode("\\xA4", "big5")
              local nope, err2 = codec.decode("x", "klingon")
              local text, charset = codec.detect(hex.decode("a466b86e"))
              return { hex = hex.encode(big5), back = codec.decode(big5, "big5"), bad = bad == nil, err = err,
                       err2 = err2:sub(1, 27), detected = text, charset = charset }
            end }
            """)
        XCTAssertEqual(e.process(event("x")).payload.serialized,
                       #"{"type":"c","back":"口罩","bad":true,"charset":"big5","detected":"口罩","err":"incomplete big5 sequence at byte 1","err2":"unknown charset 'klingon' (","hex":"a466b86e"}"#)
    }

    func testUserModulesAreFoundNextToTheScript() throws {
        try "return { answer = 42 }".write(to: dir.appendingPathComponent("mymod.lua"), atomically: true, encoding: .utf8)
        let e = try engine("""
            local scan = require "scan"
            local m = require "mymod"
            scan.parser { name = "m", parse = function() return { answer = m.answer, same = require("mymod") == m } end }
            """)
        XCTAssertEqual(e.process(event("x")).payload.serialized, #"{"type":"m","answer":42,"same":true}"#)
        XCTAssertThrowsError(try engine("require 'missing_module'", name: "m2.lua")) { error in
            XCTAssertTrue((error as? ScriptError)?.message.contains("module 'missing_module' not found:") ?? false, "\(error)")
        }
    }

    func testLoadTimeInfiniteLoopIsStopped() throws {
        var limits = ScriptLimits()
        limits.instructionLimit = 100_000
        XCTAssertThrowsError(try engine("while true do end", name: "loop.lua", limits: limits)) { error in
            XCTAssertTrue((error as? ScriptError)?.message.hasSuffix("loop.lua:1: instruction budget exceeded (100000 instructions)") ?? false, "\(error)")
        }
    }
}

extension EngineTests {
    func testCoroutinesCannotEscapeTheBudget() throws {
        var limits = ScriptLimits()
        limits.instructionLimit = 500_000
        let e = try engine("""
            local scan = require "scan"
            local spinner = coroutine.wrap(function() while true do end end)  -- made at load time
            scan.parser { name = "co", priority = 2, parse = function(ev)
              local co = coroutine.create(function() while true do end end)
              local ok, err = coroutine.resume(co)
              return { ok = ok, err = err }
            end }
            scan.parser { name = "wrapped", priority = 1, parse = function(ev) spinner() end }
            """, limits: limits)
        let r = e.process(event("x"))
        XCTAssertEqual(r.payload["ok"], .bool(false))
        guard case .string(let m)? = r.payload["err"] else { return XCTFail("\(r.payload)") }
        XCTAssertTrue(m.hasSuffix("handler.lua:4: instruction budget exceeded (500000 instructions)"), m)
        let second = try engine("""
            local scan = require "scan"
            local spinner = coroutine.wrap(function() while true do end end)
            scan.parser { name = "wrapped", parse = function(ev) spinner() end }
            """, name: "h2.lua", limits: limits)
        let r2 = second.process(event("x"))
        XCTAssertEqual(r2.errors.count, 1)
        XCTAssertTrue(r2.errors.first?["message"]?.serialized.contains("h2.lua:2: instruction budget exceeded") ?? false, "\(r2.errors)")
    }
}
