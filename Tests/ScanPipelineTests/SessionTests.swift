import Foundation
import ScanCore
import ScanPipeline
import ScanStore
import XCTest
@testable import ScanScript

/// The whole pipeline through ScanSession: real fixture images, real zbar, Lua handlers, the
/// store and the actions, down to the records a sink receives.
final class SessionTests: PipelineTestCase {
    // MARK: Session filter

    func testDuplicatePoliciesOverAABA() throws {
        let engine = try makeEngine(Self.echo)
        let frames = ["qrcode.png", "qrcode.png", "ean13.png", "qrcode.png"]
        let expected: [(String, [String], [Int])] = [
            ("all", [Fixtures.qr, Fixtures.qr, Fixtures.ean13, Fixtures.qr], [0, 1, 2, 3]),
            ("once", [Fixtures.qr, Fixtures.ean13], [0, 2]),
            ("consecutive", [Fixtures.qr, Fixtures.ean13, Fixtures.qr], [0, 2, 3]),
        ]
        for (policy, records, indices) in expected {
            let (sink, report) = scan(try memory(frames), settings: try settings(["duplicates": .string(policy)]), engine: engine)
            XCTAssertEqual(sink.brief, records, policy)
            XCTAssertEqual(sink.records.map(\.info.index), indices, policy)
            XCTAssertEqual(report.frames, 4, policy)
            XCTAssertEqual(report.accepted, records.count, policy)
            // Each record's payload is what the parser made of that very frame's symbol.
            for r in sink.records {
                let text = r.symbol?.text ?? ""
                XCTAssertEqual(r.payload?.serialized, #"{"type":"echo","frame":\#(r.info.index),"text":"\#(text)"}"#, policy)
            }
        }
    }

    func testOnceStopsAfterTheFirstAcceptedCode() throws {
        let engine = try makeEngine(Self.echo)
        let (sink, report) = scan(try memory(["blank.png", "ean13.png", "qrcode.png", "code128.png"]),
                                  settings: try settings(["once": .bool(true)]), engine: engine)
        XCTAssertEqual(sink.brief, [Fixtures.ean13])
        XCTAssertEqual(sink.records.map(\.info.index), [1])
        XCTAssertEqual(report.frames, 2, "no frame after the accepted one is handled")
        XCTAssertEqual(report.accepted, 1)

        // A frame with three codes: only the first of them.
        let (sink2, report2) = scan(try memory(["several.png", "qrcode.png"]), settings: try settings(["once": .bool(true)]), engine: engine)
        XCTAssertEqual(sink2.records.count, 1, "\(sink2.brief)")
        XCTAssertEqual(report2.accepted, 1)
        XCTAssertEqual(report2.frames, 1)
    }

    func testIntervalUsesFrameCaptureTime() throws {
        let engine = try makeEngine(Self.echo)
        let qr = try Fixtures.image("qrcode.png"), ean = try Fixtures.image("ean13.png")
        let base = 1_700_000_000.0
        // Fed as fast as the session takes them: by wall clock all of them are within one second.
        let timeline: [(GrayImage, Double)] = [(qr, 0), (ean, 0.5), (qr, 0.99), (qr, 1.0), (ean, 1.2), (qr, 1.5), (ean, 1.6), (qr, 2.1)]
        let source = TimedSource(name: "cam", frames: timeline.map { ($0.0, Date(timeIntervalSince1970: base + $0.1)) })
        let s = try settings(["duplicates": .string("interval"), "interval": .double(1)])
        let (sink, report) = scan(source, settings: s, engine: engine)
        XCTAssertEqual(sink.brief, [Fixtures.qr, Fixtures.ean13, Fixtures.qr, Fixtures.ean13, Fixtures.qr])
        XCTAssertEqual(sink.records.map(\.info.index), [0, 1, 3, 6, 7])
        let times = sink.records.map { $0.info.time.timeIntervalSince1970 - base }
        XCTAssertEqual(times.count, 5)
        for (t, e) in zip(times, [0, 0.5, 1.0, 1.6, 2.1]) { XCTAssertEqual(t, e, accuracy: 1e-6, "records carry the frames' capture times") }
        XCTAssertEqual(report.frames, 8)
        XCTAssertEqual(report.accepted, 5)
    }

    // MARK: Inputs

    func testRecordsComeInInputOrderForTwentyFiles() throws {
        let engine = try makeEngine(Self.echo)
        let cycle = [("qrcode.png", Fixtures.qr), ("ean13.png", Fixtures.ean13), ("code128.png", Fixtures.code128), ("ean8.png", Fixtures.ean8)]
        var paths: [String] = [], expected: [String] = []
        for i in 0..<20 {
            let (name, text) = cycle[i % cycle.count]
            let path = dir.appendingPathComponent(String(format: "in-%02d-%@", i, name)).path
            try FileManager.default.copyItem(atPath: Fixtures.path(name), toPath: path)
            paths.append(path)
            expected.append(text)
        }
        let (sink, report) = scan(FileListSource(arguments: paths), settings: try settings(), engine: engine)
        XCTAssertEqual(sink.brief, expected)
        XCTAssertEqual(sink.records.map(\.info.source), paths)
        XCTAssertEqual(report.frames, 20)
        XCTAssertEqual(report.accepted, 20)
        XCTAssertEqual(report.failedInputs, 0)
        XCTAssertEqual(report.emptyFrames, 0)
    }

    func testUnreadableInputsGetErrorRecordsInTheirPlace() throws {
        let engine = try makeEngine(Self.echo)
        let garbage = dir.appendingPathComponent("garbage.png").path
        try Data("this is not an image at all\n".utf8).write(to: URL(fileURLWithPath: garbage))
        let missing = dir.appendingPathComponent("missing.png").path
        let paths = [Fixtures.path("qrcode.png"), garbage, missing, Fixtures.path("ean13.png")]
        let (sink, report) = scan(FileListSource(arguments: paths), settings: try settings(), engine: engine)
        XCTAssertEqual(sink.brief, [Fixtures.qr, "error:not an image or document: no signature of JPEG, PNG, PNM, TIFF, WebP, HEIF/AVIF, GIF, BMP, PDF",
                                    "error:cannot read file: No such file or directory", Fixtures.ean13])
        XCTAssertEqual(sink.records.map(\.info.source), paths)
        XCTAssertEqual(sink.records[1].json.serialized, #"{"source":"\#(garbage)","frame":0,"error":"not an image or document: no signature of JPEG, PNG, PNM, TIFF, WebP, HEIF/AVIF, GIF, BMP, PDF"}"#)
        XCTAssertEqual(sink.records[2].json.serialized, #"{"source":"\#(missing)","frame":0,"error":"cannot read file: No such file or directory"}"#)
        XCTAssertEqual(report.failedInputs, 2)
        XCTAssertEqual(report.frames, 2)
        XCTAssertEqual(report.accepted, 2)
        XCTAssertEqual(sink.records[3].payload?.serialized, #"{"type":"echo","frame":0,"text":"4719512002889"}"#)
    }

    // MARK: Scripts through the session

    func testStopActionEndsTheScanAfterTheCurrentFrame() throws {
        let engine = try makeEngine("""
            local scan = require "scan"
            scan.rule {
              name = "stopper",
              when = function(p, ev) return ev.symbology == "ean13" end,
              run = function(p, ctx) return { type = "stop" } end,
            }
            """)
        let (sink, report) = scan(try memory(["qrcode.png", "several.png", "ean13.png", "qrcode.png"]), settings: try settings(), engine: engine)
        XCTAssertEqual(sink.records.map(\.info.index), [0, 1, 1, 1], "\(sink.brief)")
        XCTAssertEqual(sink.brief.first, Fixtures.qr)
        XCTAssertEqual(Set(sink.brief.dropFirst()), [Fixtures.qr, Fixtures.ean13, Fixtures.code128], "the whole current frame is written")
        let ean = try XCTUnwrap(sink.records.first { $0.symbol?.symbology.rawValue == "ean13" })
        XCTAssertEqual(ean.actions.map(\.serialized), [#"{"type":"stop","rule":"stopper","status":"done"}"#])
        XCTAssertEqual(ean.payload?.serialized, #"{"type":"raw"}"#)
        XCTAssertEqual(report.frames, 2)
        XCTAssertEqual(report.accepted, 4)
    }

    func testRaisingParserLeavesItsErrorAndTheNextParsersPayload() throws {
        let engine = try makeEngine("""
            local scan = require "scan"
            scan.parser { name = "broken", priority = 10, parse = function(ev)
              error("no good: " .. ev.text)
            end }
            scan.parser { name = "fine", parse = function(ev) return { text = ev.text } end }
            """)
        let (sink, _) = scan(try memory(["qrcode.png"]), settings: try settings(), engine: engine)
        XCTAssertEqual(sink.brief, [Fixtures.qr])
        let r = try XCTUnwrap(sink.records.first)
        XCTAssertEqual(r.payload?.serialized, #"{"type":"fine","text":"https://example.com/scanlua"}"#)
        XCTAssertEqual(r.errors.count, 1)
        XCTAssertEqual(r.errors.first?["parser"], .string("broken"))
        XCTAssertEqual(r.errors.first?["message"], .string("\(scriptPath(1)):3: no good: https://example.com/scanlua"))
        guard case .string(let traceback)? = r.errors.first?["traceback"] else { return XCTFail("no traceback: \(r.errors)") }
        XCTAssertTrue(traceback.hasPrefix("stack traceback:"), traceback)
        let json = r.json.serialized
        XCTAssertTrue(json.hasPrefix(#"{"source":"mem","frame":0,"symbology":"qrcode","text":"https://example.com/scanlua","charset":"utf-8","bytes":"aHR0cHM6Ly9leGFtcGxlLmNvbS9zY2FubHVh","points":["#), json)
        XCTAssertTrue(json.contains(#","payload":{"type":"fine","text":"https://example.com/scanlua"},"errors":[{"#), json)
    }

    // MARK: Store and --dry-run

    /// A file database with a `seen` table, made before the engine opens it.
    func makeDatabase() throws -> String {
        let path = dir.appendingPathComponent("store.db").path
        try Store(path: path).db().execute("CREATE TABLE seen (text TEXT NOT NULL)")
        return path
    }

    func rows(_ path: String) throws -> [String] {
        try Store(path: path).db().query("SELECT text FROM seen ORDER BY rowid").map { row in
            guard case .text(let t)? = row.first?.1 else { return "?" }
            return t
        }
    }

    func testDryRunRollsBackStoreWritesAndOnlyMarksActions() throws {
        let db = try makeDatabase()
        let appendPath = "scanlua-dry-run-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: appendPath) }
        let engine = try makeEngine("""
            local scan, store = require "scan", require "store"
            scan.rule { name = "remember", run = function(p, ctx)
              store.exec("INSERT INTO seen (text) VALUES (?)", { ctx.event.text })
              return { type = "append", path = "\(appendPath)", line = ctx.event.text }
            end }
            """, database: db)
        var s = try settings()
        s.dryRun = true
        let (sink, _) = scan(try memory(["qrcode.png", "ean13.png"]), settings: s, engine: engine)
        XCTAssertEqual(sink.brief, [Fixtures.qr, Fixtures.ean13])
        XCTAssertEqual(sink.records.map { $0.errors }, [[], []])
        XCTAssertEqual(sink.records.map { $0.actions.map(\.serialized) }, [
            [#"{"type":"append","line":"https://example.com/scanlua","path":"\#(appendPath)","rule":"remember","status":"dry-run"}"#],
            [#"{"type":"append","line":"4719512002889","path":"\#(appendPath)","rule":"remember","status":"dry-run"}"#],
        ])
        XCTAssertEqual(try rows(db), [], "a dry run leaves no row")
        XCTAssertFalse(FileManager.default.fileExists(atPath: appendPath), "a dry run appends nothing")
    }

    func testWithoutDryRunAnEventsWritesAreKeptOnlyWhenNoHandlerFailed() throws {
        let db = try makeDatabase()
        let engine = try makeEngine("""
            local scan, store = require "scan", require "store"
            scan.rule { name = "remember", run = function(p, ctx)
              store.exec("INSERT INTO seen (text) VALUES (?)", { ctx.event.text })
            end }
            scan.rule { name = "picky", run = function(p, ctx)
              if ctx.event.symbology == "qrcode" then error("no QR codes here") end
            end }
            """, database: db)
        let (sink, _) = scan(try memory(["qrcode.png", "ean13.png", "code128.png"]), settings: try settings(), engine: engine)
        XCTAssertEqual(sink.brief, [Fixtures.qr, Fixtures.ean13, Fixtures.code128])
        XCTAssertEqual(sink.records[0].errors.count, 1)
        XCTAssertEqual(sink.records[0].errors.first?["rule"], .string("picky"))
        XCTAssertEqual(sink.records[0].errors.first?["message"], .string("\(scriptPath(1)):6: no QR codes here"))
        XCTAssertEqual(sink.records[1].errors, [])
        XCTAssertEqual(try rows(db), ["4719512002889", "scanlua-Code128 ok"], "the failed event's insert is rolled back, the others kept")
    }

    // MARK: Lua decoders

    func testLuaImageDecodersRunOnEveryFrameAndTheirSymbolsGetRecords() throws {
        let engine = try makeEngine(Self.echo + """

            scan.decoder { name = "lines", kind = "image", decode = function(frame) return "x" end }
            scan.decoder { name = "size", kind = "image", decode = function(frame) return frame.width .. "x" .. frame.height end }
            """)
        let names = ["blank.png", "qrcode.png", "ean13.png"]
        let images = try names.map(Fixtures.image)
        let sizes = images.map { "size:\($0.width)x\($0.height)" }
        let (sink, report) = scan(MemorySource(name: "mem", frames: images), settings: try settings(), engine: engine)
        XCTAssertEqual(sink.brief, ["lines:x", sizes[0], Fixtures.qr, "lines:x", sizes[1], Fixtures.ean13, "lines:x", sizes[2]])
        XCTAssertEqual(sink.records.map(\.info.index), [0, 0, 1, 1, 1, 2, 2, 2])
        let lines = sink.records[0]
        XCTAssertTrue(lines.json.serialized.hasPrefix(#"{"source":"mem","frame":0,"symbology":"lines","text":"x","charset":"utf-8","bytes":"eA==","#),
                      lines.json.serialized)
        XCTAssertEqual(lines.payload?.serialized, #"{"type":"echo","frame":0,"text":"x"}"#)
        XCTAssertEqual(report.frames, 3)
        XCTAssertEqual(report.emptyFrames, 0)
        XCTAssertEqual(report.accepted, 8)

        // With zbar off only the Lua decoders read the frames.
        let (sink2, _) = scan(try memory(["qrcode.png"]), settings: try settings(["symbologies": .string("none")]), engine: engine)
        XCTAssertEqual(sink2.brief, ["lines:x", sizes[1]])
    }

    func testReportCountsFramesEmptyFramesAndAcceptedSymbols() throws {
        let engine = try makeEngine(Self.echo)
        let (sink, report) = scan(try memory(["blank.png", "qrcode.png", "blank.png", "several.png", "qrcode.png"]),
                                  settings: try settings(["duplicates": .string("once")]), engine: engine)
        XCTAssertEqual(sink.records.count, 3, "\(sink.brief)")
        XCTAssertEqual(report.frames, 5)
        XCTAssertEqual(report.emptyFrames, 2)
        XCTAssertEqual(report.accepted, 3, "the qr code once, then the ean13 and code128 of several.png")
        XCTAssertEqual(report.failedInputs, 0)
        XCTAssertEqual(report.dropped, 0)
        XCTAssertNil(report.sourceError)
    }
    // MARK: Actions and hooks

    func testActionsAreCarriedOutAndEachGetsItsStatus() throws {
        let out = dir.appendingPathComponent("codes.txt").path
        let untrusted = try makeEngine("""
            local scan = require "scan"
            scan.rule { name = "files", run = function(p, ctx)
              return { { type = "append", path = "\(out)", line = ctx.event.text },
                       { type = "append", path = "\(out)", line = 5 },
                       { type = "append", path = "../escape.txt", line = "x" } }
            end }
            """)
        let (sink, _) = scan(try memory(["qrcode.png"]), settings: try settings(), engine: untrusted)
        XCTAssertEqual(sink.records.first?.actions.map(\.serialized), [
            #"{"type":"append","line":"https://example.com/scanlua","path":"\#(out)","rule":"files","status":"failed","error":"\#(out): append is limited to paths below the working directory (use --trust to lift this)"}"#,
            #"{"type":"append","line":5,"path":"\#(out)","rule":"files","status":"failed","error":"append needs a 'line' string"}"#,
            #"{"type":"append","line":"x","path":"../escape.txt","rule":"files","status":"failed","error":"../escape.txt: append is limited to paths below the working directory (use --trust to lift this)"}"#,
        ])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))

        let trusted = try makeEngine("""
            local scan = require "scan"
            scan.rule { name = "files", run = function(p, ctx) return { type = "append", path = "\(out)", line = ctx.event.text } end }
            """, trust: true)
        let (sink2, _) = scan(try memory(["qrcode.png", "ean13.png"]), settings: try settings(), engine: trusted)
        XCTAssertEqual(sink2.records.map { $0.actions.map(\.serialized) }, [
            [#"{"type":"append","line":"https://example.com/scanlua","path":"\#(out)","rule":"files","status":"done"}"#],
            [#"{"type":"append","line":"4719512002889","path":"\#(out)","rule":"files","status":"done"}"#],
        ])
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "https://example.com/scanlua\n4719512002889\n")
    }

    func testSessionHooksSeeEveryFrameBeforeTheFilterAndTheCountsAtTheEnd() throws {
        let engine = try makeEngine(Self.echo + """

            scan.on_start(function() print("start") end)
            scan.on_frame(function(f)
              local names = {}
              for i, s in ipairs(f.symbols) do names[i] = s.symbology .. ":" .. s.text end
              print(string.format("frame %s %d %dx%d [%s]", f.source, f.index, f.width, f.height, table.concat(names, ",")))
            end)
            scan.on_stop(function(s) print(string.format("stop frames=%d accepted=%d dropped=%d", s.frames, s.accepted, s.dropped)) end)
            """)
        let names = ["qrcode.png", "qrcode.png", "blank.png", "ean13.png"]
        let images = try names.map(Fixtures.image)
        let (sink, _) = scan(MemorySource(name: "mem", frames: images), settings: try settings(["duplicates": .string("once")]), engine: engine)
        XCTAssertEqual(sink.brief, [Fixtures.qr, Fixtures.ean13])
        let size = { (i: Int) in "\(images[i].width)x\(images[i].height)" }
        XCTAssertEqual(logged, [
            "start\n",
            "frame mem 0 \(size(0)) [\(Fixtures.qr)]\n",
            "frame mem 1 \(size(1)) [\(Fixtures.qr)]\n",
            "frame mem 2 \(size(2)) []\n",
            "frame mem 3 \(size(3)) [\(Fixtures.ean13)]\n",
            "stop frames=4 accepted=2 dropped=0\n",
        ])
    }
    func testAFailingLuaDecoderIsLoggedAndTheFrameGoesOn() throws {
        let engine = try makeEngine(Self.echo + """

            scan.decoder { name = "broken", kind = "image", decode = function(frame)
              error("cannot read " .. frame.width)
            end }
            scan.decoder { name = "fine", kind = "image", decode = function(frame) return { text = "ok", points = { { x = 1, y = 2 } } } end }
            """)
        let image = try Fixtures.image("qrcode.png")
        let (sink, report) = scan(MemorySource(name: "mem", frames: [image, image]), settings: try settings(), engine: engine)
        XCTAssertEqual(sink.brief, [Fixtures.qr, "fine:ok", Fixtures.qr, "fine:ok"])
        XCTAssertEqual(sink.records[1].symbol?.points, [Point(x: 1, y: 2)])
        XCTAssertEqual(logged, Array(repeating: "scanlua: decoder 'broken' on mem: \(scriptPath(1)):4: cannot read \(image.width)\n", count: 2))
        XCTAssertEqual(report.frames, 2)
    }
}
