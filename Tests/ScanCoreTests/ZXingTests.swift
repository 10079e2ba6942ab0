import Foundation
import XCTest
@testable import ScanCore

/// zxing-cpp beside zbar, at the decoder level: what ZXingDecoder reads from the zint fixtures
/// (Fixtures/zxing, payloads from scripts/make-fixtures), how readings of one code merge
/// (`Symbol.merged`), structured-append joining, the scale pyramid, and a seeded noise fuzz of
/// both decoders.
final class ZXingTests: XCTestCase {
    private let all = Set(Symbology.registry.map { Symbology(rawValue: $0.name) })

    private func zxing(_ name: String, effort: Effort = .balanced) throws -> [Symbol] {
        ZXingDecoder(symbologies: Symbology.defaultSet, effort: effort).decode(try Fixture.image(name))
    }

    private func zbar(_ name: String) throws -> [Symbol] {
        ZBarDecoder(symbologies: Symbology.defaultSet).decode(try Fixture.image(name))
    }

    private func only(_ name: String) throws -> Symbol {
        let symbols = try zxing(name)
        XCTAssertEqual(symbols.count, 1, "\(name): \(symbols.map { "\($0.symbology):\($0.text)" })")
        return try XCTUnwrap(symbols.first, name)
    }

    // MARK: - ZXingDecoder on the zint fixtures

    func testEveryFormatFixtureGivesItsPayload() throws {
        let expected: [(file: String, symbology: String, text: String, id: String)] = [
            ("datamatrix.png", "datamatrix", "scanlua DataMatrix 12345", "]d1"),
            ("pdf417.png", "pdf417", "scanlua PDF417 payload", "]L2"),
            ("micropdf417.png", "micropdf417", "MicroPDF 42", "]L2"),
            ("aztec.png", "aztec", "scanlua Aztec", "]z0"),
            ("microqr.png", "microqr", "MQR123", "]Q1"),
            ("rmqr.png", "rmqr", "scanlua rMQR", "]Q1"),
            ("maxicode.png", "maxicode", "scanlua MaxiCode", "]U0"),
            // zint adds the GTIN check digit: 1501234567890 -> (01)15012345678907.
            ("databar-limited.png", "databar-limited", "0115012345678907", "]e0"),
            // 0950110153001 -> GTIN 09501101530010 (check digit 0, as databar.png).
            ("databar-stacked.png", "databar-stacked", "0109501101530010", "]e0"),
            ("databar-exp-stacked.png", "databar-exp-stacked", "0198898765432106320201234515991231", "]e0"),
            ("telepen.png", "telepen", "Telepen 1", "]B0"),
            // Code 32: 12345678 plus its check digit 8, with the customary leading A.
            ("code32.png", "code32", "A123456788", "]A0"),
            // PZN-8: 1234562 plus its check digit 6, with Code 39's leading '-'.
            ("pzn.png", "pzn", "-12345626", "]A0"),
            // ITF-14: 1540014128876 plus its check digit 3.
            ("itf14.png", "i25", "15400141288763", "]I1"),
        ]
        let decoder = ZXingDecoder(symbologies: Symbology.defaultSet)
        for e in expected {
            let image = try Fixture.image("zxing/" + e.file)
            let symbols = decoder.decode(image)
            XCTAssertEqual(symbols.count, 1, "\(e.file): \(symbols.map { "\($0.symbology):\($0.text)" })")
            guard let s = symbols.first else { continue }
            XCTAssertEqual(s.symbology.rawValue, e.symbology, e.file)
            XCTAssertEqual(s.text, e.text, e.file)
            XCTAssertEqual(s.bytes, Array(e.text.utf8), e.file)
            XCTAssertEqual(s.charset, "utf-8", e.file)
            XCTAssertEqual(s.decoder, "zxing", e.file)
            XCTAssertEqual(s.symbologyID, e.id, e.file)
            XCTAssertNil(s.eci, e.file)
            XCTAssertNil(s.sequence, e.file)
            XCTAssertEqual(s.points.count, 4, e.file)
            for p in s.points {
                XCTAssertTrue((0..<image.width).contains(p.x) && (0..<image.height).contains(p.y), "\(e.file): \(p)")
            }
        }
    }

    /// zxing-cpp 3 gives a UPC-E as 13 digits (its EAN form); records carry the code's own 8, as
    /// zbar reads them, so both readings of one code are one record. The pairs are what the two
    /// decoders read on the zxing corpus (upce-1, upce-2).
    func testUPCEKeepsItsEightDigits() {
        func short(_ s: String) -> String? { ZXingDecoder.upceDigits(expanded: Array(s.utf8)).map { String(decoding: $0, as: UTF8.self) } }
        XCTAssertEqual(short("0012345000065"), "01234565")
        XCTAssertEqual(short("0001234000057"), "00123457")
        XCTAssertEqual(short("0012300000451"), "01234531")
        XCTAssertEqual(short("0050968000093"), "05096893")
        XCTAssertEqual(short("0041244000098"), "04124498")
        XCTAssertEqual(short("0012000006494"), "01264904")
        XCTAssertNil(short("0012345678905"), "a UPC-A no UPC-E expands to")
        XCTAssertNil(short("4719512002889"), "an EAN-13")
    }

    func testQRAndDataMatrixMetadata() throws {
        let qr = try only("qrcode.png")
        XCTAssertEqual(qr.symbology.rawValue, "qrcode")
        XCTAssertEqual(qr.text, "https://example.com/scanlua")
        XCTAssertEqual(qr.symbologyID, "]Q1")
        XCTAssertEqual(qr.ecLevel, "L")
        XCTAssertEqual(qr.version, "2")
        XCTAssertEqual(qr.inverted, false)
        XCTAssertEqual(qr.mirrored, false)
        XCTAssertEqual(qr.orientation, "up")
        // The fixture's QR code is at x = 16...117 of a 132 px image.
        XCTAssertEqual(qr.bbox.x, 16, accuracy: 2)
        XCTAssertEqual(qr.bbox.width, 101, accuracy: 3)

        let dm = try only("zxing/datamatrix.png")
        XCTAssertEqual(dm.version, "20x20")
        XCTAssertEqual(dm.bbox, Box(x: 72, y: 72, width: 120, height: 120))
        XCTAssertTrue(dm.modifiers.isEmpty)
    }

    func testZBarDoesNotReadTheZXingOnlyFormats() throws {
        for name in ["datamatrix", "pdf417", "micropdf417", "aztec", "microqr", "rmqr", "maxicode", "databar-limited", "telepen"] {
            XCTAssertEqual(try zbar("zxing/\(name).png").map(\.text), [], name)
        }
    }

    func testECITextFollowsTheDeclaredCharset() throws {
        let expected: [(file: String, text: String, charset: String, eci: Int, bytes: [UInt8])] = [
            ("qr-eci29-gb2312.png", "你好", "gb2312", 29, [0xC4, 0xE3, 0xBA, 0xC3]),
            ("qr-eci20-sjis.png", "テスト", "shift_jis", 20, [0x83, 0x65, 0x83, 0x58, 0x83, 0x67]),
            ("qr-eci26-utf8.png", "Zürich", "utf-8", 26, Array("Zürich".utf8)),
        ]
        for e in expected {
            let s = try only("zxing/" + e.file)
            XCTAssertEqual(s.text, e.text, e.file)
            XCTAssertEqual(s.charset, e.charset, e.file)
            XCTAssertEqual(s.eci, e.eci, e.file)
            XCTAssertEqual(s.bytes, e.bytes, e.file)
            XCTAssertEqual(s.symbologyID, "]Q1", e.file)

            // zbar's reading of the same code (no ECI seen) merges into this one, in either order.
            let z = try zbar("zxing/" + e.file)
            XCTAssertEqual(z.count, 1, e.file)
            for list in [z + [s], [s] + z] {
                let merged = Symbol.merged(list)
                XCTAssertEqual(merged.count, 1, e.file)
                XCTAssertEqual(merged.first?.text, e.text, e.file)
                XCTAssertEqual(merged.first?.bytes, e.bytes, e.file)
                XCTAssertEqual(merged.first?.charset, e.charset, e.file)
                XCTAssertEqual(merged.first?.eci, e.eci, e.file)
                XCTAssertEqual(merged.first?.decoder, "zbar+zxing", e.file)
            }
        }
    }

    func testGS1CodesKeepTheirFNC1Separators() throws {
        let payload = Array("010952123454321310ABC123".utf8) + [0x1D] + Array("21XYZ987".utf8)
        for (file, id) in [("gs1-datamatrix.png", "]d2"), ("gs1-qrcode.png", "]Q3")] {
            let s = try only("zxing/" + file)
            XCTAssertEqual(s.bytes, payload, file)
            XCTAssertEqual(s.modifiers, ["gs1"], file)
            XCTAssertEqual(s.symbologyID, id, file)
        }
    }

    func testStructuredAppendPartsCarryTheirSequence() throws {
        let qr = try zxing("zxing/qr-structured-append.png")
        XCTAssertEqual(qr.map(\.text), (1...3).map { "part \($0) of the scanlua message;" })
        XCTAssertEqual(qr.map(\.sequence), (0..<3).map { Symbol.Sequence(index: $0, size: 3, id: "201") })

        let dm = try zxing("zxing/datamatrix-structured-append.png")
        XCTAssertEqual(dm.map(\.text), ["dm part 1;", "dm part 2;"])
        // zint's id 042042 is the two file-id bytes 42, 42: 42 * 256 + 42.
        XCTAssertEqual(dm.map(\.sequence), (0..<2).map { Symbol.Sequence(index: $0, size: 2, id: "10794") })

        var joiner = StructuredAppendJoiner()
        let joined = joiner.add(dm)
        XCTAssertEqual(joined.count, 1)
        XCTAssertEqual(joined.first?.text, "dm part 1;dm part 2;")
        XCTAssertEqual(joined.first?.joinedParts, 2)
        XCTAssertEqual(joined.first?.symbologyID, "]d1")
        XCTAssertNil(joined.first?.sequence)
    }

    func testAddOnIsReadWithItsEAN() throws {
        for (file, main, addon) in [("zxing/ean13-addon5.png", "9780201379624", "51995"), ("ean5.png", "9780201379624", "51995"),
                                    ("ean2.png", "4719512002889", "12")] {
            let symbols = try zxing(file)
            // zxing-cpp never reports an add-on on its own.
            XCTAssertFalse(symbols.contains { $0.symbology.rawValue == "ean5" || $0.symbology.rawValue == "ean2" }, file)
            let withAddOn = symbols.filter { $0.addon != nil }
            XCTAssertEqual(withAddOn.map(\.text), [main], file)
            XCTAssertEqual(withAddOn.first?.addon, addon, file)
            XCTAssertEqual(withAddOn.first?.bytes, Array(main.utf8), "the add-on is not in the main code's bytes: \(file)")
        }
        // zxing-cpp may read the main code twice (rows above the add-on, and with it): merged, one
        // symbol with the add-on.
        for file in ["zxing/ean13-addon5.png", "ean5.png"] {
            let merged = Symbol.merged(try zxing(file))
            XCTAssertEqual(merged.map(\.text), ["9780201379624"], file)
            XCTAssertEqual(merged.first?.addon, "51995", file)
        }
        // Without ean2/ean5 asked for, no add-on is read.
        let plain = ZXingDecoder(symbologies: [Symbology(rawValue: "ean13"), Symbology(rawValue: "isbn13")])
            .decode(try Fixture.image("zxing/ean13-addon5.png"))
        XCTAssertFalse(plain.isEmpty)
        XCTAssertTrue(plain.allSatisfy { $0.addon == nil && $0.bytes == Array("9780201379624".utf8) })
    }

    func testFastEffortStillReadsACleanCode() throws {
        XCTAssertEqual(try zxing("qrcode.png", effort: .fast).map(\.text), ["https://example.com/scanlua"])
        XCTAssertEqual(try zxing("zxing/datamatrix.png", effort: .thorough).map(\.text), ["scanlua DataMatrix 12345"])
    }

    func testOnlyTheAskedSymbologiesComeBack() throws {
        let image = try Fixture.image("zxing/datamatrix.png")
        XCTAssertEqual(ZXingDecoder(symbologies: [Symbology(rawValue: "qrcode")]).decode(image).count, 0)
        XCTAssertEqual(ZXingDecoder(symbologies: []).decode(image, region: nil, info: FrameInfo(source: "x")).count, 0)
        // Code 32 asked for, Code 39 not: zxing-cpp's code32 reading is kept.
        let c32 = ZXingDecoder(symbologies: [Symbology(rawValue: "code32")]).decode(try Fixture.image("zxing/code32.png"))
        XCTAssertEqual(c32.map(\.text), ["A123456788"])
    }

    func testRegionKeepsFrameCoordinates() throws {
        let image = try Fixture.image("zxing/qr-structured-append.png")
        // Only the middle symbol (x = 366...516) is inside this region.
        let box = Box(x: 340, y: 0, width: 200, height: image.height)
        let region = Region(x: Double(box.x), y: 0, width: Double(box.width), height: Double(box.height), isFraction: false)
        let symbols = ZXingDecoder(symbologies: Symbology.defaultSet).decode(image, region: region, info: FrameInfo(source: "x"))
        XCTAssertEqual(symbols.map(\.text), ["part 2 of the scanlua message;"])
        XCTAssertEqual(symbols.first?.bbox.x ?? 0, 366, accuracy: 2)
    }

    func testACodeFlushWithTheFrameEdgeHasItsPointsInsideTheFrame() throws {
        // The fixtures cut right after the code's last module row and column (no quiet zone there):
        // qrcode.png's QR code ends at x = y = 115, microqr.png's Micro QR code at 149.
        let cases: [(name: String, size: Int, text: String)] = [("qrcode.png", 116, "https://example.com/scanlua"),
                                                                 ("zxing/microqr.png", 150, "MQR123")]
        for c in cases {
            let image = try Fixture.image(c.name).cropped(to: Box(x: 0, y: 0, width: c.size, height: c.size))
            let readings = ZXingDecoder(symbologies: Symbology.defaultSet).decode(image)
                + ZBarDecoder(symbologies: Symbology.defaultSet).decode(image)
            XCTAssertFalse(readings.isEmpty, c.name)
            XCTAssertTrue(readings.allSatisfy { $0.text == c.text }, c.name)
            for s in readings {
                for p in s.points {
                    XCTAssertTrue(p.x >= 0 && p.x < image.width && p.y >= 0 && p.y < image.height,
                                  "\(c.name) \(s.decoder): point \(p) outside the \(image.width)x\(image.height) frame")
                }
                XCTAssertLessThanOrEqual(s.bbox.x + s.bbox.width, image.width, "\(c.name) \(s.decoder): bbox \(s.bbox)")
                XCTAssertLessThanOrEqual(s.bbox.y + s.bbox.height, image.height, "\(c.name) \(s.decoder): bbox \(s.bbox)")
            }
        }
    }

    // MARK: - Symbol.merged

    private func sym(_ symbology: String, _ text: String, box: Box, decoder: String, bytes: [UInt8]? = nil) -> Symbol {
        let points = [Point(x: box.x, y: box.y), Point(x: box.x + box.width - 1, y: box.y),
                      Point(x: box.x + box.width - 1, y: box.y + box.height - 1), Point(x: box.x, y: box.y + box.height - 1)]
        var s = Symbol(symbology: Symbology(rawValue: symbology), bytes: bytes ?? Array(text.utf8), points: points, quality: 1)
        s.decoder = decoder
        return s
    }

    func testALinearReadingInsideAMatrixCodeIsLeftOut() {
        let qr = sym("qrcode", "hello", box: Box(x: 10, y: 10, width: 100, height: 100), decoder: "zxing")
        let inside = sym("codabar", "C$3D", box: Box(x: 60, y: 12, width: 4, height: 96), decoder: "zxing")
        let beside = sym("ean13", "5901234123457", box: Box(x: 120, y: 10, width: 90, height: 60), decoder: "zbar")
        let luaNamed = sym("mycode", "7", box: Box(x: 40, y: 40, width: 10, height: 10), decoder: "lua")
        let dm = sym("datamatrix", "x", box: Box(x: 300, y: 300, width: 40, height: 40), decoder: "zxing")
        let inDM = sym("i25", "9403", box: Box(x: 310, y: 300, width: 2, height: 40), decoder: "zxing")
        XCTAssertEqual(Symbol.droppingLinearInsideMatrix([qr, inside, beside, luaNamed, dm, inDM]).map(\.text),
                       ["hello", "5901234123457", "7", "x"])
        XCTAssertEqual(Symbol.droppingLinearInsideMatrix([inside, beside]).map(\.text), ["C$3D", "5901234123457"],
                       "without a matrix code read, linear readings stay")
        // A QR code turned 45 degrees: its upright box covers the corners beside it, its outline does not.
        var turned = qr
        turned.points = [Point(x: 60, y: 10), Point(x: 110, y: 60), Point(x: 60, y: 110), Point(x: 10, y: 60)]
        let inCorner = sym("code128", "corner", box: Box(x: 12, y: 12, width: 16, height: 8), decoder: "zbar")
        let atCentre = sym("i25", "2548", box: Box(x: 58, y: 30, width: 3, height: 60), decoder: "zxing")
        XCTAssertEqual(Symbol.droppingLinearInsideMatrix([turned, inCorner, atCentre]).map(\.text), ["hello", "corner"])
        // One reading of two copies of a code, above and below the QR code: centred in it, but its ends are not.
        let twoCopies = sym("ean13", "5901234123457", box: Box(x: 20, y: -60, width: 80, height: 220), decoder: "zxing")
        XCTAssertEqual(Symbol.droppingLinearInsideMatrix([qr, twoCopies]).map(\.text), ["hello", "5901234123457"])
    }

    /// zbar's pass beside other codes: linear codes but not EAN/UPC (the gray-level reader's) or matrix codes.
    func testZBarsLinearPassLeavesOutEANAndMatrixCodes() throws {
        let zbar = ZBarDecoder(symbologies: Symbology.defaultSet)
        let info = FrameInfo(source: "fixture")
        XCTAssertEqual(zbar.decodeLinear(try Fixture.image("code128.png"), region: nil, info: info).map(\.symbology.rawValue), ["code128"])
        XCTAssertEqual(zbar.decode(try Fixture.image("ean13.png")).map(\.symbology.rawValue), ["ean13"])
        XCTAssertEqual(zbar.decodeLinear(try Fixture.image("ean13.png"), region: nil, info: info).count, 0)
        XCTAssertEqual(zbar.decodeLinear(try Fixture.image("qrcode.png"), region: nil, info: info).count, 0)
        XCTAssertEqual(zbar.decodeAddOns(try Fixture.image("ean2.png")).map { "\($0.symbology.rawValue) \($0.text)" }, ["ean2 12"])
    }

    func testPiecesOfAnI25ReadingBesideItAreLeftOut() {
        // A turned ITF-14 (79 lines) and the pieces zxing-cpp 3.1.1 reads along its edges (2 and 3
        // lines; fixture itf14-turned.png).
        func lines(_ s: Symbol, _ n: Int) -> Symbol { var s = s; s.quality = n; return s }
        let whole = lines(sym("i25", "90565112185531", box: Box(x: 60, y: 60, width: 420, height: 200), decoder: "zxing"), 79)
        let start = lines(sym("i25", "905651", box: Box(x: 70, y: 250, width: 190, height: 3), decoder: "zxing"), 3)
        let end = lines(sym("i25", "5112185531", box: Box(x: 170, y: 62, width: 300, height: 2), decoder: "zxing"), 2)
        let other = lines(sym("i25", "12345678", box: Box(x: 200, y: 300, width: 200, height: 60), decoder: "zxing"), 2)
        let otherKind = lines(sym("code128", "905651", box: Box(x: 60, y: 280, width: 200, height: 60), decoder: "zxing"), 2)
        let far = lines(sym("i25", "905651", box: Box(x: 1200, y: 60, width: 190, height: 60), decoder: "zxing"), 2)
        // A code of some of its digits printed below it, read on as many lines as its height gives.
        let genuine = lines(sym("i25", "5112185531", box: Box(x: 100, y: 290, width: 300, height: 40), decoder: "zxing"), 32)
        XCTAssertEqual(Symbol.droppingPiecesOfI25([start, whole, end, other, otherKind, far, genuine]).map(\.text),
                       ["90565112185531", "12345678", "905651", "905651", "5112185531"],
                       "pieces beside it go; other digits, another symbology, a code far away and one read on many lines stay")
        XCTAssertEqual(Symbol.droppingPiecesOfI25([start, end]).map(\.text), ["905651", "5112185531"], "without the longer reading, both stay")
    }

    func testSameCodeFromBothDecodersIsOneSymbol() {
        let a = sym("qrcode", "hello", box: Box(x: 10, y: 10, width: 100, height: 100), decoder: "zbar")
        var b = sym("qrcode", "hello", box: Box(x: 12, y: 11, width: 99, height: 100), decoder: "zxing")
        b.symbologyID = "]Q1"
        b.ecLevel = "M"
        b.version = "3"
        b.inverted = false
        b.mirrored = false
        b.orientation = "up"
        for list in [[a, b], [b, a]] {
            let m = Symbol.merged(list)
            XCTAssertEqual(m.count, 1)
            XCTAssertEqual(m.first?.decoder, "zbar+zxing", "the decoders in a fixed order")
            XCTAssertEqual(m.first?.text, "hello")
            XCTAssertEqual(m.first?.symbologyID, "]Q1")
            XCTAssertEqual(m.first?.ecLevel, "M")
            XCTAssertEqual(m.first?.version, "3")
            XCTAssertEqual(m.first?.orientation, "up")
            XCTAssertEqual(m.first?.inverted, false)
        }
        // The order is that of the first reading.
        let other = sym("ean13", "4719512002889", box: Box(x: 300, y: 10, width: 100, height: 60), decoder: "zbar")
        XCTAssertEqual(Symbol.merged([other, a, b]).map(\.symbology.rawValue), ["ean13", "qrcode"])
    }

    func testTheECIReadingWinsForBytesAndText() {
        let box = Box(x: 72, y: 72, width: 127, height: 127)
        // zbar converts an ECI code's text to UTF-8 even in binary mode.
        let z = sym("qrcode", "テスト", box: box, decoder: "zbar")
        var x = sym("qrcode", "", box: box, decoder: "zxing", bytes: [0x83, 0x65, 0x83, 0x58, 0x83, 0x67])
        x.eci = 20
        x.text = "テスト"
        x.charset = "shift_jis"
        for list in [[z, x], [x, z]] {
            let m = Symbol.merged(list)
            XCTAssertEqual(m.count, 1)
            XCTAssertEqual(m.first?.bytes, [0x83, 0x65, 0x83, 0x58, 0x83, 0x67])
            XCTAssertEqual(m.first?.text, "テスト")
            XCTAssertEqual(m.first?.charset, "shift_jis")
            XCTAssertEqual(m.first?.eci, 20)
            XCTAssertEqual(m.first?.decoder, "zbar+zxing")
        }
    }

    /// zbar reads Code 39 without full ASCII and Code 128 without FNC4: on the zxing corpus
    /// (code39-2/2.png, code128-1/6.png, with `--effort thorough`) that was two records per code.
    func testExtendedCode39AndCode128ReadingsMergeWithTheirPlainReadings() {
        let box = Box(x: 20, y: 20, width: 300, height: 80)
        let cases: [(String, [UInt8], [UInt8], String)] = [
            ("code39", Array("12+A+B".utf8), Array("12ab".utf8), "12ab"),
            ("code39", Array("E+X+T+E+N+D+E+D /A%J/J/C".utf8), Array("Extended !?*#".utf8), "Extended !?*#"),
            ("code128", Array("ssss1234ssabszz".utf8), [0xF3, 0xF3, 0xF3, 0xF3] + Array("1234".utf8) + [0xF3, 0xF3] + Array("ab".utf8) + [0xF3] + Array("zz".utf8), "óóóó1234óóabózz"),
        ]
        for (symbology, plain, extended, text) in cases {
            let z = sym(symbology, "", box: box, decoder: "zbar", bytes: plain)
            var x = sym(symbology, "", box: box, decoder: "zxing", bytes: extended)
            x.symbologyID = symbology == "code39" ? "]A4" : "]C0"
            for list in [[z, x], [x, z]] {
                let m = Symbol.merged(list)
                XCTAssertEqual(m.count, 1, text)
                XCTAssertEqual(m.first?.bytes, extended, text)
                XCTAssertEqual(m.first?.text, text)
                XCTAssertEqual(m.first?.decoder, "zbar+zxing")
                XCTAssertEqual(m.first?.symbologyID, x.symbologyID)
            }
        }
        XCTAssertNil(Symbol.code39FullASCII(Array("+1".utf8)), "not a full ASCII pair")
        XCTAssertEqual(Symbol.code39FullASCII(Array("%U$M/Z%V".utf8)), [0x00, 0x0D, 0x3A, 0x40])
        // A plain Code 39 that is not this code's plain reading stays apart.
        let other = sym("code39", "12+A+C", box: box, decoder: "zbar")
        XCTAssertEqual(Symbol.merged([other, sym("code39", "12ab", box: box, decoder: "zxing")]).count, 2)
    }

    func testCodesApartOrDifferentAreNotMerged() {
        let a = sym("qrcode", "hello", box: Box(x: 10, y: 10, width: 100, height: 100), decoder: "zbar")
        let far = sym("qrcode", "hello", box: Box(x: 400, y: 10, width: 100, height: 100), decoder: "zxing")
        XCTAssertEqual(Symbol.merged([a, far]).count, 2, "two codes with one payload side by side")
        let otherText = sym("qrcode", "world", box: Box(x: 10, y: 10, width: 100, height: 100), decoder: "zxing")
        XCTAssertEqual(Symbol.merged([a, otherText]).count, 2)
        let otherSymbology = sym("microqr", "hello", box: Box(x: 10, y: 10, width: 100, height: 100), decoder: "zxing")
        XCTAssertEqual(Symbol.merged([a, otherSymbology]).count, 2)
        // A variant is one code with its base symbology only at the same place.
        let c39 = sym("code39", "3PRM8N", box: Box(x: 72, y: 72, width: 619, height: 300), decoder: "zbar")
        let c32far = sym("code32", "A123456788", box: Box(x: 72, y: 900, width: 619, height: 300), decoder: "zxing")
        XCTAssertEqual(Symbol.merged([c39, c32far]).count, 2)
    }

    func testCode32ReadAsCode39ByZBarIsOneCode32() {
        let c39 = sym("code39", "3PRM8N", box: Box(x: 72, y: 72, width: 619, height: 300), decoder: "zbar")
        var c32 = sym("code32", "A123456788", box: Box(x: 72, y: 72, width: 618, height: 300), decoder: "zxing")
        c32.symbologyID = "]A0"
        for list in [[c39, c32], [c32, c39]] {
            let m = Symbol.merged(list)
            XCTAssertEqual(m.count, 1)
            XCTAssertEqual(m.first?.symbology.rawValue, "code32")
            XCTAssertEqual(m.first?.text, "A123456788")
            XCTAssertEqual(m.first?.bytes, Array("A123456788".utf8))
            XCTAssertEqual(m.first?.decoder, "zbar+zxing")
            XCTAssertEqual(m.first?.symbologyID, "]A0")
        }
    }

    func testCode32FixtureFromBothDecodersIsOneCode32() throws {
        let both = try zbar("zxing/code32.png") + zxing("zxing/code32.png")
        XCTAssertEqual(both.map(\.symbology.rawValue).sorted(), ["code32", "code39"])
        let m = Symbol.merged(both)
        XCTAssertEqual(m.map(\.symbology.rawValue), ["code32"])
        XCTAssertEqual(m.map(\.text), ["A123456788"])
    }

    func testStackedDataBarBoxesTenPixelsApartAreOneCode() {
        // zxing-cpp outlines the top row, zbar the bottom row 10 px lower.
        let top = sym("databar-stacked", "0109501101530010", box: Box(x: 78, y: 73, width: 300, height: 39), decoder: "zxing")
        let bottom = sym("databar", "0109501101530010", box: Box(x: 84, y: 122, width: 277, height: 30), decoder: "zbar")
        XCTAssertEqual(bottom.bbox.y - (top.bbox.y + top.bbox.height), 10)
        for list in [[bottom, top], [top, bottom]] {
            let m = Symbol.merged(list)
            XCTAssertEqual(m.count, 1)
            XCTAssertEqual(m.first?.symbology.rawValue, "databar-stacked")
            XCTAssertEqual(m.first?.decoder, "zbar+zxing")
        }
        // The expanded stacked fixture's own readings: zxing-cpp y = 72...284, zbar 294...354.
        let exp = "0198898765432106320201234515991231"
        let xs = sym("databar-exp-stacked", exp, box: Box(x: 84, y: 72, width: 588, height: 213), decoder: "zxing")
        let zb = sym("databar-exp", exp, box: Box(x: 84, y: 294, width: 589, height: 61), decoder: "zbar")
        XCTAssertEqual(Symbol.merged([zb, xs]).map(\.symbology.rawValue), ["databar-exp-stacked"])
    }

    func testStackedFixturesFromBothDecodersAreOneCode() throws {
        for (file, symbology) in [("databar-stacked.png", "databar-stacked"), ("databar-exp-stacked.png", "databar-exp-stacked"),
                                  ("pzn.png", "pzn"), ("itf14.png", "i25")] {
            let m = Symbol.merged(try zbar("zxing/" + file) + zxing("zxing/" + file))
            XCTAssertEqual(m.map(\.symbology.rawValue), [symbology], file)
            XCTAssertEqual(m.first?.decoder, "zbar+zxing", file)
        }
    }

    // MARK: - StructuredAppendJoiner

    private func part(_ i: Int, of n: Int, id: String, _ text: String, symbology: String = "qrcode", x: Int = 0) -> Symbol {
        var s = sym(symbology, text, box: Box(x: x, y: 0, width: 50, height: 50), decoder: "zxing")
        s.sequence = Symbol.Sequence(index: i, size: n, id: id)
        s.symbologyID = "]Q1"
        return s
    }

    func testJoinerJoinsPartsOutOfOrderAcrossFrames() {
        var j = StructuredAppendJoiner()
        XCTAssertEqual(j.add([part(2, of: 3, id: "7", "C")]).count, 0)
        XCTAssertEqual(j.add([part(0, of: 3, id: "7", "A")]).count, 0)
        let joined = j.add([part(1, of: 3, id: "7", "B", x: 200)])
        XCTAssertEqual(joined.count, 1)
        let s = try? XCTUnwrap(joined.first)
        XCTAssertEqual(s?.text, "ABC")
        XCTAssertEqual(s?.bytes, Array("ABC".utf8))
        XCTAssertEqual(s?.joinedParts, 3)
        XCTAssertEqual(s?.symbology.rawValue, "qrcode")
        XCTAssertEqual(s?.symbologyID, "]Q1")
        XCTAssertEqual(s?.decoder, "zxing")
        XCTAssertNil(s?.sequence)
        // Placed over the part seen in this frame.
        XCTAssertEqual(s?.bbox, Box(x: 200, y: 0, width: 50, height: 50))
        // Done: the same parts again start a new message.
        XCTAssertEqual(j.add([part(0, of: 3, id: "7", "A")]).count, 0)
    }

    func testJoinerInOneFrameOutlinesAllParts() {
        var j = StructuredAppendJoiner()
        let joined = j.add([part(1, of: 2, id: "x", "2", x: 100), part(0, of: 2, id: "x", "1", x: 0)])
        XCTAssertEqual(joined.map(\.text), ["12"])
        XCTAssertEqual(joined.first?.bbox, Box(x: 0, y: 0, width: 150, height: 50))
    }

    func testJoinerDuplicatesOfAPartDoNotCount() {
        var j = StructuredAppendJoiner()
        XCTAssertEqual(j.add([part(0, of: 3, id: "d", "A"), part(0, of: 3, id: "d", "A")]).count, 0)
        XCTAssertEqual(j.add([part(0, of: 3, id: "d", "A")]).count, 0)
        XCTAssertEqual(j.add([part(1, of: 3, id: "d", "B")]).count, 0, "two distinct parts of three")
        XCTAssertEqual(j.add([part(1, of: 3, id: "d", "B")]).count, 0)
        XCTAssertEqual(j.add([part(2, of: 3, id: "d", "C")]).map(\.text), ["ABC"])
    }

    func testJoinerKeepsInterleavedSequencesApart() {
        var j = StructuredAppendJoiner()
        XCTAssertEqual(j.add([part(0, of: 2, id: "a", "a1"), part(0, of: 2, id: "b", "b1")]).count, 0)
        // Same id, other size; and same id in another symbology: other sequences.
        XCTAssertEqual(j.add([part(1, of: 3, id: "a", "X"), part(1, of: 2, id: "a", "dm", symbology: "datamatrix")]).count, 0)
        XCTAssertEqual(j.add([part(1, of: 2, id: "b", "b2")]).map(\.text), ["b1b2"])
        XCTAssertEqual(j.add([part(1, of: 2, id: "a", "a2")]).map(\.text), ["a1a2"])
        XCTAssertEqual(j.add([part(0, of: 2, id: "a", "DM", symbology: "datamatrix")]).map(\.text), ["DMdm"])
        XCTAssertEqual(j.add([part(0, of: 3, id: "a", "Y"), part(2, of: 3, id: "a", "Z")]).map(\.text), ["YXZ"])
    }

    func testJoinerIgnoresSymbolsThatAreNotParts() {
        var j = StructuredAppendJoiner()
        let plain = sym("qrcode", "plain", box: Box(x: 0, y: 0, width: 10, height: 10), decoder: "zbar")
        XCTAssertEqual(j.add([plain, part(0, of: 1, id: "s", "single")]).count, 0)
        XCTAssertEqual(j.add([part(5, of: 3, id: "bad", "?"), part(-1, of: 3, id: "bad", "?")]).count, 0)
        XCTAssertEqual(j.add([part(0, of: 2, id: "bad", "0"), part(1, of: 2, id: "bad", "1")]).map(\.text), ["01"])
    }

    func testJoinerDropsTheOldestIncompleteSequenceOverCapacity() {
        var j = StructuredAppendJoiner()
        j.capacity = 2
        _ = j.add([part(0, of: 2, id: "A", "a")])
        _ = j.add([part(0, of: 2, id: "B", "b")])
        _ = j.add([part(0, of: 2, id: "C", "c")])  // A is dropped
        XCTAssertEqual(j.add([part(1, of: 2, id: "C", "C")]).map(\.text), ["cC"])
        XCTAssertEqual(j.add([part(1, of: 2, id: "B", "B")]).map(\.text), ["bB"])
        XCTAssertEqual(j.add([part(1, of: 2, id: "A", "A")]).count, 0, "A's first part was dropped")
        XCTAssertEqual(j.add([part(0, of: 2, id: "A", "a")]).map(\.text), ["aA"])

        // The default keeps 64: the first of 65 open sequences is gone, the second is not.
        var d = StructuredAppendJoiner()
        XCTAssertEqual(d.capacity, 64)
        for i in 0..<65 { _ = d.add([part(0, of: 2, id: "s\(i)", "\(i)")]) }
        XCTAssertEqual(d.add([part(1, of: 2, id: "s0", "-")]).count, 0)
        XCTAssertEqual(d.add([part(1, of: 2, id: "s2", "-")]).map(\.text), ["2-"])
    }

    func testJoinedTextFollowsTheFirstPartsECI() {
        var j = StructuredAppendJoiner()
        var p0 = part(0, of: 2, id: "e", "", x: 0)
        p0.bytes = [0xC4, 0xE3]
        p0.text = "你"
        p0.eci = 29
        p0.charset = "gb2312"
        var p1 = part(1, of: 2, id: "e", "", x: 60)
        p1.bytes = [0xBA, 0xC3]
        p1.text = "好"
        p1.eci = 29
        p1.charset = "gb2312"
        let s = j.add([p0, p1]).first
        XCTAssertEqual(s?.bytes, [0xC4, 0xE3, 0xBA, 0xC3])
        XCTAssertEqual(s?.text, "你好")
        XCTAssertEqual(s?.charset, "gb2312")
        XCTAssertEqual(s?.eci, 29)
    }

    // MARK: - Pyramid

    func testPyramidReductions() {
        let balanced = Pyramid(effort: .balanced), fast = Pyramid(effort: .fast), thorough = Pyramid(effort: .thorough)
        XCTAssertEqual(balanced.reduction(width: 4000, height: 3000), 4)
        XCTAssertEqual(fast.reduction(width: 4000, height: 3000), 4)
        XCTAssertNil(balanced.reduction(width: 1000, height: 1000))
        XCTAssertNil(fast.reduction(width: 1000, height: 1000))
        XCTAssertNil(thorough.reduction(width: 4000, height: 3000))
        XCTAssertNil(thorough.reduction(width: 20000, height: 20000))
        // The 16x QR fixture of the CLI tests.
        XCTAssertEqual(balanced.reduction(width: 2112, height: 2112), 4)
        XCTAssertEqual(fast.reduction(width: 2112, height: 2112), 4)
        XCTAssertNil(balanced.reduction(width: 2000, height: 1000))
        XCTAssertEqual(fast.reduction(width: 2000, height: 1000), 2)
        XCTAssertNil(fast.reduction(width: 1500, height: 1000), "at the threshold: no small pass")
        XCTAssertEqual(balanced.reduction(width: 20000, height: 20000), 8, "8 at most")
        XCTAssertNotEqual(fast, balanced)
    }

    func testReducedAveragesBlocks() {
        let image = GrayImage(width: 4, height: 2, pixels: [0, 10, 20, 30,
                                                           30, 40, 255, 255])
        let half = image.reduced(by: 2)
        XCTAssertEqual(half.width, 2)
        XCTAssertEqual(half.height, 1)
        XCTAssertEqual(half.pixels, [20, 140])  // (0+10+30+40)/4, (20+30+255+255)/4
        XCTAssertEqual(GrayImage(width: 4, height: 4, pixels: Array(repeating: 255, count: 16)).reduced(by: 4).pixels, [255])
        // The last partial blocks are dropped.
        let odd = GrayImage(width: 5, height: 3, pixels: [8, 8, 4, 4, 99,
                                                          8, 8, 4, 4, 99,
                                                          99, 99, 99, 99, 99])
        XCTAssertEqual(odd.reduced(by: 2), GrayImage(width: 2, height: 1, pixels: [8, 4]))
        XCTAssertEqual(image.reduced(by: 1), image)
        XCTAssertEqual(image.reduced(by: 4), image, "too small to reduce: unchanged")
    }

    func testScaledSymbolIsInFullSizeCoordinates() {
        let s = sym("qrcode", "x", box: Box(x: 4, y: 4, width: 25, height: 25), decoder: "zbar").scaled(by: 4)
        XCTAssertEqual(s.points, [Point(x: 18, y: 18), Point(x: 114, y: 18), Point(x: 114, y: 114), Point(x: 18, y: 114)])
        XCTAssertEqual(s.bbox, Box(x: 18, y: 18, width: 97, height: 97))
    }

    func testAReducedLargeImageIsReadByBothDecoders() throws {
        // The QR fixture at 16x (2112 px), reduced 4x as the pyramid does, then back to full size.
        let small = try Fixture.image("qrcode.png")
        var big = [UInt8](repeating: 0, count: small.width * 16 * small.height * 16)
        let w = small.width * 16
        for y in 0..<(small.height * 16) {
            for x in 0..<w { big[y * w + x] = small[x / 16, y / 16] }
        }
        let image = GrayImage(width: w, height: small.height * 16, pixels: big)
        let k = try XCTUnwrap(Pyramid(effort: .balanced).reduction(width: image.width, height: image.height))
        let reduced = image.reduced(by: k)
        for decoder in [ZXingDecoder(symbologies: Symbology.defaultSet, effort: .fast) as FrameDecoder,
                        ZBarDecoder(symbologies: Symbology.defaultSet)] {
            let found = decoder.decode(reduced, region: nil, info: FrameInfo(source: "big")).map { $0.scaled(by: k) }
            XCTAssertEqual(found.map(\.text), ["https://example.com/scanlua"], "\(type(of: decoder))")
            guard let b = found.first?.bbox else { continue }
            XCTAssertEqual(b.x, 16 * 16, accuracy: 40, "\(type(of: decoder)) \(b)")
            XCTAssertEqual(b.width, 101 * 16, accuracy: 64, "\(type(of: decoder)) \(b)")
        }
    }

    // MARK: - Fuzz

    private func randomImage(_ g: inout SplitMix64, codes: [GrayImage]) -> (GrayImage, String) {
        var w: Int, h: Int
        let kind = Int.random(in: 0..<8, using: &g)
        let code = codes[Int.random(in: 0..<codes.count, using: &g)]
        switch Int.random(in: 0..<10, using: &g) {
        case 0: (w, h) = (1, Int.random(in: 1...300, using: &g))
        case 1: (w, h) = (Int.random(in: 1...300, using: &g), 1)
        case 2: (w, h) = (Int.random(in: 1...4, using: &g), Int.random(in: 1...300, using: &g))
        case 3: (w, h) = (Int.random(in: 1...300, using: &g), Int.random(in: 1...4, using: &g))
        case 4, 5 where kind >= 4:  // room for the whole code
            (w, h) = (Int.random(in: min(300, code.width)...300, using: &g), Int.random(in: min(300, code.height)...300, using: &g))
        default: (w, h) = (Int.random(in: 1...300, using: &g), Int.random(in: 1...300, using: &g))
        }
        var px = [UInt8](repeating: 255, count: w * h)
        switch kind {
        case 0:  // pixel noise
            for i in px.indices { px[i] = UInt8.random(in: 0...255, using: &g) }
        case 1:  // vertical bars of random widths, like a linear code
            var x = 0
            while x < w {
                let bw = Int.random(in: 1...8, using: &g), v: UInt8 = Bool.random(using: &g) ? 0 : 255
                for xx in x..<min(w, x + bw) { for y in 0..<h { px[y * w + xx] = v } }
                x += bw
            }
        case 2:  // random modules, like a matrix code
            let m = Int.random(in: 1...12, using: &g)
            let cols = (w + m - 1) / m, rows = (h + m - 1) / m
            let cells = (0..<(cols * rows)).map { _ in Bool.random(using: &g) }
            for y in 0..<h { for x in 0..<w where cells[(y / m) * cols + x / m] { px[y * w + x] = 0 } }
        case 3:  // dark rectangles on light noise
            for i in px.indices { px[i] = UInt8.random(in: 100...255, using: &g) }
            for _ in 0..<Int.random(in: 1...20, using: &g) {
                let rx = Int.random(in: 0..<w, using: &g), ry = Int.random(in: 0..<h, using: &g)
                let rw = Int.random(in: 1...max(1, w / 3), using: &g), rh = Int.random(in: 1...max(1, h / 3), using: &g)
                let v = UInt8.random(in: 0...80, using: &g)
                for y in ry..<min(h, ry + rh) { for x in rx..<min(w, rx + rw) { px[y * w + x] = v } }
            }
        default:  // a real code (with its quiet zone) at a random offset, maybe partly outside
            let ox = Int.random(in: -code.width / 4...max(0, w - code.width * 3 / 4), using: &g)
            let oy = Int.random(in: -code.height / 4...max(0, h - code.height * 3 / 4), using: &g)
            for y in 0..<h {
                for x in 0..<w {
                    let sx = x - ox, sy = y - oy
                    if sx >= 0, sy >= 0, sx < code.width, sy < code.height { px[y * w + x] = code[sx, sy] }
                }
            }
            // Some noise on top.
            for _ in 0..<Int.random(in: 0...(w * h / 50), using: &g) { px[Int.random(in: 0..<(w * h), using: &g)] = UInt8.random(in: 0...255, using: &g) }
        }
        return (GrayImage(width: w, height: h, pixels: px), "\(w)x\(h) kind \(kind)")
    }

    /// A fixture cropped to its code and a quiet zone of `margin` pixels.
    private func codeOnly(_ name: String, margin: Int) throws -> GrayImage {
        let image = try Fixture.image(name)
        var minX = image.width, minY = image.height, maxX = -1, maxY = -1
        for y in 0..<image.height {
            for x in 0..<image.width where image[x, y] < 128 {
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        let x0 = max(0, minX - margin), y0 = max(0, minY - margin)
        return image.cropped(to: Box(x: x0, y: y0, width: min(image.width, maxX + margin + 1) - x0,
                                     height: min(image.height, maxY + margin + 1) - y0))
    }

    func testSeededNoiseNeverCrashesAndPointsStayInside() throws {
        let seed: UInt64 = 0x5CA1_AB1E_2026
        var g = SplitMix64(seed: seed)
        // The fixtures cropped to their codes and some quiet zone, so they fit in small images.
        let codes = try [("qrcode.png", 12), ("ean13.png", 24), ("zxing/datamatrix.png", 12), ("zxing/microqr.png", 12),
                         ("zxing/aztec.png", 6), ("zxing/rmqr.png", 12), ("zxing/micropdf417.png", 12), ("zxing/code32.png", 30),
                         ("zxing/pdf417.png", 12)].map { try codeOnly($0.0, margin: $0.1) }
        let zx = [ZXingDecoder(symbologies: all, effort: .thorough), ZXingDecoder(symbologies: all, effort: .fast)]
        let zb = ZBarDecoder(symbologies: all)
        var found = 0
        for n in 0..<200 {
            let (image, what) = randomImage(&g, codes: codes)
            let where_ = "seed \(seed) image \(n) (\(what))"
            let symbols = zx[n % 2].decode(image) + zb.decode(image)
            for s in symbols {
                found += 1
                XCTAssertFalse(s.points.isEmpty, "\(where_): \(s.symbology) \(s.text)")
                for p in s.points {
                    XCTAssertTrue(p.x >= 0 && p.x < image.width && p.y >= 0 && p.y < image.height,
                                  "\(where_): \(s.decoder) \(s.symbology) '\(s.text)' point \(p) outside \(image.width)x\(image.height)")
                }
                XCTAssertTrue(s.bbox.x >= 0 && s.bbox.y >= 0 && s.bbox.x + s.bbox.width <= image.width
                              && s.bbox.y + s.bbox.height <= image.height, "\(where_): bbox \(s.bbox)")
            }
            // A random region through the frame path: points back in frame coordinates, inside the frame.
            let region = Region(x: Double.random(in: 0..<1, using: &g), y: Double.random(in: 0..<1, using: &g),
                                width: Double.random(in: 0.05...1, using: &g), height: Double.random(in: 0.05...1, using: &g),
                                isFraction: true)
            let info = FrameInfo(source: "fuzz", width: image.width, height: image.height)
            for s in zx[0].decode(image, region: region, info: info) + zb.decode(image, region: region, info: info) {
                for p in s.points {
                    XCTAssertTrue(p.x >= 0 && p.x < image.width && p.y >= 0 && p.y < image.height,
                                  "\(where_) region \(region): \(s.decoder) \(s.symbology) point \(p)")
                }
            }
        }
        // The pasted codes make sure the point checks saw real symbols.
        XCTAssertGreaterThan(found, 10, "seed \(seed)")
    }
}
