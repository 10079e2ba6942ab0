import Foundation
import XCTest
@testable import ScanCore

/// Every expected value here is the payload scripts/make-fixtures gave the encoder.
final class DecodeTests: XCTestCase {
    private func only(_ name: String, extra: [String] = []) throws -> Symbol {
        let symbols = try Fixture.symbols(name, extra: extra)
        XCTAssertEqual(symbols.count, 1, "\(name): \(symbols.map(\.text))")
        return try XCTUnwrap(symbols.first)
    }

    func testOneImagePerSymbology() throws {
        let expected: [(file: String, symbology: String, text: String)] = [
            ("qrcode.png", "qrcode", "https://example.com/scanlua"),
            ("ean13.png", "ean13", "4719512002889"),
            ("ean8.png", "ean8", "96385074"),
            ("upca.png", "upca", "036000291452"),
            ("upce.png", "upce", "04252614"),
            ("isbn13.png", "isbn13", "9789861754055"),
            ("i25.png", "i25", "12345678901231"),
            ("databar.png", "databar", "0109501101530010"),
            ("databar-exp.png", "databar-exp", "0198898765432106320201234515991231"),
            ("codabar.png", "codabar", "A40156B"),
            ("code39.png", "code39", "10404UZ176908720122"),
            ("code93.png", "code93", "CODE93-SCANLUA"),
            ("code128.png", "code128", "scanlua-Code128 ok"),
        ]
        for e in expected {
            let s = try only(e.file)
            XCTAssertEqual(s.symbology.rawValue, e.symbology, e.file)
            XCTAssertEqual(s.text, e.text, e.file)
            XCTAssertEqual(s.bytes, Array(e.text.utf8), e.file)
            XCTAssertEqual(s.charset, "utf-8", e.file)
        }
    }

    /// A zbar reading of a code without a check (I2/5, Code 39, Codabar) stands from 3 scan lines
    /// (its quality); a code with one stands from one line; a linear reading of no data never.
    func testZbarReadingsOfCodesWithoutACheckNeedThreeLines() {
        func reading(_ symbology: String, _ text: String, lines: Int) -> Symbol {
            Symbol(symbology: Symbology(rawValue: symbology), bytes: Array(text.utf8), quality: lines)
        }
        XCTAssertFalse(ZBarDecoder.credible(reading("i25", "51991112", lines: 1)))
        XCTAssertFalse(ZBarDecoder.credible(reading("code39", "9273623", lines: 2)))
        XCTAssertTrue(ZBarDecoder.credible(reading("i25", "00123456", lines: 3)))
        XCTAssertTrue(ZBarDecoder.credible(reading("codabar", "A40156B", lines: 24)))
        XCTAssertTrue(ZBarDecoder.credible(reading("code128", "0100000582753541", lines: 1)))
        XCTAssertFalse(ZBarDecoder.credible(reading("code128", "", lines: 1)))
        XCTAssertTrue(ZBarDecoder.credible(reading("qrcode", "", lines: 1)), "a QR code may hold nothing")
    }

    func testAddOnsAreSymbolsAndAttachedToTheirEAN() throws {
        let two = try Fixture.symbols("ean2.png")
        XCTAssertEqual(two.map(\.symbology.rawValue).sorted(), ["ean13", "ean2"])
        XCTAssertEqual(two.first { $0.symbology.rawValue == "ean13" }?.addon, "12")
        XCTAssertEqual(two.first { $0.symbology.rawValue == "ean2" }?.text, "12")

        let five = try Fixture.symbols("ean5.png")
        let book = try XCTUnwrap(five.first { $0.symbology.rawValue == "isbn13" })
        XCTAssertEqual(book.text, "9780201379624")
        XCTAssertEqual(book.addon, "51995")
    }

    func testISBN10OnlyWhenAskedFor() throws {
        let s = try ZBarDecoder(symbologies: [Symbology(rawValue: "isbn10")]).decode(Fixture.image("isbn13.png"))
        XCTAssertEqual(s.map(\.text), ["9861754059"])
        XCTAssertEqual(s.map(\.symbology.rawValue), ["isbn10"])
    }

    func testSymbologyRestriction() throws {
        let onlyQR = ZBarDecoder(symbologies: [Symbology(rawValue: "qrcode")])
        XCTAssertEqual(onlyQR.decode(try Fixture.image("several.png")).map(\.symbology.rawValue), ["qrcode"])
        XCTAssertEqual(onlyQR.decode(try Fixture.image("ean13.png")).count, 0)
    }

    func testBig5QRComesOutAsChinese() throws {
        let s = try only("qr-big5.png")
        XCTAssertEqual(s.charset, "big5")
        XCTAssertEqual(s.text, "**口罩:1:210:牛奶:1:25")
        XCTAssertEqual(s.bytes, [0x2A, 0x2A, 0xA4, 0x66, 0xB8, 0x6E] + Array(":1:210:".utf8) + [0xA4, 0xFB, 0xA5, 0xA4] + Array(":1:25".utf8))
        let short = try only("qr-big5-short.png")
        XCTAssertEqual(short.bytes, [0xA4, 0x45, 0xA4, 0xAD, 0xB5, 0x4C, 0xB9, 0x5D])  // payloads.md T4
        XCTAssertEqual(short.text, "九五無鉛")
        XCTAssertEqual(short.charset, "big5")
    }

    func testShiftJISQRComesOutAsJapanese() throws {
        let s = try only("qr-sjis.png")
        XCTAssertEqual(s.charset, "shift_jis")
        XCTAssertEqual(s.text, "こんにちは、世界。東京都")
        XCTAssertEqual(Array(s.bytes.prefix(4)), [0x82, 0xB1, 0x82, 0xF1])
    }

    func testUTF8QRIsNotShiftJISMojibake() throws {
        let s = try only("qr-utf8.png")
        XCTAssertEqual(s.charset, "utf-8")
        XCTAssertEqual(s.text, "**:奶茶(M)(熱):1:25 Zürich")
        XCTAssertEqual(s.bytes, Array("**:奶茶(M)(熱):1:25 Zürich".utf8))
    }

    func testLatin1QR() throws {
        let s = try only("qr-latin1.png")
        XCTAssertEqual(s.charset, "iso-8859-1")
        XCTAssertEqual(s.text, "François Zürich")
    }

    func testBinaryQRKeepsAll256ByteValues() throws {
        let s = try only("qr-binary.png")
        XCTAssertEqual(s.bytes, (0...255).map { UInt8($0) })
        XCTAssertEqual(s.charset, "binary")
        XCTAssertEqual(s.text.unicodeScalars.map(\.value), (0...255).map { UInt32($0) })
    }

    func testInvertedQR() throws {
        XCTAssertEqual(try only("qr-inverted.png").text, "inverted scanlua")
    }

    func testSeveralCodesInOneImageAllComeOut() throws {
        let symbols = try Fixture.symbols("several.png")
        XCTAssertEqual(Set(symbols.map { "\($0.symbology):\($0.text)" }),
                       ["qrcode:https://example.com/scanlua", "ean13:4719512002889", "code128:scanlua-Code128 ok"])
        let qr = try XCTUnwrap(symbols.first { $0.symbology.rawValue == "qrcode" })
        let ean = try XCTUnwrap(symbols.first { $0.symbology.rawValue == "ean13" })
        XCTAssertLessThan(qr.bbox.x + qr.bbox.width, ean.bbox.x, "QR is left of the EAN in the image")
    }

    func testRotatedBlurredNoisyInvoicePair() throws {
        let symbols = try Fixture.symbols("einvoice-photo.jpg")
        let texts = Set(symbols.map(\.text))
        XCTAssertEqual(texts, [
            "AB112233441020523999900000144000001540000000001234567ydXZt4LAN1UHN/j1juVcRA==:**********:3:3:1:乾電池:1:105:",
            "**口罩:1:210:牛奶:1:25",
        ])
        XCTAssertTrue(symbols.allSatisfy { $0.charset == "utf-8" && $0.symbology.rawValue == "qrcode" })
    }

    func testPointsAndBoundingBoxAreInImagePixels() throws {
        let s = try only("qrcode.png")
        // qrencode -s 4 -m 4: version 2, 25 modules of 4 px after a 16 px margin, so the code spans 16...115.
        XCTAssertEqual(s.points.count, 4)
        XCTAssertEqual(s.bbox.x, 16, accuracy: 2)
        XCTAssertEqual(s.bbox.y, 16, accuracy: 2)
        XCTAssertEqual(s.bbox.width, 100, accuracy: 3)
        XCTAssertEqual(s.orientation, "up")
        let ean = try only("ean13.png")
        XCTAssertLessThanOrEqual(ean.points.count, 8, "linear codes give an outline, not every scan point")
        XCTAssertEqual(ean.orientation, "up")
        XCTAssertGreaterThan(ean.quality, 1)
    }

    func testGS1ModifierOnDataBar() throws {
        XCTAssertEqual(try only("databar-exp.png").modifiers, ["gs1"])
    }

    func testBlankImageHasNoSymbols() throws {
        XCTAssertEqual(try Fixture.symbols("blank.png").count, 0)
    }
}
