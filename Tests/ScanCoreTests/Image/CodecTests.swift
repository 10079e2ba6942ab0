import Foundation
import XCTest
@testable import ScanCore

/// The codecs beside JPEG, PNG and PNM, on the files scripts/make-document-fixtures makes with
/// real encoders, and the child process the PDF renderer runs in.
final class CodecTests: XCTestCase {
    private func data(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: Fixture.path("documents/" + name))) }

    func testEveryCodecIsChosenByItsBytesAndCountsItsPages() throws {
        let loader = ImageLoader()
        for (name, format, pages) in [("three-pages.pdf", "PDF", 3), ("fax-fine.tif", "TIFF", 2), ("anim.gif", "GIF", 2),
                                      ("photo.webp", "WebP", 1), ("photo.heic", "HEIF/AVIF", 1), ("photo.avif", "HEIF/AVIF", 1),
                                      ("photo-24.bmp", "BMP", 1)] {
            let bytes = try data(name)
            XCTAssertEqual(ImageFormat.sniff(bytes).name, format, name)
            XCTAssertEqual(try loader.pages(bytes, name: name).count, pages, name)
        }
        XCTAssertEqual(try loader.pages(try data("anim.gif"), name: "anim.gif").numbering, .frames)
        XCTAssertEqual(try loader.pages(try data("fax-fine.tif"), name: "fax").numbering, .pages)
    }

    func testColorAndGrayAgreeInSizeAndAlphaIsOnWhite() throws {
        let loader = ImageLoader()
        for name in ["photo.webp", "photo.heic", "photo-24.bmp", "photo-1bit.bmp", "anim.gif", "photo-jpeg.tif"] {
            let bytes = try data(name)
            let gray = try loader.decode(bytes, name: name)
            let color = try loader.decodeColor(bytes, name: name)
            XCTAssertEqual([gray.width, gray.height], [color.width, color.height], name)
            // The quiet zone's corner is white in every format.
            XCTAssertGreaterThan(gray[0, 0], 200, name)
        }
    }

    /// A fax at 204x98 dpi: decoded at square pixels, with the page's own size kept for the points.
    func testAStandardFaxIsResampledToSquarePixels() throws {
        let page = try ImageLoader().decode(try data("fax-standard.tif"), name: "fax")
        let own = try XCTUnwrap(page.ownSize)
        XCTAssertEqual(page.width, own.width)
        XCTAssertEqual(Double(page.height) / Double(own.height), 204.0 / 98.0, accuracy: 0.02)
    }

    /// The second GIF frame is drawn over the first: frame 1 differs from frame 0.
    func testGIFFramesAreDrawnOnTheCanvas() throws {
        let bytes = try data("anim.gif")
        let first = try ImageLoader().decode(bytes, name: "anim", page: 0)
        let second = try ImageLoader().decode(bytes, name: "anim", page: 1)
        XCTAssertNotEqual(first.pixels, second.pixels)
        XCTAssertThrowsError(try ImageLoader().decode(bytes, name: "anim", page: 2)) { error in
            XCTAssertEqual(error as? ImageError, .corrupt(path: "anim", format: "GIF", reason: "no frame 2 (the file has 2)"))
        }
    }

    /// The page of text has no region worth rendering twice; the page with the small Code 128 has one, round the code.
    func testOnlyRegionsThatLookLikeCodesAreRenderedAgain() throws {
        let text = try ImageLoader().decode(try data("text-only.pdf"), name: "text")
        XCTAssertEqual(DecodePlan.pdfRegions(in: text, skipping: []), [])
        let small = try ImageLoader().decode(try data("small-code.pdf"), name: "small")
        let regions = DecodePlan.pdfRegions(in: small, skipping: [])
        XCTAssertFalse(regions.isEmpty)
        // The code sits at 1000,1500 of 4000x5000 at 1000 dpi: 300,450 at 300 dpi, about 190 px wide.
        XCTAssertTrue(regions.contains { $0.x <= 300 && $0.x + $0.width >= 480 && $0.y <= 460 && $0.y + $0.height >= 460 }, "\(regions)")
    }

    /// GIF frame n is drawn from frame 0: the frames read shrink with the screen.
    func testGIFFramesReadAreBoundedByTheScreen() {
        func gif(_ w: Int, _ h: Int) -> Data { Data(Array("GIF89a".utf8) + [UInt8(w & 255), UInt8(w >> 8), UInt8(h & 255), UInt8(h >> 8), 0, 0, 0, 0x3B]) }
        let options = DecodeOptions(maxPixels: 50_000_000)
        XCTAssertEqual(GIFCodec.pageLimit(gif(4000, 4000), options: options), 22)
        XCTAssertEqual(GIFCodec.pageLimit(gif(500, 500), options: options), 178)
        XCTAssertEqual(GIFCodec.pageLimit(gif(100, 100), options: options), 894)
        XCTAssertEqual(GIFCodec.pageLimit(gif(10, 10), options: options), 1000, "the file cap")
    }

    func testConcatenatedImagesAreSplitAtTheirEnds() throws {
        let png = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("qrcode.png")))
        let pgm = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("pgm-p5.pgm")))
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("jpeg-plain.jpg")))
        let parts = ImageSplitter.parts(of: png + pgm + jpeg + Data("trailing junk".utf8))
        XCTAssertEqual(parts, [0..<png.count, png.count..<png.count + pgm.count,
                               png.count + pgm.count..<png.count + pgm.count + jpeg.count])
        XCTAssertEqual(ImageSplitter.parts(of: png), [0..<png.count])
    }

    func testPageSelections() throws {
        let s = try PageSelection(parsing: "1-3, 7,10-")
        XCTAssertEqual((1...12).filter(s.contains), [1, 2, 3, 7, 10, 11, 12])
        XCTAssertThrowsError(try PageSelection(parsing: "0"))
        XCTAssertThrowsError(try PageSelection(parsing: "a-b"))
        XCTAssertThrowsError(try PageSelection(parsing: "4-2"))
    }

    /// The renderer's process: killed at its time, refused past its memory, its output capped.
    func testTheChildProcessIsHeldToItsLimits() throws {
        let slow = try XCTUnwrap(runChild("sleep", ["30"], input: Data(), limits: ChildLimits(seconds: 0.5, memory: nil, maxOutput: 100)))
        XCTAssertEqual(slow.stopped, "took longer than 0.5 s")
        let start = Date()
        let greedy = try XCTUnwrap(runChild("python3", ["-c", "bytearray(1 << 30)"], input: Data(),
                                            limits: ChildLimits(seconds: 30, memory: 200 << 20, maxOutput: 100)))
        XCTAssertNotEqual(greedy.status, 0, "a gigabyte over a 200 MB limit fails")
        XCTAssertTrue(greedy.stderr.contains("MemoryError"), greedy.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(start), 20)
        let chatty = try XCTUnwrap(runChild("yes", [], input: Data(), limits: ChildLimits(seconds: 30, memory: nil, maxOutput: 1 << 20)))
        XCTAssertEqual(chatty.stopped, "wrote more than 1 MB")
        // stdin reaches the child whole.
        let echo = try XCTUnwrap(runChild("wc", ["-c"], input: Data(repeating: 65, count: 300_000),
                                          limits: ChildLimits(seconds: 30, memory: nil, maxOutput: 100)))
        XCTAssertEqual(String(decoding: echo.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), "300000")
    }
}
