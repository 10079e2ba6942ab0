import Foundation
import XCTest

/// `scanlua scan` and `watch` on hostile files: each bad one is its own error record naming the
/// file and the reason, and the good ones around it still give their records.
final class HostileInputCommandTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    @discardableResult
    private func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    private func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: CLI.fixture(name))))
    }

    /// Corrupt but decodable (junk before the end marker, made by scripts/make-fixtures): the code
    /// is read, and the record says what libjpeg skipped; text mode says it on stderr.
    func testACorruptButDecodableJPEGIsReadWithAWarning() throws {
        let path = CLI.fixture("jpeg-extraneous.jpg")
        let warning = "JPEG: Corrupt JPEG data: 93 extraneous bytes before marker 0xd9"
        let r = try CLI.run(["scan", "--no-default-scripts", path, CLI.fixture("jpeg-plain.jpg")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.count, 2)
        XCTAssertEqual(r.records[0]["text"] as? String, "https://example.com/scanlua")
        XCTAssertEqual(r.records[0]["warnings"] as? [String], [warning])
        XCTAssertNil(r.records[1]["warnings"], "a clean JPEG has none")
        let text = try CLI.run(["scan", "--format", "text", "--no-default-scripts", path])
        XCTAssertEqual(text.stdout, "QR-Code:https://example.com/scanlua\n")
        XCTAssertEqual(text.stderr, "scanlua: \(path): warning: \(warning)\n")
    }

    /// jpeg-plain.jpg with its scan pointing at Huffman tables it never defines: whole to the
    /// MJPEG splitter, refused by libjpeg.
    private func undecodableJPEG() throws -> [UInt8] {
        var bytes = try fixture("jpeg-plain.jpg")
        var i = 2
        while bytes[i + 1] != 0xDA { i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])) }
        bytes[i + 6] = 0x33
        return bytes
    }

    func testFolderWithHostileFilesGivesARecordForEachFile() throws {
        let huge = try write("a-huge.pgm", Array("P5 1000000000000 1000000000000 255\n".utf8))
        let truncated = try write("b-header-only.ppm", Array("P6 5000 5000 255\n".utf8))
        let empty = try write("c-empty.png", [])
        let over = try write("d-over-maxval.pgm", Array("P2 2 1 100\n5 200\n".utf8))
        let good = try write("e-good.png", try fixture("qrcode.png"))
        let wide = try write("f-16bit.pgm", Array("P5 2 1 1000\n".utf8) + [0x03, 0xE8, 0x03, 0xE9])
        let r = try CLI.run(["scan", "--no-default-scripts", dir.path])
        XCTAssertEqual(r.status, 1, r.stderr)
        let records = r.records
        XCTAssertEqual(records.map { $0["source"] as? String ?? "?" }, [huge, truncated, empty, over, good, wide])
        XCTAssertEqual(records.map { $0["error"] as? String ?? "-" }, [
            "image is 1000000000000x1000000000000 = more than 9223372036854775807 pixels, over the limit of 50000000 (see --max-pixels)",
            "corrupt PNM: truncated raster: 0 of 75000000 bytes",
            "empty file",
            "corrupt PNM: sample 200 at pixel (1, 0) is over maxval 100",
            "-",
            "corrupt PNM: sample 1001 at pixel (1, 0) is over maxval 1000",
        ])
        XCTAssertEqual(records[4]["text"] as? String, "https://example.com/scanlua")
    }

    func testEmptyFileAndEmptyStdin() throws {
        let empty = try write("zero.jpg", [])
        let r = try CLI.run(["scan", "--no-default-scripts", empty])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.records.count, 1)
        XCTAssertEqual(r.records.first?["source"] as? String, empty)
        XCTAssertEqual(r.records.first?["error"] as? String, "empty file")
        let stdin = try CLI.run(["scan", "--no-default-scripts", "-"], stdin: Data())
        XCTAssertEqual(stdin.status, 1)
        XCTAssertEqual(stdin.records.first?["source"] as? String, "-")
        XCTAssertEqual(stdin.records.first?["error"] as? String, "empty file")
    }

    func testMaxPixelsLimitsPNMLikeOtherFormats() throws {
        let pgm = try write("small.pgm", Array("P5 3 2 255\n".utf8) + [UInt8](repeating: 0, count: 6))
        let r = try CLI.run(["scan", "--no-default-scripts", "--max-pixels", "5", pgm])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.records.first?["error"] as? String, "image is 3x2 = 6 pixels, over the limit of 5 (see --max-pixels)")
    }

    func testY4MWithOverflowingSizeIsASourceError() throws {
        let y4m = try write("big.y4m", Array("YUV4MPEG2 W4294967296 H4294967296\n".utf8))
        let r = try CLI.run(["watch", "--no-default-scripts", "--quiet", y4m])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.records.count, 0)
        XCTAssertTrue(r.stderr.contains("scanlua: \(y4m): bad YUV4MPEG2 size W4294967296 H4294967296"), r.stderr)
    }

    func testCorruptMJPEGFrameIsThatFramesErrorAndTheStreamGoesOn() throws {
        let good = try fixture("jpeg-plain.jpg")
        let stream = try write("cam.mjpeg", good + (try undecodableJPEG()) + good)
        let r = try CLI.run(["watch", "--no-default-scripts", "--quiet", "--duplicates", "all", stream])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        let records = r.records
        XCTAssertEqual(records.count, 3, r.stdout)
        guard records.count == 3 else { return }
        XCTAssertEqual(records[0]["source"] as? String, stream)
        XCTAssertEqual(records[0]["frame"] as? Int, 0, "every record has its frame, 0 too")
        XCTAssertEqual(records[0]["text"] as? String, "https://example.com/scanlua")
        XCTAssertEqual(records[1]["source"] as? String, "\(stream)#1")
        XCTAssertEqual(records[1]["error"] as? String, "corrupt JPEG: Huffman table 0x03 was not defined")
        XCTAssertEqual(records[2]["source"] as? String, stream)
        XCTAssertEqual(records[2]["frame"] as? Int, 2)
        XCTAssertEqual(records[2]["text"] as? String, "https://example.com/scanlua")
    }

    /// Issue 21: decompression bombs within the defaults. Small crafted PNGs (60 KB each) of 49
    /// megapixels decode one after the other (the decoding threads share a pixel budget): the scan
    /// stays under 300 MB; one of 100 megapixels is refused from its header, naming the limit and
    /// the flag, before anything is allocated.
    func testCraftedLargeImagesStayUnderTheMemoryPeak() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-bombs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = """
            import struct, sys, zlib
            def png(path, w, h):
                raw = zlib.compress((b"\\x00" + b"\\xff" * w) * h, 9)
                def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
                open(path, "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                                       + chunk(b"IDAT", raw) + chunk(b"IEND", b""))
            png(sys.argv[1] + "/a.png", 7000, 7000)
            png(sys.argv[1] + "/b.png", 7000, 7000)
            png(sys.argv[1] + "/huge.png", 10000, 10000)
            """
        XCTAssertEqual(try Process.outputAndStatus("/usr/bin/python3", ["-c", script, dir.path]).status, 0)
        let a = dir.appendingPathComponent("a.png").path, b = dir.appendingPathComponent("b.png").path
        let timed = try Process.outputAndStatus("/usr/bin/time", ["-f", "peak %M", CLI.binary.path, "scan", "--no-default-scripts", a, b])
        let peak = timed.output.split(separator: "\n").last { $0.hasPrefix("peak ") }.flatMap { Int($0.dropFirst(5)) } ?? Int.max
        if ProcessInfo.processInfo.environment["SCANLUA_ASAN"] == nil {
            XCTAssertLessThan(peak, 300 << 10, "peak RSS \(peak) KiB: \(timed.output)")
        }
        let huge = try CLI.run(["scan", "--no-default-scripts", dir.appendingPathComponent("huge.png").path])
        XCTAssertEqual(huge.status, 1)
        XCTAssertEqual(huge.records.first?["error"] as? String,
                       "image is 10000x10000 = 100000000 pixels, over the limit of 50000000 (see --max-pixels)", huge.stdout)
    }

    /// Issue 20, item 6: a 25 MP grid of QR finder patterns (a 100 KB PNG; zxing-cpp spends 85 s
    /// on a 49 MP one in one call) ends within the time budget: the full-size pass goes tile by
    /// tile, the budget is asked between passes, and the image's record says what was skipped.
    func testAFinderPatternGridEndsWithinTheTimeBudget() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-grid-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = """
            import struct, sys, zlib
            size, m = 5000, 2
            pat = [[255 if x == 7 or y == 7 else (0 if max(abs(x - 3), abs(y - 3)) in (3, 1, 0) else 255) for x in range(8)] for y in range(8)]
            rows = []
            for y in range(size):
                line = bytes(pat[(y // m) % 8][(x // m) % 8] for x in range(8 * m))
                rows.append(b"\\x00" + (line * (size // (8 * m) + 1))[:size])
            def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
            open(sys.argv[1], "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 0, 0, 0, 0))
                                          + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b""))
            """
        let grid = dir.appendingPathComponent("grid.png").path
        XCTAssertEqual(try Process.outputAndStatus("/usr/bin/python3", ["-c", script, grid]).status, 0)
        let start = Date()
        let r = try CLI.run(["scan", "--no-default-scripts", grid])
        let seconds = Date().timeIntervalSince(start)
        XCTAssertEqual(r.status, 4, r.stderr)
        XCTAssertLessThan(seconds, 30, "bounded by the 2 s budget and one pass (a debug build)")
        XCTAssertEqual(r.records.count, 1, r.stdout)
        XCTAssertEqual(r.records.first?["source"] as? String, grid)
        let warnings = r.records.first?["warnings"] as? [String] ?? []
        XCTAssertEqual(warnings.count, 1, r.stdout)
        XCTAssertTrue(warnings.first?.hasPrefix("time budget of 2 s per image spent: ") == true, r.stdout)
        XCTAssertTrue(warnings.first?.hasSuffix("skipped (--time-budget)") == true, r.stdout)
        // A region in pixels (no small pass then) is read in tiles too, within the budget.
        let roiStart = Date()
        let roi = try CLI.run(["scan", "--no-default-scripts", "--roi", "0,0,5000,5000", grid])
        XCTAssertLessThan(Date().timeIntervalSince(roiStart), 30, "--roi is tiled and bounded as well")
        XCTAssertEqual(roi.status, 4, roi.stderr)
        XCTAssertTrue((roi.records.first?["warnings"] as? [String])?.first?.hasPrefix("time budget of 2 s per image spent: ") == true, roi.stdout)
    }
}
