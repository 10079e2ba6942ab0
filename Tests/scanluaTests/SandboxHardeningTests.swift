import Foundation
import XCTest

/// Attacks of issue 12 (A4, A5, B) as a hostile script would make them: each is an error on the
/// record or on stderr, and the scan goes on.
final class SandboxHardeningTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-harden-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func script(_ name: String, _ source: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testAScriptCannotRaiseItsLimitsOrGiveItselfTrust() throws {
        for (option, value) in [("instruction_limit", "0"), ("instruction_limit", "20000000"), ("memory_limit", "0"),
                                ("memory_limit", "1073741824"), ("max_failures", "100")] {
            let s = try script("raise.lua", "require('scan').options { \(option) = \(value) }\n")
            let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--script", s, "--text", "x"])
            XCTAssertEqual(r.status, 2, "\(option) = \(value)")
            XCTAssertTrue(r.stderr.contains("scan.options: '\(option)' can be raised only by the config or the command line"), r.stderr)
        }
        let trust = try script("trust.lua", "require('scan').options { trust = true }\n")
        let t = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--script", trust, "--text", "x"])
        XCTAssertEqual(t.status, 2)
        XCTAssertTrue(t.stderr.contains("scan.options: 'trust' can be given only by the config or --trust, not by a script"), t.stderr)
        // Lowering is fine, and the config may raise.
        let lower = try script("lower.lua", "require('scan').options { instruction_limit = 1000000, max_failures = 2 }\n")
        XCTAssertEqual(try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--script", lower, "--text", "x"]).status, 0)
        let config = try script("init.lua", "require('scan').options { instruction_limit = 0, memory_limit = 0 }\n")
        XCTAssertEqual(try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--config", config, "--text", "x"]).status, 0)
    }

    /// The command line's limits win over a config's `scan.options`, as every flag does.
    /// A handler that runs another event through the handlers (scan.simulate) goes on under
    /// what is left of its own budget: the inner call used to disarm it for the rest of the
    /// outer handler, so `while true do end` after it ran forever.
    func testAHandlerCannotShedItsBudgetThroughScanSimulate() throws {
        let s = try script("nested.lua", """
            local scan = require "scan"
            scan.parser { name = "outer", match = "^A", parse = function(ev)
              scan.simulate { text = "B1" }
              while true do end
            end }
            scan.parser { name = "inner", match = "^B", parse = function(ev) return { type = "inner" } end }
            """)
        let r = try CLI.run(["simulate", "--no-default-scripts", "--script", s, "--instruction-limit", "200000", "--text", "A1"])
        XCTAssertEqual(r.status, 3, r.stdout + r.stderr)
        XCTAssertTrue(((r.records.first?["errors"] as? [[String: Any]])?.first?["message"] as? String ?? "")
                        .contains("nested.lua:4: instruction budget exceeded (200000 instructions)"), r.stdout)
        // At a script's top level too (the load's budget).
        let top = try script("top.lua", """
            local scan = require "scan"
            scan.parser { name = "inner", parse = function(ev) return { type = "inner" } end }
            scan.simulate { text = "B1" }
            while true do end
            """)
        let t = try CLI.run(["simulate", "--no-default-scripts", "--script", top, "--instruction-limit", "200000", "--text", "A1"])
        XCTAssertNotEqual(t.status, 0)
        XCTAssertTrue(t.stderr.contains("top.lua:4: instruction budget exceeded"), t.stderr)
    }

    /// A payload with many keys is written in moments: its keys were sorted one at a time, after
    /// the handler's budget, and 200,000 of them took minutes.
    func testAPayloadWithManyKeysIsWrittenInMoments() throws {
        let s = try script("wide.lua", """
            require("scan").parser { name = "wide", parse = function(ev)
              local t = { type = "wide" }
              for i = 1, 200000 do t["k" .. i] = i end
              return t
            end }
            """)
        let r = try CLI.run(["simulate", "--no-default-scripts", "--script", s, "--text", "x"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let payload = r.records.first?["payload"] as? [String: Any]
        XCTAssertEqual(payload?.count, 200_001)
        XCTAssertEqual(payload?["k199999"] as? Int, 199_999)
        XCTAssertTrue(r.stdout.contains("{\"type\":\"wide\",\"k1\":1,\"k10\":10,\"k100\":100,"), String(r.stdout.prefix(200)))
    }

    func testTheCommandLinesLimitWinsOverTheConfigs() throws {
        let config = try script("tight.lua", "require('scan').options { instruction_limit = 5000 }\n")
        let busy = try script("busy.lua", """
            require('scan').parser { name = "busy", parse = function(ev)
              local n = 0 for i = 1, 100000 do n = n + i end return { type = "busy", n = n } end }
            """)
        let tight = try CLI.run(["simulate", "--no-default-scripts", "--config", config, "--script", busy, "--text", "x"])
        XCTAssertEqual(tight.status, 3, "the config's 5000 instructions: \(tight.stdout)")
        XCTAssertTrue(tight.stdout.contains("instruction budget exceeded (5000 instructions)"), tight.stdout)
        let flag = try CLI.run(["simulate", "--no-default-scripts", "--config", config, "--script", busy, "--instruction-limit", "0", "--text", "x"])
        XCTAssertEqual(flag.status, 0, flag.stdout + flag.stderr)
        XCTAssertEqual((flag.records.first?["payload"] as? [String: Any])?["n"] as? Int, 5_000_050_000)
    }

    func testTheStringLibraryIsFrozenAndHasNoDump() throws {
        let s = try script("strings.lua", """
            local scan = require "scan"
            scan.parser { name = "probe", parse = function(ev)
              local r = { mt = tostring(getmetatable("")), dump = tostring(string.dump), method = ("abc"):upper() }
              r.set = select(2, pcall(function() string.match = function() return "pwned" end end))
              r.mtset = select(2, pcall(function() getmetatable("").__index = {} end))
              r.after = ("hello"):match("h(e)")
              return r
            end }
            """)
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--script", s, "--text", "x"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let p = try XCTUnwrap(r.records.first?["payload"] as? [String: Any])
        XCTAssertEqual(p["mt"] as? String, "read-only", "the real string metatable is hidden")
        XCTAssertEqual(p["dump"] as? String, "nil")
        XCTAssertEqual(p["method"] as? String, "ABC")
        XCTAssertTrue((p["set"] as? String ?? "").contains("the string library is read-only (cannot set 'match')"), "\(p)")
        XCTAssertNotNil(p["mtset"], "indexing the hidden metatable's string fails")
        XCTAssertEqual(p["after"] as? String, "e", "string methods still work for every later handler")
    }

    /// A decoder that floods a frame with values (20,000 per scan line) once drove scanlua to
    /// 24 GB: every symbol's event carried copies of all the others. Now a decoder keeps 1000
    /// values per frame (said as a decoder failure, exit 3), the frame's events share one list of
    /// its symbols, and `ev.siblings` is still every other code of the frame.
    func testAFloodingDecoderIsCappedAndSiblingsStayLinear() throws {
        let s = try script("flood.lua", """
            local scan = require "scan"
            scan.decoder { name = "flood", decode = function(line)
              local out = {} for i = 1, 20000 do out[i] = "x" .. i end return out end }
            scan.parser { name = "sib", symbologies = { "flood" },
              parse = function(ev) return { type = "sib", n = #ev.siblings, first = ev.siblings[1].symbology } end }
            """)
        let r = try CLI.run(["scan", "--no-default-scripts", "--script", s, CLI.fixture("qrcode.png")])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("decoder 'flood' on \(CLI.fixture("qrcode.png")): more than 1000 different values on one frame"), r.stderr)
        XCTAssertTrue(r.stderr.contains(": the first 1000 are kept\n"), r.stderr)
        let flood = r.records.filter { $0["symbology"] as? String == "flood" }
        XCTAssertEqual(flood.count, 1000)
        XCTAssertEqual(r.records.count, 1001, "the QR code of the image is kept")
        XCTAssertEqual(Set(flood.compactMap { $0["text"] as? String }), Set((1...1000).map { "x\($0)" }))
        let payloads = flood.compactMap { $0["payload"] as? [String: Any] }
        XCTAssertEqual(payloads.count, 1000)
        XCTAssertTrue(payloads.allSatisfy { $0["n"] as? Int == 1000 && $0["first"] as? String == "qrcode" }, "\(payloads.prefix(2))")
    }

    func testHostileLuaDecodersAreErrorsNotCrashes() throws {
        let s = try script("decoders.lua", """
            local scan = require "scan"
            scan.decoder { name = "nums", kind = "image", decode = function(f) return { text = "a", points = { 1, 2 } } end }
            scan.decoder { name = "huge", kind = "image",
              decode = function(f) return { text = "b", points = { { x = math.mininteger, y = math.maxinteger } } } end }
            scan.decoder { name = "adaptive", kind = "image",
              decode = function(f) f:adaptive(math.maxinteger, 5); f:adaptive(7, math.mininteger); return "c" end }
            scan.decoder { name = "forged", kind = "image", decode = function(f)
              local column = f.column
              return column({ data = "abc", width = 1 << 62, height = 4 }, 0)
            end }
            scan.decoder { name = "resized", kind = "image", decode = function(f) f.width = 1 << 62; return f:column(0) end }
            scan.decoder { name = "outside", kind = "image",
              decode = function(f) return { text = "fine", points = { { x = 5, y = 5 }, { x = 1000000, y = -7 } } } end }
            -- Wrong argument types raise as lauxlib's functions do (they were once read as the defaults).
            scan.decoder { name = "level", kind = "image", decode = function(f) return f:binarize("dark") end }
            scan.decoder { name = "offset", kind = "image", decode = function(f) return f:adaptive(3, {}) end }
            scan.decoder { name = "fraction", kind = "image", decode = function(f) return f:adaptive(2.5) end }
            """)
        let r = try CLI.run(["scan", "--no-default-scripts", "--script", s, CLI.fixture("qrcode.png"), CLI.fixture("ean13.png")])
        XCTAssertEqual(r.status, 3, "decoder errors: exit 3 (issue 23): \(r.stderr)")
        let symbologies = r.records.compactMap { $0["symbology"] as? String }
        XCTAssertEqual(symbologies.filter { $0 == "qrcode" || $0 == "ean13" }.count, 2, "every image keeps its records: \(symbologies)")
        XCTAssertTrue(r.stderr.contains("decoder 'nums'") && r.stderr.contains("points must be a list of {x=, y=} tables; point 1 is a number"), r.stderr)
        XCTAssertTrue(r.stderr.contains("decoder 'huge'") && r.stderr.contains("integer pixel coordinates"), r.stderr)
        XCTAssertTrue(r.stderr.contains("decoder 'forged'") && r.stderr.contains("frame:column: expected a frame, got table"), r.stderr)
        XCTAssertTrue(r.stderr.contains("decoder 'resized'") && r.stderr.contains("frame:column: the frame's data does not match its width and height"), r.stderr)
        XCTAssertTrue(symbologies.contains("adaptive"), "clamped radius and offset: \(symbologies)")
        XCTAssertTrue(r.stderr.contains("decoder 'level'") && r.stderr.contains("bad argument #1 to 'frame:binarize' (number expected, got string)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("decoder 'offset'") && r.stderr.contains("bad argument #2 to 'frame:adaptive' (number expected, got table)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("decoder 'fraction'") && r.stderr.contains("bad argument #1 to 'frame:adaptive' (number has no integer representation)"), r.stderr)
        // A decoder's points stay inside the image (132 x 132).
        let outside = try XCTUnwrap(r.records.first { $0["symbology"] as? String == "outside" })
        let points = try XCTUnwrap(outside["points"] as? [[Int]])
        XCTAssertTrue(points.allSatisfy { $0[0] >= 0 && $0[0] < 132 && $0[1] >= 0 && $0[1] < 132 }, "\(points)")
    }

    func testSymlinksDoNotLeadOutAndNoActionWritesScriptsConfigsOrStores() throws {
        let fm = FileManager.default
        let outside = fm.temporaryDirectory.appendingPathComponent("scanlua-outside-\(UUID().uuidString)")
        try fm.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: outside) }
        try "secret\n".write(to: outside.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try fm.createDirectory(at: outside.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("odir").path, withDestinationPath: outside.path)
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("sublink").path,
                                  withDestinationPath: outside.appendingPathComponent("sub").path)
        try fm.createDirectory(at: dir.appendingPathComponent("real"), withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("real/link.txt").path,
                                  withDestinationPath: outside.appendingPathComponent("secret.txt").path)
        _ = try script("rule.lua", """
            local scan = require "scan"
            scan.parser { name = "p", parse = function(ev)
              local f, err = io.open("sublink/../secret.txt")   -- textually "secret.txt"; really outside/secret.txt
              local g = io.open("real/../rule.lua")
              return { dotdot = f and "READ" or err, inside = g and "read" or "refused" }
            end }
            scan.rule { name = "r", run = function(p) return {
              { type = "append", path = "odir/pwn.txt", line = "x" },
              { type = "append", path = "real/link.txt", line = "x" },
              { type = "append", path = "scanlua.lua", line = 'require("scan").options { trust = true }' },
              { type = "append", path = "rule.lua", line = "--" },
              { type = "append", path = "store.db", line = "x" },
              { type = "append", path = "real/ok.txt", line = "fine" },
            } end }
            """)
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--script", "rule.lua", "--db", "store.db", "--text", "x"], cwd: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let record = try XCTUnwrap(r.records.first)
        let payload = try XCTUnwrap(record["payload"] as? [String: Any])
        XCTAssertTrue((payload["dotdot"] as? String ?? "").contains("outside the directories scripts may read"), "\(payload)")
        XCTAssertEqual(payload["inside"] as? String, "read")
        let actions = try XCTUnwrap(record["actions"] as? [[String: Any]])
        let byPath = Dictionary(uniqueKeysWithValues: actions.map { ($0["path"] as? String ?? "", $0) })
        XCTAssertEqual(byPath["odir/pwn.txt"]?["error"] as? String,
                       "odir/pwn.txt: append is limited to paths below the working directory (odir leads out of it)")
        XCTAssertEqual(byPath["real/link.txt"]?["error"] as? String, "real/link.txt: is a symbolic link (not followed)")
        for path in ["scanlua.lua", "rule.lua", "store.db"] {
            XCTAssertEqual(byPath[path]?["error"] as? String, "\(path): an action cannot write a script, a config or a database")
        }
        XCTAssertEqual(byPath["real/ok.txt"]?["status"] as? String, "done")
        XCTAssertFalse(fm.fileExists(atPath: outside.appendingPathComponent("pwn.txt").path))
        XCTAssertEqual(try String(contentsOf: outside.appendingPathComponent("secret.txt"), encoding: .utf8), "secret\n")
        XCTAssertFalse(fm.fileExists(atPath: dir.appendingPathComponent("scanlua.lua").path))
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("real/ok.txt"), encoding: .utf8), "fine\n")
    }

    /// A FIFO, a directory or a device below the working directory: io.open refuses it at once
    /// (issue 61, attack 13: opening the FIFO waited for a writer until the process was killed).
    func testIOOpenRefusesAnythingButARegularFile() throws {
        XCTAssertEqual(mkfifo(dir.appendingPathComponent("fifo").path, 0o600), 0)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("folder"), withIntermediateDirectories: true)
        try "plain\n".write(to: dir.appendingPathComponent("plain.txt"), atomically: true, encoding: .utf8)
        _ = try script("rule.lua", """
            local scan = require "scan"
            scan.parser { name = "p", parse = function(ev)
              local _, fifo = io.open("fifo")
              local _, folder = io.open("folder")
              local f = io.open("plain.txt")
              return { fifo = fifo, folder = folder, plain = f and f:read("l") }
            end }
            """)
        let start = Date()
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--script", "rule.lua", "--text", "x"], cwd: dir)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "the FIFO was not waited on")
        let payload = try XCTUnwrap(r.records.first?["payload"] as? [String: Any], r.stderr)
        XCTAssertEqual(payload["fifo"] as? String, "fifo: not a regular file (a FIFO)")
        XCTAssertEqual(payload["folder"] as? String, "folder: not a regular file (a directory)")
        XCTAssertEqual(payload["plain"] as? String, "plain")
    }

    /// Lua that would run with no budget (finalizers at exit, metamethods of returned tables) is
    /// bounded, and host memory under the cap never unwinds through Swift.
    func testCodeOutsideHandlersIsBoundedToo() throws {
        // Lua runs __gc with hooks off: the sandbox refuses finalizers.
        let gc = try script("gc.lua", "keep = setmetatable({}, { __gc = function() while true do end end })\n")
        let g = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--script", gc, "--text", "x"])
        XCTAssertEqual(g.status, 2)
        XCTAssertTrue(g.stderr.contains("gc.lua:1: setmetatable: __gc finalizers are not available in the sandbox"), g.stderr)
        let s = try script("unbounded.lua", """
            local scan = require "scan"
            scan.parser { name = "meta", parse = function(ev)
              return setmetatable({ n = 1 }, { __index = function() while true do end end,
                                               __pairs = function() while true do end end })
            end }
            scan.rule { name = "list", run = function(p)
              return setmetatable({}, { __index = function() while true do end end })
            end }
            scan.rule { name = "err", on = "nothing", run = function() end }
            """)
        let start = Date()
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--script", s, "--text", "x"])
        XCTAssertLessThan(Date().timeIntervalSince(start), 30, "bounded")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.count, 1)
        XCTAssertEqual((r.records.first?["payload"] as? [String: Any])?["type"] as? String, "meta")
        XCTAssertFalse(r.stderr.contains("unowned"), r.stderr)
    }

    func testHostAllocationsOverTheCapAreAnErrorNotACrash() throws {
        let s = try script("codec.lua", """
            local scan = require "scan"
            local codec = require "codec"
            scan.parser { name = "big", parse = function(ev)
              local t = codec.decode(string.rep("a", 3 << 20), "latin1")
              return { n = #t }
            end }
            """)
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--memory-limit", "4", "--script", s, "--text", "x"])
        XCTAssertEqual(r.status, 3, "the record carries the error: \(r.stderr)")
        let errors = try XCTUnwrap(r.records.first?["errors"] as? [[String: Any]])
        XCTAssertTrue((errors.first?["message"] as? String ?? "").contains("memory limit exceeded (4 MiB)"), "\(errors)")
    }

    /// A host function refused over and over leaks nothing: before, each refusal unwound through
    /// Swift frames and lost about 6 MiB (issue 12 E); 100 of them would hold 600 MiB.
    func testRefusedHostAllocationsLeakNothing() throws {
        try XCTSkipIf(ProcessInfo.processInfo.environment["SCANLUA_ASAN"] != nil, "memory figures are not comparable under AddressSanitizer (make check-asan)")
        let s = try script("codec-loop.lua", """
            local scan = require "scan"
            local codec = require "codec"
            local big = string.rep("\\xa4\\x40", 1 << 20)   -- 2 MiB of Big5: 3 MiB of UTF-8
            scan.parser { name = "big", parse = function(ev)
              local a = codec.decode(big, "big5")
              local b = codec.decode(big, "big5")  -- a second 3 MiB result is over the cap
              return { n = #a + #b }
            end }
            """)
        let events = (0..<100).map { #"{"text":"\#($0)"}"# + "\n" }.joined()
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--memory-limit", "8", "--max-failures", "1000", "--script", s],
                            stdin: Data(events.utf8), timed: true)
        XCTAssertEqual(r.records.count, 100)
        for record in r.records {
            let message = ((record["errors"] as? [[String: Any]])?.first?["message"] as? String) ?? ""
            XCTAssertTrue(message.contains("memory limit exceeded (8 MiB)"), message)
        }
        let peak = try XCTUnwrap(r.peakKilobytes, r.stderr)
        XCTAssertLessThan(peak, 250_000, "peak RSS \(peak) KB after 100 refused 3 MiB decodes")
    }
}
