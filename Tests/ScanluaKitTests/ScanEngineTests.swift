import Foundation
import ScanluaKit
import XCTest

/// The library as a Swift program uses it: only the public API (no @testable import).
final class ScanEngineTests: XCTestCase {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    var images: String { root.appendingPathComponent("examples/images").path }
    var handlers: String { root.appendingPathComponent("scripts").path }

    func settings() -> ScanSettings {
        var s = ScanSettings()
        s.shippedHandlersDirectory = handlers
        s.store = ":memory:"
        return s
    }

    func testAFileGivesItsRecordWithTheShippedHandlersPayload() throws {
        let engine = try ScanEngine(settings())
        let records = try engine.scan(file: images + "/url.png")
        XCTAssertEqual(records.count, 1)
        let r = try XCTUnwrap(records.first)
        XCTAssertEqual(r.source, images + "/url.png")
        XCTAssertEqual(r.symbology, "qrcode")
        XCTAssertEqual(r.text, "http://bank.example@evil.example/login")
        XCTAssertEqual(r.bytes, Data("http://bank.example@evil.example/login".utf8))
        XCTAssertEqual(r.payload?["type"]?.string, "url")
        XCTAssertEqual(r.payload?["host"]?.string, "evil.example")
        XCTAssertEqual(r.points?.count, 4)
        XCTAssertNil(r.error)
    }

    /// A PDF's pages and a TIFF fax's, from a file and from bytes, each record with its page.
    func testDocumentsGiveEveryPageWithItsNumber() throws {
        var s = settings()
        s.timeBudget = 0
        s.pages = "1,3"
        let engine = try ScanEngine(s)
        let pdf = root.appendingPathComponent("Tests/ScanCoreTests/Fixtures/documents/three-pages.pdf").path
        let records = try engine.scan(file: pdf)
        XCTAssertEqual(records.map(\.page), [1, 3])
        XCTAssertEqual(records.map(\.text), ["INVOICE-1001 page 1", "page three: DataMatrix"])
        let fax = root.appendingPathComponent("Tests/ScanCoreTests/Fixtures/documents/fax-fine.tif").path
        let fromData = try engine.scan(data: try Data(contentsOf: URL(fileURLWithPath: fax)), name: "fax")
        XCTAssertEqual(fromData.map(\.page), [1])
        XCTAssertEqual(fromData.map(\.source), ["fax"])
        XCTAssertEqual(try ScanEngine(settings()).scan(file: images + "/url.png").first?.page, nil)
    }

    func testBytesAndPixelsGiveTheFilesCodes() throws {
        let engine = try ScanEngine(settings())
        let path = images + "/product-ean13.png"
        let fromFile = try engine.scan(file: path)
        let fromData = try engine.scan(data: try Data(contentsOf: URL(fileURLWithPath: path)), name: "upload")
        XCTAssertEqual(fromFile.map(\.text), ["4719512002889"])
        XCTAssertEqual(fromData.map(\.text), ["4719512002889"])
        XCTAssertEqual(fromData.first?.source, "upload")
        XCTAssertEqual(fromData.first?.payload?["type"]?.string, "product")
        // A gray buffer: a drawn EAN-13's bars (a module 3 px wide, 120 px tall, quiet zones of 11 modules).
        let modules = ean13Modules("471951200288")
        let width = (modules.count + 22) * 3, height = 120
        var pixels = [UInt8](repeating: 255, count: width * height)
        for y in 0..<height { for (i, dark) in modules.enumerated() where dark { for k in 0..<3 { pixels[y * width + (i + 11) * 3 + k] = 0 } } }
        let fromPixels = try engine.scan(pixels: pixels, width: width, height: height, name: "buffer")
        XCTAssertEqual(fromPixels.map(\.text), ["4719512002889"])
        XCTAssertEqual(fromPixels.first?.symbology, "ean13")
        let rgb = pixels.flatMap { [$0, $0, $0] }
        XCTAssertEqual(try engine.scan(pixels: rgb, width: width, height: height, format: .rgb).map(\.text), ["4719512002889"])
    }

    func testBadInputsAndSettingsAreErrorsThatSayWhy() throws {
        let engine = try ScanEngine(settings())
        XCTAssertThrowsError(try engine.scan(file: "/nonexistent/x.png")) { error in
            guard case ScanError.unreadableInput(let source, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(source, "/nonexistent/x.png")
            XCTAssertTrue(reason.contains("No such file"), reason)
        }
        XCTAssertThrowsError(try engine.scan(data: Data("not an image".utf8), name: "junk")) { error in
            guard case ScanError.unreadableInput("junk", _) = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try engine.scan(pixels: [0, 1, 2], width: 2, height: 2)) { error in
            XCTAssertEqual("\(error)", "pixels: expected 2 x 2 x 1 bytes, got 3")
        }
        var s = settings()
        s.symbologies = ["qrcode", "qrcod"]
        XCTAssertThrowsError(try ScanEngine(s)) { error in
            guard case ScanError.invalidSettings(let m) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(m.contains("unknown symbology 'qrcod'"), m)
        }
        s = settings()
        s.timeBudget = -1
        XCTAssertThrowsError(try ScanEngine(s)) { error in
            XCTAssertEqual(error as? ScanError, .invalidSettings("time_budget: expected a number at least 0"))
        }
        s = settings()
        s.scripts = [.source(name: "broken", code: "scan.parser{ name = 'x',\n")]
        XCTAssertThrowsError(try ScanEngine(s)) { error in
            guard case ScanError.scriptLoad(let m) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(m.contains("broken:"), m)
        }
    }

    func testScriptsFromSourceTextAndTheEngineKeepsItsLuaState() throws {
        var s = settings()
        s.shippedHandlers = false
        s.scripts = [.source(name: "count", code: """
            local scan = require "scan"
            local seen = 0
            scan.parser{ name = "counted", types = "counted",
                         parse = function(ev) seen = seen + 1; return { type = "counted", n = seen, text = ev.text } end }
            """)]
        let engine = try ScanEngine(s)
        let first = try engine.scan(file: images + "/url.png")
        let second = try engine.scan(file: images + "/url.png")
        XCTAssertEqual(first.first?.payload, .object(["type": .string("counted"), "n": .int(1), "text": .string("http://bank.example@evil.example/login")]))
        XCTAssertEqual(second.first?.payload?["n"], .int(2))
    }

    func testAPropertySetWinsOverTheConfigAndOneLeftNilTakesIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("init.lua").path
        try "require('scan').options { duplicates = 'once', empty_records = true }\n".write(toFile: config, atomically: true, encoding: .utf8)
        let url = images + "/url.png"
        let blank = [UInt8](repeating: 255, count: 64 * 64)

        var s = settings()
        s.config = config
        let fromConfig = try ScanEngine(s)
        XCTAssertEqual(try fromConfig.scan(file: url).count, 1)
        let again = try fromConfig.scan(file: url)
        XCTAssertEqual(again.map(\.repeated), [1], "the config's duplicates = once (and empty_records: the frame's record says so)")
        XCTAssertNil(again.first?.symbology)
        let empty = try fromConfig.scan(pixels: blank, width: 64, height: 64, name: "blank")
        XCTAssertEqual(empty.map(\.symbols), [0], "the config's empty_records")
        XCTAssertEqual(empty.first?.source, "blank")

        s.duplicates = .all
        s.emptyRecords = false
        let explicit = try ScanEngine(s)
        XCTAssertEqual(try explicit.scan(file: url).count, 1)
        XCTAssertEqual(try explicit.scan(file: url).count, 1, "duplicates = .all, set, wins over the config")
        XCTAssertEqual(try explicit.scan(pixels: blank, width: 64, height: 64).count, 0, "emptyRecords = false, set, wins")
    }

    func testSummariesAreThereWhenAskedFor() throws {
        let plain = try ScanEngine(settings())
        XCTAssertNil(try plain.scan(file: images + "/product-ean13.png").first?.summary)
        var s = settings()
        s.summaries = true
        let withSummaries = try ScanEngine(s)
        XCTAssertEqual(try withSummaries.scan(file: images + "/product-ean13.png").first?.summary,
                       "GTIN 04719512002889, from the GS1 TW range")
    }

    func testASourceIsAnAsyncSequenceOfRecordsInInputOrder() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["url.png", "product-ean13.png"] {
            try FileManager.default.copyItem(atPath: images + "/" + name, toPath: dir.appendingPathComponent(name).path)
        }
        try Data("not an image".utf8).write(to: dir.appendingPathComponent("broken.png"))
        var s = settings()
        s.emptyRecords = true
        let engine = try ScanEngine(s)
        var seen: [String] = []
        for try await record in engine.records(from: .paths([dir.path])) {
            seen.append((record.source as NSString).lastPathComponent + " " + (record.text ?? record.error.map { "error: " + $0 } ?? "-"))
        }
        XCTAssertEqual(seen.count, 3)
        XCTAssertTrue(seen[0].hasPrefix("broken.png error: "), seen[0])
        XCTAssertEqual(Array(seen.dropFirst()), ["product-ean13.png 4719512002889", "url.png http://bank.example@evil.example/login"])

        // A watched folder never ends by itself: leaving the loop ends it.
        var first: ScanRecord?
        for try await record in engine.records(from: .folder(dir.path)) where record.text != nil {
            first = record
            break
        }
        XCTAssertEqual(first?.text, "4719512002889")

        do {
            for try await _ in engine.records(from: .stream(dir.path + "/none.y4m")) {}
            XCTFail("a missing stream should fail")
        } catch let error as ScanError {
            XCTAssertEqual(error, .source("\(dir.path)/none.y4m: no such file, directory or camera"))
        }
    }

    func testARecordEncodesAsTheNDJSONRecord() throws {
        let line = #"{"source":"a.png","frame":0,"symbology":"qrcode","text":"hi","charset":"utf-8","bytes":"aGk=","points":[[1,2],[3,4]],"bbox":{"x":1,"y":2,"width":2,"height":2},"orientation":"up","quality":1,"decoder":"zxing","symbology_id":"]Q1","payload":{"type":"raw"}}"#
        let record = try JSONDecoder().decode(ScanRecord.self, from: Data(line.utf8))
        XCTAssertEqual(record.bytes, Data("hi".utf8))
        XCTAssertEqual(record.points, [.init(x: 1, y: 2), .init(x: 3, y: 4)])
        XCTAssertEqual(record.symbologyID, "]Q1")
        let again = try JSONDecoder().decode(ScanRecord.self, from: try JSONEncoder().encode(record))
        XCTAssertEqual(again, record)
    }

    /// The modules of an EAN-13 (true: a bar) for its first 12 digits and their check digit.
    func ean13Modules(_ digits12: String) -> [Bool] {
        let d = digits12.compactMap { $0.wholeNumberValue }
        let sum = d.enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) }
        let all = d + [(10 - sum % 10) % 10]
        let l = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
        let g = ["0100111", "0110011", "0011011", "0100001", "0011101", "0111001", "0000101", "0010001", "0001001", "0010111"]
        let r = ["1110010", "1100110", "1101100", "1000010", "1011100", "1001110", "1010000", "1000100", "1001000", "1110100"]
        let parity = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"][all[0]]
        var bits = "101"
        for (i, p) in parity.enumerated() { bits += p == "L" ? l[all[i + 1]] : g[all[i + 1]] }
        bits += "01010"
        for i in 7...12 { bits += r[all[i]] }
        bits += "101"
        return bits.map { $0 == "1" }
    }
}
