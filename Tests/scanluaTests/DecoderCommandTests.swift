import Foundation
import XCTest

/// Lua decoders (scan.decoder) end to end: Pharmacode from zint images, image decoders, --roi.
final class DecoderCommandTests: XCTestCase {
    let pharmacode = "examples/new-code-type/pharmacode.lua"
    let images = CLI.packageRoot.appendingPathComponent("examples/new-code-type/images").path
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-dec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// A script file in this test's folder: its path.
    func script(_ name: String, _ source: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try source.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testPharmacodesFromZintImagesAndNothingFromNoise() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: images).filter { $0.hasPrefix("pharma-") }.sorted()
        XCTAssertEqual(files.count, 21, "with pharma-1234-edge (no quiet zone, zint's default) and pharma-4711-r90 (turned 90°)")
        let r = try CLI.run(["scan", "--symbologies", "none", "--script", pharmacode] + files.map { images + "/" + $0 })
        XCTAssertEqual(r.status, 0, r.stderr)
        let got = r.records.map { (($0["source"] as? String ?? "") as NSString).lastPathComponent + "=" + ($0["text"] as? String ?? "?") }
        // pharma-<value>-<variant>: every file gives exactly its value.
        XCTAssertEqual(got, files.map { "\($0)=\($0.split(separator: "-")[1])" })
        XCTAssertTrue(r.records.allSatisfy { $0["symbology"] as? String == "pharmacode" })

        let noise = try CLI.run(["scan", "--symbologies", "none", "--script", pharmacode,
                                 images + "/noise-random.png", images + "/noise-impulse.png", images + "/noise-blobs.png"])
        XCTAssertEqual(noise.stdout, "")
        XCTAssertEqual(noise.status, 4, "nothing found")
    }

    func testDecodedSymbolsHavePointsAndFlowThroughParsers() throws {
        let parser = try script("lot.lua", """
            require("scan").parser { name = "lot", symbologies = "pharmacode", parse = function(ev)
              return { type = "lot", number = tonumber(ev.text), siblings = #ev.siblings }
            end }
            """)
        let frame = images + "/frame-640x480-pharma-1234.png"
        let r = try CLI.run(["scan", "--script", pharmacode, "--script", parser, frame])
        let rec = try XCTUnwrap(r.records.first { $0["symbology"] as? String == "pharmacode" })
        XCTAssertEqual(rec["text"] as? String, "1234")
        XCTAssertEqual((rec["payload"] as? [String: Any])?["number"] as? Int, 1234)
        let bbox = try XCTUnwrap(rec["bbox"] as? [String: Int])
        // The code was composited at +300+200 with an 8-module (32 px) quiet zone.
        XCTAssertEqual(bbox["x"]!, 332, accuracy: 3)
        XCTAssertGreaterThan(bbox["y"]!, 200)
        XCTAssertGreaterThanOrEqual(rec["quality"] as? Int ?? 0, 3)
    }

    func testROILimitsZbarAndLuaDecodersAndKeepsFrameCoordinates() throws {
        let frame = images + "/frame-640x480-pharma-1234.png"
        let outside = try CLI.run(["scan", "--symbologies", "none", "--script", pharmacode, "--roi", "0,0,300,480", frame])
        XCTAssertEqual(outside.stdout, "")
        let inside = try CLI.run(["scan", "--symbologies", "none", "--script", pharmacode, "--roi", "0.4,0.3,0.6,0.7", frame])
        XCTAssertEqual(inside.records.first?["text"] as? String, "1234")

        let several = CLI.fixture("several.png")
        let qrOnly = try CLI.run(["scan", "--no-default-scripts", "--roi", "0,80,150,150", several])
        XCTAssertEqual(qrOnly.records.map { $0["symbology"] as? String }, ["qrcode"])
        let all = try CLI.run(["scan", "--no-default-scripts", several])
        let full = try XCTUnwrap(all.records.first { $0["symbology"] as? String == "qrcode" })
        XCTAssertEqual(qrOnly.records.first?["bbox"] as? [String: Int], full["bbox"] as? [String: Int], "points stay in frame coordinates")

        let bad = try CLI.run(["scan", "--roi", "1,2,3", several])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("expected x,y,w,h (four numbers), got '1,2,3'"), bad.stderr)
    }

    func testImageDecoderSeesAFrameViewOfTheRegion() throws {
        let probe = CLI.packageRoot.appendingPathComponent("Tests/scanluaTests/Lua/frame-probe.lua").path
        let r = try CLI.run(["scan", "--symbologies", "none", "--no-default-scripts", "--script", probe,
                             "--roi", "10,20,40,30", CLI.fixture("qrcode.png")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let rec = try XCTUnwrap(r.records.first)
        XCTAssertEqual(rec["symbology"] as? String, "frame-probe")
        let text = try XCTUnwrap(rec["text"] as? String)
        XCTAssertTrue(text.hasPrefix("w=40 h=30 x=10 y=20 otsu="), text)
        XCTAssertTrue(text.contains(" row=40 col=30 crop=10x5@11,22 "), text)
        XCTAssertTrue(text.hasSuffix(" adaptive=1200"), text)
        // The decoder's points are relative to its view; the symbol's are in frame coordinates.
        XCTAssertEqual(rec["bbox"] as? [String: Int], ["x": 10, "y": 20, "width": 10, "height": 10])
        XCTAssertEqual((rec["payload"] as? [String: Any])?["type"] as? String, "probe")
    }

    /// A decoder that removes itself mid-frame shifts no other: the host calls decoders by the
    /// index they had when the frame began (the next one was once called as nil: "prelude/frames:42:
    /// attempt to index a nil value (local 'd')", and its symbol was lost).
    func testADecoderRemovedMidFrameLeavesTheOthersInPlace() throws {
        let once = try script("once.lua", """
            local scan = require "scan"
            local h
            h = scan.decoder { name = "once", kind = "image", decode = function(f) scan.remove(h) end }
            scan.decoder { name = "second", kind = "image", decode = function(f) return "found" end }
            """)
        let r = try CLI.run(["scan", "--no-default-scripts", "--script", once, CLI.fixture("qrcode.png"), CLI.fixture("ean13.png")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.filter { $0["symbology"] as? String == "second" }.map { $0["text"] as? String }, ["found", "found"], r.stdout)
    }

    func testFailingDecodersAreReportedAndTheScanGoesOn() throws {
        let bad = try script("bad-decoders.lua", """
            local scan = require "scan"
            scan.decoder { name = "crashes", decode = function(line) return line.nothing.here end }
            scan.decoder { name = "spins", kind = "image", decode = function(f) while true do end end }
            scan.decoder { name = "odd", decode = function(line) return 42 end }
            """)
        let r = try CLI.run(["scan", "--no-default-scripts", "--instruction-limit", "100000", "--script", bad, CLI.fixture("qrcode.png")])
        XCTAssertEqual(r.status, 3, "failing decoders make the exit status 3 (issue 23)")
        XCTAssertEqual(r.records.map { $0["text"] as? String }, ["https://example.com/scanlua"], "zbar's symbol still comes out")
        XCTAssertTrue(r.stderr.contains("decoder 'crashes' on \(CLI.fixture("qrcode.png")): "), r.stderr)
        XCTAssertTrue(r.stderr.contains("bad-decoders.lua:2: attempt to index a nil value (field 'nothing')"), r.stderr)
        XCTAssertTrue(r.stderr.contains("bad-decoders.lua:3: instruction budget exceeded (100000 instructions)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("decode must return nil, a string, a {text=...} table or a list of them, got number"), r.stderr)

        let clash = try script("clash.lua", "require('scan').decoder { name = 'qrcode', decode = function() end }\n")
        let c = try CLI.run(["scan", "--script", clash, CLI.fixture("qrcode.png")])
        XCTAssertEqual(c.status, 2)
        XCTAssertTrue(c.stderr.contains("clash.lua:1: scan.decoder: 'qrcode' is a built-in symbology; pick another name"), c.stderr)
    }
}
