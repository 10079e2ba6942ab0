import Foundation
import XCTest
@testable import ScanCore

/// The error `body` throws, or nil.
private func imageError(_ body: () throws(ImageError) -> GrayImage) -> ImageError? {
    do throws(ImageError) {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// jpeg-plain.jpg with its scan's component pointing at Huffman tables 3/3, which it never
/// defines: every marker is in place (the MJPEG splitter cuts it whole), but libjpeg refuses it.
private func undecodableJPEG() throws -> [UInt8] {
    var bytes = try fixtureBytes("jpeg-plain.jpg")
    var i = 2
    while bytes[i + 1] != 0xDA { i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])) }
    // FF DA, length (2), component count (1), component id (1), table selectors (1).
    bytes[i + 6] = 0x33
    return bytes
}

/// Peak resident memory of this process, in bytes.
private func peakResident() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_maxrss * 1024
}

/// Hostile headers and data: every one a named error, no trap and no huge allocation.
final class HostileLoaderTests: XCTestCase {
    func testHugeSizesAreTooLargeWithTheUsualWordingNotATrap() {
        let error = imageError { () throws(ImageError) in
            try ImageLoader().decode(Data("P5 1000000000000 1000000000000 255\n".utf8), name: "huge.pgm")
        }
        XCTAssertEqual(error, .tooLarge(path: "huge.pgm", width: 1_000_000_000_000, height: 1_000_000_000_000, limit: 50_000_000))
        XCTAssertEqual(error?.description,
                       "huge.pgm: image is 1000000000000x1000000000000 = more than 9223372036854775807 pixels, "
                       + "over the limit of 50000000 (see --max-pixels)")
        // A product that fits is named in full, as for PNG and JPEG.
        let wide = imageError { () throws(ImageError) in try ImageLoader().decode(Data("P5 200000 200000 255\n".utf8), name: "w.pgm") }
        XCTAssertEqual(wide?.reason, "image is 200000x200000 = 40000000000 pixels, over the limit of 50000000 (see --max-pixels)")
        // The loader's --max-pixels is the limit, whatever the format.
        let small = imageError { () throws(ImageError) in try ImageLoader(maxPixels: 5).decode(Data("P5 3 2 255\n\0\0\0\0\0\0".utf8), name: "s.pgm") }
        XCTAssertEqual(small, .tooLarge(path: "s.pgm", width: 3, height: 2, limit: 5))
        // Even --max-pixels at Int.max cannot make the sample or byte counts overflow.
        let unlimited = ImageLoader(maxPixels: .max)
        let samples = imageError { () throws(ImageError) in
            try unlimited.decode(Data("P6 1099511627776 4194304 255\n".utf8), name: "u.ppm")  // 2^62 pixels, 3 samples each
        }
        XCTAssertEqual(samples, .tooLarge(path: "u.ppm", width: 1_099_511_627_776, height: 4_194_304, limit: .max))
        let bytes = imageError { () throws(ImageError) in
            try unlimited.decode(Data("P6 1099511627776 2097152 65535\n".utf8), name: "u.ppm")  // 3 x 2^61 samples of 2 bytes
        }
        XCTAssertEqual(bytes?.reason, "corrupt PNM: truncated raster: 0 of more than 9223372036854775807 bytes")
    }

    func testHeaderNumbersOverTheirRangeAreNamed() {
        let cases: [(String, String)] = [
            ("P5 99999999999999999999999999 2 255\n", "width in header is over 1099511627776"),
            ("P5 2 99999999999999999999999999 255\n", "height in header is over 1099511627776"),
            ("P5 2 2 99999999999999999999999999\n", "maxval in header is over 1099511627776"),
            ("P2 2 2 65536\n", "maxval 65536 out of range 1...65535"),
            ("P5 2 2 0\n", "maxval 0 out of range 1...65535"),
        ]
        for (text, reason) in cases {
            XCTAssertEqual(imageError { () throws(ImageError) in try ImageLoader().decode(Data(text.utf8), name: "h.pgm") },
                           .corrupt(path: "h.pgm", format: "PNM", reason: reason), text)
        }
    }

    func testHeaderWithoutDataIsTruncatedBeforeAnythingIsAllocated() {
        let before = peakResident()
        // 100 MP (under this test's --max-pixels of 10^8; the default is 50 MP).
        let loader = ImageLoader(maxPixels: 100_000_000)
        let error = imageError { () throws(ImageError) in try loader.decode(Data("P6 10000 10000 255\n".utf8), name: "t.ppm") }
        XCTAssertEqual(error?.description, "t.ppm: corrupt PNM: truncated raster: 0 of 300000000 bytes")
        let wide = imageError { () throws(ImageError) in try loader.decode(Data("P5 10000 10000 65535\n\0\0\0".utf8), name: "t.pgm") }
        XCTAssertEqual(wide?.reason, "corrupt PNM: truncated raster: 3 of 200000000 bytes")
        let plain = imageError { () throws(ImageError) in try loader.decode(Data("P3 10000 10000 255\n1 2 3\n".utf8), name: "t.ppm") }
        XCTAssertEqual(plain?.reason, "corrupt PNM: truncated raster: 7 bytes for 300000000 plain samples of 2 bytes at least")
        // 10000x10000 pixels of three samples as Ints would be 2.4 GB; nothing near that was touched.
        XCTAssertLessThan(peakResident() - before, 200_000_000)
    }

    func testSamplesOverMaxvalAreCorruptNamingValueAndMaxval() {
        let cases: [(String, String)] = [
            ("P2 2 1 100\n5 200\n", "sample 200 at pixel (1, 0) is over maxval 100"),
            ("P5 2 2 100\n\u{0}\u{64}\u{65}\u{0}", "sample 101 at pixel (0, 1) is over maxval 100"),
            ("P3 1 2 15\n1 2 3 4 16 6\n", "sample 16 at pixel (0, 1) is over maxval 15"),
            ("P2 1 1 255\n99999999999999999999\n", "sample over 1099511627776 at pixel (0, 0) is over maxval 255"),
        ]
        for (text, reason) in cases {
            XCTAssertEqual(imageError { () throws(ImageError) in try ImageLoader().decode(Data(text.utf8), name: "s.pgm") },
                           .corrupt(path: "s.pgm", format: "PNM", reason: reason), text)
        }
        // 16-bit samples are big-endian and checked the same way.
        let wide = Data([UInt8]("P5 2 1 1000\n".utf8) + [0x03, 0xE8, 0x03, 0xE9])
        XCTAssertEqual(imageError { () throws(ImageError) in try ImageLoader().decode(wide, name: "w.pgm") }?.reason,
                       "corrupt PNM: sample 1001 at pixel (1, 0) is over maxval 1000")
    }

    func testSixteenBitSamplesScaleToEightBitsRounded() throws {
        let full = Data([UInt8]("P5 4 1 65535\n".utf8) + [0x00, 0x00, 0x00, 0x80, 0x80, 0x00, 0xFF, 0xFF])
        XCTAssertEqual(try ImageLoader().decode(full, name: "f.pgm").pixels, [0, 0, 128, 255])
        // maxval 1000: 500 is 127.5 of 255, rounded up; 2 is 0.51, rounded up; 1 is 0.255, down.
        let odd = Data([UInt8]("P5 4 1 1000\n".utf8) + [0x01, 0xF4, 0x00, 0x02, 0x00, 0x01, 0x03, 0xE8])
        XCTAssertEqual(try ImageLoader().decode(odd, name: "o.pgm").pixels, [128, 1, 0, 255])
        // A 16-bit pixmap: white, black and pure green (Rec. 709 weight 0.715).
        let rgb = Data([UInt8]("P6 3 1 65535\n".utf8) + [UInt8](repeating: 0xFF, count: 6) + [UInt8](repeating: 0, count: 6)
                       + [0, 0, 0xFF, 0xFF, 0, 0])
        XCTAssertEqual(try ImageLoader().decode(rgb, name: "c.ppm").pixels, [255, 0, 182])
    }

    func testEmptyInputIsAnEmptyFile() throws {
        XCTAssertEqual(imageError { () throws(ImageError) in try ImageLoader().decode(Data(), name: "e.png") }, .empty(path: "e.png"))
        XCTAssertEqual(imageError { () throws(ImageError) in try ImageLoader().decode(Data(), name: "-", reduction: 4) }?.description,
                       "-: empty file")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("zero.jpg").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        let error = imageError { () throws(ImageError) in try ImageLoader().load(path: path) }
        XCTAssertEqual(error, .empty(path: path))
        XCTAssertEqual(error?.description, "\(path): empty file")
    }

    // MARK: - Streams
    func testY4MSizesThatOverflowAreABadSize() {
        let cases = [
            ("YUV4MPEG2 W4294967296 H4294967296\n", "W4294967296 H4294967296"),
            ("YUV4MPEG2 W99999999999999999999999 H2 C420jpeg\n", "W99999999999999999999999 H2"),
            ("YUV4MPEG2 W3037000500 H3037000500\n", "W3037000500 H3037000500"),
        ]
        for (head, size) in cases {
            var message: String?
            do throws(SourceError) { _ = try Y4MSource(handle: pipeReading(Array(head.utf8)), name: "s.y4m") } catch {
                message = error.message
            }
            XCTAssertEqual(message, "s.y4m: bad YUV4MPEG2 size \(size)", head)
        }
    }

    func testUndecodableMJPEGFrameIsHandedOverAsItsOwnFile() throws {
        let good = try fixtureBytes("jpeg-plain.jpg"), bad = try undecodableJPEG()
        let src = try MJPEGSource(handle: pipeReading(good + bad + good), name: "cam.mjpeg")
        var items: [SourceItem] = []
        while let item = try src.next(deadline: nil) { items.append(item) }
        XCTAssertEqual(items.count, 3)
        guard items.count == 3 else { return }
        guard case .frame(let f0) = items[0], case .file(.data(let data, let name)) = items[1], case .frame(let f2) = items[2] else {
            return XCTFail("expected frame, file, frame: \(items)")
        }
        XCTAssertEqual([f0.info.index, f2.info.index], [0, 2])
        XCTAssertEqual([f0.info.source, f2.info.source], ["cam.mjpeg", "cam.mjpeg"])
        XCTAssertEqual(name, "cam.mjpeg#1")
        XCTAssertEqual([UInt8](data), bad)
    }

    func testUndecodableMJPEGFrameBecomesThatFramesErrorAndTheStreamGoesOn() throws {
        let good = try fixtureBytes("jpeg-plain.jpg"), bad = try undecodableJPEG()
        let src = try MJPEGSource(handle: pipeReading(good + bad + good + [0xFF, 0xD8, 0xFF, 0xD9] + good), name: "cam.mjpeg")
        var list = DecoderList()
        list.addWorker { ZBarDecoder(symbologies: Symbology.defaultSet) }
        var out: [DecodedFrame] = []
        try FrameScanner(source: src, decoders: list, workers: 2).run { out.append($0); return true }
        XCTAssertEqual(out.map(\.info.source), ["cam.mjpeg", "cam.mjpeg#1", "cam.mjpeg", "cam.mjpeg#3", "cam.mjpeg"])
        XCTAssertEqual(out.map(\.info.index), [0, 0, 2, 0, 4])
        for i in [0, 2, 4] {
            XCTAssertEqual(try out[i].outcome.get().map(\.text), ["https://example.com/scanlua"], "frame \(i)")
        }
        XCTAssertEqual(out[1].outcome, .failure(.corrupt(path: "cam.mjpeg#1", format: "JPEG", reason: "Huffman table 0x03 was not defined")))
        guard case .failure(let empty) = out[3].outcome else { return XCTFail("frame 3 decoded: \(out[3].outcome)") }
        XCTAssertTrue(empty.description.hasPrefix("cam.mjpeg#3: corrupt JPEG: "), empty.description)
    }
}
