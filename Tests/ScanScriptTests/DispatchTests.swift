import Foundation
import ScanCore
import XCTest
@testable import ScanScript

/// The batched dispatch (Engine/Dispatch.swift, Prelude/dispatch.lua) and the C JSON encoder that
/// writes every record's payload, actions and emitted tables (the C encoder in CLuaShims).
final class DispatchTests: XCTestCase {
    var dir: URL!
    var logged: [String] = []
    var engines: [ScriptEngine] = []

    override func setUpWithError() throws {
        // Short paths: Lua shortens chunk names over 60 bytes in messages.
        dir = URL(fileURLWithPath: "/tmp/sld-" + UUID().uuidString.prefix(8).lowercased())
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        for e in engines { XCTAssertEqual(e.lua.top, 1, "the Lua stack is unbalanced after the test") }
        engines = []
        try? FileManager.default.removeItem(at: dir)
    }

    var scriptPath: String { dir.appendingPathComponent("d.lua").path }

    /// A fresh engine with an in-memory store and `source` loaded from `d.lua`.
    func engine(_ source: String, limits: ScriptLimits = ScriptLimits()) throws -> ScriptEngine {
        let e = try ScriptEngine(limits: limits, modulePaths: [EngineTests.shippedScripts])
        engines.append(e)
        e.storePath = ":memory:"
        e.log = { [unowned self] in self.logged.append($0) }
        try source.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        try e.run(file: scriptPath)
        return e
    }

    func event(_ text: String, symbology: String = "qrcode") -> ScanEvent {
        event(bytes: Array(text.utf8), symbology: symbology)
    }

    func event(bytes: [UInt8], symbology: String = "qrcode") -> ScanEvent {
        ScanEvent(symbol: Symbol(symbology: Symbology(rawValue: symbology), bytes: bytes), info: FrameInfo(source: "test.png"))
    }

    /// `{"type":<type>,"v":<value>}` as the Swift JSON writer writes it.
    func swiftJSON(_ type: String, _ value: JSON) -> String {
        JSON.object([("type", .string(type)), ("v", value)]).serialized
    }

    // MARK: Batches

    func testSixHundredEventsComeBackInOrderAcrossBatches() throws {
        XCTAssertLessThan(ScriptEngine.batchSize, 600, "the test needs more than one batch")
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "echo", parse = function(ev) return { text = ev.text, n = tonumber(ev.text:match("%d+")) } end }
            scan.rule { name = "count", run = function(p, ctx) ctx.emit { type = "seen", n = p.n } end }
            """)
        let events = (0..<600).map { event("event-\($0)") }
        let results = e.process(events)
        XCTAssertEqual(results.count, 600)
        for (i, r) in results.enumerated() {
            XCTAssertEqual(r.payload.serialized, #"{"type":"echo","n":\#(i),"text":"event-\#(i)"}"#)
            XCTAssertEqual(r.parser, "echo")
            XCTAssertEqual(r.emitted.map(\.serialized), [#"{"type":"seen","n":\#(i),"rule":"count"}"#])
            XCTAssertEqual(r.errors, [])
        }
        XCTAssertEqual(e.process([]).count, 0)
    }

    /// The dispatcher's batches fill one kept list: a small batch after a full one gets its own
    /// events only, and the list keeps nothing of the full one past the small one's slots.
    func testASmallBatchAfterAFullOneGetsItsOwnEvents() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "echo", parse = function(ev) return { text = ev.text } end }
            """)
        XCTAssertEqual(e.process((0..<ScriptEngine.batchSize).map { event("full-\($0)") }).count, ScriptEngine.batchSize)
        let results = e.process([event("small-0"), event("small-1")])
        XCTAssertEqual(results.map(\.payload.serialized), [#"{"type":"echo","text":"small-0"}"#, #"{"type":"echo","text":"small-1"}"#])
        XCTAssertEqual(e.lua.eventListFilled, 2 * Int64(eventSlots))
    }

    func testAHandlerErrorInTheThirdEventOfABatchCostsOnlyThatEvent() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "p", parse = function(ev)
              if ev.text == "3" then error("bad event " .. ev.text) end
              return { text = ev.text }
            end }
            scan.rule { name = "r", run = function(p, ctx)
              if ctx.event.text == "3" then error("rule fails too") end
              ctx.emit { type = "ok", text = ctx.event.text }
              return { type = "append", path = "out.txt", line = ctx.event.text }
            end }
            """)
        let results = e.process((1...5).map { event(String($0)) })
        XCTAssertEqual(results.map(\.payload.serialized), [
            #"{"type":"p","text":"1"}"#, #"{"type":"p","text":"2"}"#, #"{"type":"raw"}"#,
            #"{"type":"p","text":"4"}"#, #"{"type":"p","text":"5"}"#,
        ])
        XCTAssertEqual(results.map(\.parser), ["p", "p", nil, "p", "p"])
        XCTAssertEqual(results.map(\.errors.count), [0, 0, 2, 0, 0])
        XCTAssertEqual(results[2].errors.map { $0["parser"] ?? $0["rule"] }, [.string("p"), .string("r")])
        XCTAssertEqual(results[2].errors.map(\.["message"]), [.string("\(scriptPath):3: bad event 3"), .string("\(scriptPath):7: rule fails too")])
        XCTAssertEqual(results[2].emitted, [])
        XCTAssertEqual(results[2].actions, [])
        for i in [0, 1, 3, 4] {
            XCTAssertEqual(results[i].emitted.map(\.serialized), [#"{"type":"ok","rule":"r","text":"\#(i + 1)"}"#])
            XCTAssertEqual(results[i].actions.map(\.serialized), [#"{"type":"append","line":"\#(i + 1)","path":"out.txt","rule":"r"}"#])
        }
    }

    func testRecordsAreEncodedRightAfterEachEvent() throws {
        let e = try engine("""
            local scan = require "scan"
            local kept_payload, kept_emit, kept_action
            scan.parser { name = "p", parse = function(ev) return { text = ev.text } end }
            scan.rule { name = "keeper", run = function(p, ctx)
              if ctx.event.text == "1" then
                kept_payload = p
                kept_emit = { type = "note", text = "first" }
                kept_action = { type = "append", path = "x.txt", line = "first" }
                ctx.emit(kept_emit)
                return kept_action
              end
              kept_payload.text = "changed by " .. ctx.event.text
              kept_payload.extra = { 1, 2 }
              kept_emit.text = "changed"
              kept_action.line = "changed"
            end }
            """)
        let results = e.process([event("1"), event("2")])
        XCTAssertEqual(results[0].payload.serialized, #"{"type":"p","text":"1"}"#)
        XCTAssertEqual(results[0].emitted.map(\.serialized), [#"{"type":"note","rule":"keeper","text":"first"}"#])
        XCTAssertEqual(results[0].actions.map(\.serialized), [#"{"type":"append","line":"first","path":"x.txt","rule":"keeper"}"#])
        XCTAssertEqual(results[1].payload.serialized, #"{"type":"p","text":"2"}"#)
        XCTAssertEqual(results[1].emitted, [])
    }

    func testActionsAndEmittedCarryTheirRuleAndRulesAnnotateThePayload() throws {
        let e = try engine("""
            local scan = require "scan"
            local shared = { type = "append", path = "a.txt", line = "one" }
            scan.rule { name = "first", run = function(p, ctx)
              ctx.emit { type = "note", n = 1 }
              ctx.emit { type = "note", n = 2 }
              return { shared, { type = "stop" } }
            end }
            scan.rule { name = "second", run = function(p, ctx)
              ctx.emit { type = "note", n = 3, rule = "spoofed" }
              p.annotated = ctx.rule
              p.shared_has_rule = shared.rule ~= nil
              return { type = "append", path = "b.txt", line = "two" }
            end }
            """)
        let results = e.process([event("x"), event("y")])
        for r in results {
            XCTAssertEqual(r.payload.serialized, #"{"type":"raw","annotated":"second","shared_has_rule":false}"#)
            XCTAssertEqual(r.emitted.map(\.serialized), [
                #"{"type":"note","n":1,"rule":"first"}"#, #"{"type":"note","n":2,"rule":"first"}"#, #"{"type":"note","n":3,"rule":"second"}"#,
            ])
            XCTAssertEqual(r.actions.map(\.serialized), [
                #"{"type":"append","line":"one","path":"a.txt","rule":"first"}"#, #"{"type":"stop","rule":"first"}"#,
                #"{"type":"append","line":"two","path":"b.txt","rule":"second"}"#,
            ])
        }
    }

    // MARK: scan.simulate inside a handler

    static let simulating = """
        local scan = require "scan"
        scan.parser { name = "inner-broken", match = "^inner", priority = 1, parse = function(ev) error("inner parser fails") end }
        scan.parser { name = "inner", match = "^inner", parse = function(ev) return { type = "inner" } end }
        scan.parser { name = "outer", match = "^outer", parse = function(ev) return { type = "outer" } end }
        scan.rule { name = "inner-rule", on = "inner", run = function(p, ctx)
          ctx.emit { type = "from-inner" }
          return { type = "append", path = "inner.txt", line = "inner" }
        end }
        scan.rule { name = "outer-rule", on = "outer", run = function(p, ctx)
          ctx.emit { type = "before" }
          local r = scan.simulate { text = "inner-simulated" }
          ctx.emit { type = "simulated", payload = r.payload.type, errors = #r.errors, emitted = #r.emitted,
                     actions = #r.actions, emitted_rule = r.emitted[1].rule }
          ctx.emit { type = "ctx", ctx_rule = ctx.rule, ctx_text = ctx.event.text }
          return { type = "append", path = "outer.txt", line = "outer" }
        end }
        scan.rule { name = "last", on = "outer", run = function(p, ctx) ctx.emit { type = "last" } end }
        """

    func testSimulateInsideARuleDoesNotMixRecords() throws {
        let e = try engine(Self.simulating)
        let results = e.process([event("outer-A"), event("inner-B"), event("outer-C")])
        for (i, text) in [(0, "outer-A"), (2, "outer-C")] {
            let r = results[i]
            XCTAssertEqual(r.payload.serialized, #"{"type":"outer"}"#)
            XCTAssertEqual(r.errors, [], "the simulated event's parser error stays in the simulated record")
            XCTAssertEqual(r.emitted.map { $0["type"] }, [.string("before"), .string("simulated"), .string("ctx"), .string("last")])
            XCTAssertEqual(r.emitted.map { $0["rule"] }, [.string("outer-rule"), .string("outer-rule"), .string("outer-rule"), .string("last")])
            XCTAssertEqual(r.emitted[1].serialized,
                           #"{"type":"simulated","actions":1,"emitted":1,"emitted_rule":"inner-rule","errors":1,"payload":"inner","rule":"outer-rule"}"#)
            XCTAssertEqual(r.actions.map(\.serialized), [#"{"type":"append","line":"outer","path":"outer.txt","rule":"outer-rule"}"#], text)
        }
        let inner = results[1]
        XCTAssertEqual(inner.payload.serialized, #"{"type":"inner"}"#)
        XCTAssertEqual(inner.errors.map(\.["parser"]), [.string("inner-broken")])
        XCTAssertEqual(inner.emitted.map(\.serialized), [#"{"type":"from-inner","rule":"inner-rule"}"#])
        XCTAssertEqual(inner.actions.map(\.serialized), [#"{"type":"append","line":"inner","path":"inner.txt","rule":"inner-rule"}"#])
    }

    /// docs/lua-api.md: `ctx.event` is the event and `ctx.rule` the rule's name during `run`.
    func testCtxStillNamesTheRunningRuleAndEventAfterSimulate() throws {
        let e = try engine(Self.simulating)
        let r = e.process(event("outer-A"))
        XCTAssertEqual(r.emitted.count, 4)
        guard r.emitted.count == 4 else { return }
        XCTAssertEqual(r.emitted[2].serialized, #"{"type":"ctx","ctx_rule":"outer-rule","ctx_text":"outer-A","rule":"outer-rule"}"#)
    }

    /// docs/lua-api.md: all writes of one symbol's rules are one transaction, rolled back when a rule failed.
    func testSimulateInsideAFailingRuleDoesNotCommitTheRulesStoreWrites() throws {
        let e = try engine("""
            local scan, store = require "scan", require "store"
            store.exec("CREATE TABLE t (v TEXT)")
            scan.rule { name = "writer", when = function(p, ev) return ev.text ~= "inner" end, run = function(p, ctx)
              store.exec("INSERT INTO t (v) VALUES (?)", { ctx.event.text })
              if ctx.event.text == "simulating" then scan.simulate { text = "inner" } end
              if ctx.event.text ~= "ok" then error("fails after writing") end
            end }
            """)
        let results = e.process([event("plain"), event("simulating"), event("ok")])
        XCTAssertEqual(results.map(\.errors.count), [1, 1, 0])
        let rows = try e.store.db().query("SELECT v FROM t ORDER BY rowid").map { row -> String in
            if case .text(let t)? = row.first?.1 { return t }
            return "?"
        }
        XCTAssertEqual(rows, ["ok"], "the rows of the two events whose rule failed are rolled back")
    }

    // MARK: The JSON encoder

    func testNumbersEncodeLikeTheSwiftWriter() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "n", parse = function(ev) return { v = assert(load("return " .. ev.text))() } end }
            """)
        let cases: [(String, JSON)] = [
            ("42", .int(42)), ("-7", .int(-7)), ("0", .int(0)),
            ("math.maxinteger", .int(.max)), ("math.mininteger", .int(.min)),
            ("3.0", .double(3)), ("1.5", .double(1.5)), ("-2.25", .double(-2.25)),
            ("0.1", .double(0.1)), ("0.1 + 0.2", .double(0.1 + 0.2)), ("100 * 1.1", .double(100 * 1.1)),
            ("1/3", .double(1.0 / 3)), ("-0.0", .double(-0.0)),
            ("1e15 - 1", .double(999_999_999_999_999)), ("1e15", .double(1e15)), ("-1e15", .double(-1e15)),
            ("1e16", .double(1e16)), ("1e20", .double(1e20)), ("2^53", .double(9_007_199_254_740_992)),
            ("2^53 + 2", .double(9_007_199_254_740_994)), ("2^63", .double(9_223_372_036_854_775_808)),
            ("123456789012345.6", .double(123_456_789_012_345.6)),
            ("1e-7", .double(1e-7)), ("-2.5e-300", .double(-2.5e-300)), ("1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
            ("2.2250738585072014e-308", .double(2.2250738585072014e-308)), ("5e-324", .double(5e-324)),
            ("0/0", .double(.nan)), ("1/0", .double(.infinity)), ("-1/0", .double(-.infinity)),
            ("true", .bool(true)), ("false", .bool(false)),
        ]
        let results = e.process(cases.map { event($0.0) })
        for (c, r) in zip(cases, results) {
            XCTAssertEqual(r.errors, [], c.0)
            XCTAssertEqual(r.payload.serialized, swiftJSON("n", c.1), "Lua value \(c.0)")
        }
    }

    func testTablesEncodeLikeTheSwiftWriter() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "t", parse = function(ev) return { v = assert(load("return " .. ev.text))() } end }
            """)
        let forty = (1...40).map { "k\($0)" }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let cases: [(String, JSON)] = [
            ("{}", .object([])),
            ("{ {}, {{}} }", .array([.object([]), .array([.object([])])])),
            ("{1, 2, 3}", .array([.int(1), .int(2), .int(3)])),
            ("{'a', {'b', 1.5, false}}", .array([.string("a"), .array([.string("b"), .double(1.5), .bool(false)])])),
            ("{[1] = 'a', [2] = 'b', [4] = 'd'}", .object([("1", .string("a")), ("2", .string("b")), ("4", .string("d"))])),
            ("{[2] = 'b'}", .object([("2", .string("b"))])),
            ("{1, 2, x = 3}", .object([("1", .int(1)), ("2", .int(2)), ("x", .int(3))])),
            ("{[true] = 1, [false] = 0}", .object([("false", .int(0)), ("true", .int(1))])),
            ("{[1.5] = 'x', [-3] = 'y', [10] = 'z', [2] = 'w'}",
             .object([("-3", .string("y")), ("1.5", .string("x")), ("10", .string("z")), ("2", .string("w"))])),
            ("{[2^53] = 'int', [1e20] = 'big', [1/0] = 'inf'}",
             .object([("1e+20", .string("big")), ("9007199254740992", .string("int")), ("inf", .string("inf"))])),
            ("{[0.1] = 'x', [-2.5] = 'y'}", .object([("-2.5", .string("y")), ("0.1", .string("x"))])),
            ("{type = 't', b = 1, a = 2, B = 3, _ = 4, ['a b'] = 5, ['é'] = 6, z = 7, [''] = 8, Type = 9, types = 10}",
             .object([("type", .string("t")), ("", .int(8)), ("B", .int(3)), ("Type", .int(9)), ("_", .int(4)), ("a", .int(2)),
                      ("a b", .int(5)), ("b", .int(1)), ("types", .int(10)), ("z", .int(7)), ("é", .int(6))])),
            ("{n = 0/0, list = {1.5, 'x', false}, nested = {type = 'inner', a = {b = {c = {1, {d = true}}}}}}",
             .object([("list", .array([.double(1.5), .string("x"), .bool(false)])), ("n", .null),
                      ("nested", .object([("type", .string("inner")),
                                          ("a", .object([("b", .object([("c", .array([.int(1), .object([("d", .bool(true))])]))]))]))]))])),
            ("{f = print, co = coroutine.create(print)}", .object([("co", .string("<thread>")), ("f", .string("<function>"))])),
            ("(function() local t = {} for i = 1, 40 do t['k' .. i] = i end return t end)()",
             .object(forty.map { ($0, .int(Int($0.dropFirst())!)) })),
            ("(function() local t = {} for i = 1, 300 do t[i] = i * 0.5 end return t end)()",
             .array((1...300).map { .double(Double($0) * 0.5) })),
        ]
        let results = e.process(cases.map { event($0.0) })
        for (c, r) in zip(cases, results) {
            XCTAssertEqual(r.errors, [], c.0)
            XCTAssertEqual(r.payload.serialized, swiftJSON("t", c.1), "Lua value \(c.0)")
        }
    }

    func testStringsEncodeLikeTheSwiftWriter() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "s", parse = function(ev) return { v = ev.bytes, k = { [ev.bytes] = 1 } } end }
            """)
        let cases: [[UInt8]] = [
            Array("plain ascii".utf8), [],
            Array("quote \" backslash \\ slash / tab \t newline \n cr \r end".utf8),
            (0..<32).map { UInt8($0) } + [0x7F, 0x41],
            Array("\u{2028}line\u{2029}para".utf8),
            Array("\u{80}c1\u{85}\u{9F}|\u{A0}nbsp".utf8),
            Array("口罩 😀 é \u{FEFF}bom \u{FFFD}".utf8),
            [0xFF], [0x80], [0xFE, 0xFF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2], [0xC2, 0x41], [0x41, 0xC3, 0x28, 0x42],
            [0xE2, 0x82], [0xE2, 0x82, 0x41], [0xE2, 0x80], [0xE2, 0x80, 0xA8], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF],
            [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xEF, 0xBF, 0xBF],
            [0xF0, 0x9F, 0x98], [0xF0, 0x9F, 0x98, 0x41], [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xC2, 0x9F, 0xC2, 0xA0, 0xC2],
            Array("ok".utf8) + [0xE2, 0x80, 0xA9] + [0x00] + Array("end".utf8),
        ]
        let results = e.process(cases.map { event(bytes: $0, symbology: "code128") })
        for (bytes, r) in zip(cases, results) {
            let s = String(decoding: bytes, as: UTF8.self)
            let expected = JSON.object([("type", .string("s")), ("k", .object([(s, .int(1))])), ("v", .string(s))]).serialized
            XCTAssertEqual(r.errors, [], "\(bytes)")
            XCTAssertEqual(r.payload.serialized, expected, "bytes \(bytes.map { String($0, radix: 16) })")
        }
    }

    func testACycleGivesARawPayloadAndAnError() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "loop", parse = function(ev)
              if ev.text ~= "cycle" then return { ok = true } end
              local t = { list = {} }
              t.list[1] = t
              return t
            end }
            scan.rule { name = "r", run = function(p, ctx) ctx.emit { type = "seen" } end }
            """)
        let results = e.process([event("fine"), event("cycle"), event("after")])
        XCTAssertEqual(results.map(\.payload.serialized), [#"{"type":"loop","ok":true}"#, #"{"type":"raw"}"#, #"{"type":"loop","ok":true}"#])
        XCTAssertEqual(results[1].parser, nil)
        XCTAssertEqual(results[1].errors.count, 1)
        guard case .string(let m)? = results[1].errors.first?["message"] else { return XCTFail("\(results[1].errors)") }
        XCTAssertTrue(m.contains("nests deeper than 64 levels"), m)
        XCTAssertEqual(results[2].emitted.map(\.serialized), [#"{"type":"seen","rule":"r"}"#])
    }

    func testSixtyFourLevelsEncodeAndSixtyFiveDoNot() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "deep", parse = function(ev)
              local t = {}
              local cur = t
              for i = 2, tonumber(ev.text) do cur.v = {}; cur = cur.v end
              return t
            end }
            """)
        let results = e.process([event("64"), event("65")])
        var expected = JSON.object([])
        for _ in 2...64 { expected = .object([("v", expected)]) }
        guard case .object(let pairs) = expected else { return XCTFail() }
        XCTAssertEqual(results[0].payload.serialized, JSON.object([("type", .string("deep"))] + pairs).serialized)
        XCTAssertEqual(results[0].errors, [])
        XCTAssertEqual(results[1].payload.serialized, #"{"type":"raw"}"#)
        XCTAssertTrue(results[1].errors.first?.serialized.contains("nests deeper than 64 levels") ?? false, "\(results[1].errors)")
    }
    /// docs/lua-api.md: tables become arrays "when their keys are exactly 1..n".
    func testATableWithHolesAndOtherKeysIsAnObjectNotAnArray() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "holes", parse = function(ev)
              local t = { 1, 2, 3, x = "kept" }
              t[2] = nil
              return { v = t, n = #t }
            end }
            """)
        let r = e.process(event("x"))
        XCTAssertEqual(r.payload["n"], .int(3), "the border Lua reports for the table")
        XCTAssertEqual(r.payload.serialized, #"{"type":"holes","n":3,"v":{"1":1,"3":3,"x":"kept"}}"#, "no key may be dropped")
    }

    /// docs/lua-api.md: a broken handler never costs a symbol its payload; errors go on the record.
    func testACycleInAnEmittedRecordDoesNotCostThePayload() throws {
        let e = try engine("""
            local scan = require "scan"
            scan.parser { name = "p", parse = function(ev) return { text = ev.text } end }
            scan.rule { name = "loopy", run = function(p, ctx)
              local t = { type = "note" }
              t.self = t
              ctx.emit(t)
            end }
            """)
        let r = e.process(event("hello"))
        XCTAssertTrue(r.errors.first?.serialized.contains("nests deeper than 64 levels") ?? false, "\(r.errors)")
        XCTAssertEqual(r.payload.serialized, #"{"type":"p","text":"hello"}"#)
        XCTAssertEqual(r.parser, "p")
    }
}
