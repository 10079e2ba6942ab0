import Foundation
import XCTest
@testable import ScanCore

final class ImageLoaderTests: XCTestCase {
    func testFormatsChosenByMagicBytesNotExtension() {
        XCTAssertEqual(ImageFormat.sniff(Data([0xFF, 0xD8, 0xFF, 0xE0])), .jpeg)
        XCTAssertEqual(ImageFormat.sniff(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])), .png)
        XCTAssertEqual(ImageFormat.sniff(Data("P5\n1 1\n255\n\0".utf8)), .pnm)
        XCTAssertEqual(ImageFormat.sniff(Data("GIF89a".utf8)).name, "GIF")
        XCTAssertEqual(ImageFormat.sniff(Data("RIFF\0\0\0\0WEBPVP8 ".utf8)).name, "WebP")
        XCTAssertEqual(ImageFormat.sniff(Data([0x49, 0x49, 0x2A, 0x00])).name, "TIFF")
        XCTAssertEqual(ImageFormat.sniff(Data("%PDF-1.7\n".utf8)).name, "PDF")
        XCTAssertEqual(ImageFormat.sniff(Data("hello".utf8)), .unknown)
        // ftyp: HEIF/AVIF stills by their brands; MP4 video is named, not read as HEIF.
        func ftyp(_ brands: String) -> Data { Data([0, 0, 0, UInt8(8 + brands.utf8.count)] + Array("ftyp".utf8) + Array(brands.utf8)) }
        XCTAssertEqual(ImageFormat.sniff(ftyp("heic\0\0\0\0mif1heic")).name, "HEIF/AVIF")
        XCTAssertEqual(ImageFormat.sniff(ftyp("avif\0\0\0\0avifmif1miaf")).name, "HEIF/AVIF")
        XCTAssertEqual(ImageFormat.sniff(ftyp("isom\0\0\u{2}\0isomiso2avc1mp41")), .other("MP4/MOV video"))
        XCTAssertEqual(ImageFormat.sniff(ftyp("msf1\0\0\0\0msf1hevc")), .other("HEIF image sequence"))
    }

    func testPNGAndPNMVariantsDecodeToTheSamePixels() throws {
        let reference = try Fixture.image("qrcode.png")
        XCTAssertEqual(reference.width, 132)
        XCTAssertEqual(reference.height, 132)
        for name in ["pgm-p5.pgm", "pgm-p2.pgm", "ppm-p6.ppm", "ppm-p3.ppm", "png-16bit.png", "png-palette.png", "png-alpha.png"] {
            let image = try Fixture.image(name)
            XCTAssertEqual(image.width, reference.width, name)
            XCTAssertEqual(image.pixels, reference.pixels, "\(name) differs from qrcode.png")
        }
    }

    func testAlphaIsCompositedOnWhite() throws {
        // The alpha fixture's background is fully transparent; on white it reads 255, on black it would read 0.
        let image = try Fixture.image("png-alpha.png")
        XCTAssertEqual(image[0, 0], 255)
        XCTAssertEqual(image[16, 16], 0)  // a finder-pattern module
    }

    func testJPEGDecodesToGrayscale() throws {
        let image = try Fixture.image("jpeg-plain.jpg")
        XCTAssertEqual(image.width, 132)
        XCTAssertGreaterThan(image[0, 0], 240)
        XCTAssertLessThan(image[17, 17], 20)
    }

    func testCMYKJPEGDecodesToGrayAndReads() throws {
        // libjpeg cannot convert CMYK/YCCK to gray itself; the shim does (issue 12, F).
        let cmyk = try Fixture.image("jpeg-cmyk.jpg"), plain = try Fixture.image("jpeg-plain.jpg")
        XCTAssertEqual(cmyk.width, plain.width)
        XCTAssertEqual(cmyk.height, plain.height)
        // White paper stays white, black modules black (within JPEG's noise).
        XCTAssertGreaterThan(cmyk[0, 0], 230)
        XCTAssertLessThan(cmyk[17, 17], 40)
        XCTAssertEqual(ZBarDecoder(symbologies: [Symbology(rawValue: "qrcode")]).decode(cmyk).map(\.text), ["https://example.com/scanlua"])
    }

    func testTruncatedJPEGIsAnErrorNamingTheFile() {
        let path = Fixture.path("truncated.jpg")
        XCTAssertThrowsError(try ImageLoader().load(path: path)) { error in
            XCTAssertEqual(error as? ImageError,
                           .corrupt(path: path, format: "JPEG", reason: "premature end of JPEG data (file truncated)"))
            XCTAssertEqual("\(error)", "\(path): corrupt JPEG: premature end of JPEG data (file truncated)")
        }
    }

    func testCorruptJPEGHeaderDoesNotExitTheProcess() {
        // A JPEG signature followed by garbage: libjpeg's error_exit would call exit() without our handler.
        let data = Data([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x03, 0x01, 0x02, 0x03, 0x04])
        XCTAssertThrowsError(try ImageLoader().decode(data, name: "bad.jpg")) { error in
            guard case .corrupt(let path, let format, let reason)? = error as? ImageError else {
                return XCTFail("expected corrupt, got \(error)")
            }
            XCTAssertEqual(path, "bad.jpg")
            XCTAssertEqual(format, "JPEG")
            XCTAssertFalse(reason.isEmpty)
        }
    }

    func testJPEGHeaderOverTheDefaultLimitIsRefused() {
        // SOF0 claiming 20000x20000 (400 megapixels): within libjpeg's range, over ours.
        let sof: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x4E, 0x20, 0x4E, 0x20, 0x01, 0x01, 0x11, 0x00,
                            0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
            + [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]
        XCTAssertThrowsError(try ImageLoader().decode(Data(sof), name: "big.jpg")) { error in
            XCTAssertEqual(error as? ImageError, .tooLarge(path: "big.jpg", width: 20000, height: 20000, limit: 50_000_000))
        }
    }

    func testTruncatedPNGIsAnError() {
        let path = Fixture.path("truncated.png")
        XCTAssertThrowsError(try ImageLoader().load(path: path)) { error in
            XCTAssertEqual(error as? ImageError, .corrupt(path: path, format: "PNG", reason: "read beyond end of data"))
        }
    }

    func testHugeHeaderIsRefusedBeforeAllocation() {
        let path = Fixture.path("huge-header.png")
        XCTAssertThrowsError(try ImageLoader().load(path: path)) { error in
            XCTAssertEqual(error as? ImageError, .tooLarge(path: path, width: 200000, height: 200000, limit: 50_000_000))
        }
    }

    func testJPEGOverThePixelLimitIsRefused() {
        let path = Fixture.path("jpeg-plain.jpg")
        XCTAssertThrowsError(try ImageLoader(maxPixels: 100).load(path: path)) { error in
            XCTAssertEqual(error as? ImageError, .tooLarge(path: path, width: 132, height: 132, limit: 100))
        }
    }

    func test65535SquareJPEGHeaderIsRefused() {
        // SOI + SOF0 claiming 65535x65535, 1 component: libjpeg itself refuses it while reading the header.
        let sof: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x01, 0x11, 0x00,
                            0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]
        XCTAssertThrowsError(try ImageLoader().decode(Data(sof), name: "big.jpg")) { error in
            XCTAssertEqual(error as? ImageError,
                           .corrupt(path: "big.jpg", format: "JPEG", reason: "Maximum supported image dimension is 65500 pixels"))
        }
    }

    func testTextFileNamedJPGAndAJPEG2000AreNamedErrors() {
        let text = Fixture.path("text-named.jpg")
        XCTAssertThrowsError(try ImageLoader().load(path: text)) { error in
            XCTAssertEqual(error as? ImageError, .unknownFormat(path: text))
        }
        XCTAssertThrowsError(try ImageLoader().decode(Data([0xFF, 0x4F, 0xFF, 0x51, 0, 0]), name: "x.j2k")) { error in
            XCTAssertEqual(error as? ImageError, .unsupportedFormat(path: "x.j2k", format: "JPEG 2000"))
            XCTAssertEqual((error as? ImageError)?.reason,
                           "unsupported format JPEG 2000 (scanlua reads JPEG, PNG, PNM, TIFF, WebP, HEIF/AVIF, GIF, BMP, PDF)")
        }
    }

    func testMissingFile() {
        XCTAssertThrowsError(try ImageLoader().load(path: "/nonexistent/x.png")) { error in
            XCTAssertEqual(error as? ImageError, .unreadable(path: "/nonexistent/x.png", reason: "No such file or directory"))
        }
    }

    func testBadPNMHeaders() {
        let cases: [(String, String)] = [
            ("P5\n3 2\n255\n\u{1}\u{2}", "truncated raster: 2 of 6 bytes"),
            ("P2\n2 2\n70000\n", "maxval 70000 out of range 1...65535"),
            ("P5\n0 2\n255\n", "zero width or height"),
            ("P5\n2", "truncated header"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try ImageLoader().decode(Data(text.utf8), name: "x.pgm")) { error in
                XCTAssertEqual(error as? ImageError, .corrupt(path: "x.pgm", format: "PNM", reason: reason), text)
            }
        }
    }

    func testPlainPGMWithCommentsAnd16BitMaxval() throws {
        let image = try ImageLoader().decode(Data("P2\n# a comment\n2 1\n65535\n0 65535\n".utf8), name: "c.pgm")
        XCTAssertEqual(image.pixels, [0, 255])
    }
}
