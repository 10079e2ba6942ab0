import Dispatch
import Foundation
import ScanCore
import XCTest

/// Issue 20, precision: an EAN/UPC reading with bars right past its ends is part of something
/// longer and never becomes a record. Fixtures from scripts/make-fixtures (zint, ImageMagick).
final class QuietZonesTests: XCTestCase {
    func quietPath(_ name: String) -> String { Bundle.module.url(forResource: "Linear/quiet/" + name, withExtension: nil)!.path }
    func image(_ name: String) throws -> GrayImage { try ImageLoader().load(path: quietPath(name)) }

    /// The EAN-13 zxing-cpp reads in `name` (its points are the decoder's own).
    func ean13(in image: GrayImage) throws -> Symbol {
        let read = ZXingDecoder(symbologies: Symbology.defaultSet, effort: .balanced).decode(image)
        return try XCTUnwrap(read.first { $0.symbology.rawValue == "ean13" && $0.text == "8005235212442" })
    }

    /// A UPC-E claimed on the first 51 of the EAN-13's 95 modules, along the decoder's own lines:
    /// its end guard falls on the EAN-13's centre guard, as zxing-cpp read Arte-Lab's Foto(782).jpg.
    func upceOnTheLeftHalf(of code: Symbol) -> Symbol {
        let p = code.points
        func part(_ a: Point, _ b: Point) -> Point {
            Point(x: a.x + Int((Double(b.x - a.x) * 51 / 95).rounded()), y: a.y + Int((Double(b.y - a.y) * 51 / 95).rounded()))
        }
        return Symbol(symbology: Symbology(rawValue: "upce"), bytes: Array("10052358".utf8),
                      points: [p[0], part(p[0], p[1]), part(p[3], p[2]), p[3]])
    }

    func testAUPCEReadFromHalfAnEAN13FailsAndTheEAN13Passes() throws {
        let picture = try image("ean13-rotated.png")
        let code = try ean13(in: picture)
        XCTAssertTrue(QuietZones.pass(code, in: picture), "the EAN-13 itself")
        XCTAssertFalse(QuietZones.pass(upceOnTheLeftHalf(of: code), in: picture), "the EAN-13's right half goes on past the UPC-E")
        // The same judged on a copy at half size (a small pass), points still in full-size pixels.
        XCTAssertTrue(QuietZones.pass(code, in: picture.reduced(by: 2), k: 2))
        XCTAssertFalse(QuietZones.pass(upceOnTheLeftHalf(of: code), in: picture.reduced(by: 2), k: 2))
    }

    /// A dark box 2 modules past the code, or one border line 3 modules past it, is not bars.
    func testADarkBackgroundOrABorderLineIsNotBars() throws {
        for name in ["ean13-dark-box.png", "ean13-border-line.png"] {
            let picture = try image(name)
            XCTAssertTrue(QuietZones.pass(try ean13(in: picture), in: picture), name)
        }
    }

    /// An EAN-5 add-on 7 modules past the code (the least the spec allows), on a keystoned label:
    /// when the add-on is not read with it, the main code still passes.
    func testAnAddOnIsNotBarsPastTheCode() throws {
        let picture = try image("ean13-addon-keystone.png")
        var code = try ean13(in: picture)
        code.addon = nil
        XCTAssertTrue(QuietZones.pass(code, in: picture))
    }

    /// A reading from one row (zxing-cpp's points of a code read on one line) is judged on three
    /// lines apart, as a reading of many rows: a mark right past the code at that row's height
    /// (a printed "||", 4 modules on) is on one line only, not bars.
    func testAOneRowReadingIsJudgedOnLinesApart() throws {
        var picture = try image("ean13-dark-box.png")
        let code = try ean13(in: picture)
        let p = code.points
        let midY = (p[0].y + p[3].y) / 2
        let module = Double(p[1].x - p[0].x) / 95
        let x = p[1].x + Int(4 * module)
        for dx in [0, 1, 4, 5] { for y in (midY - 4)...(midY + 4) { picture.pixels[y * picture.width + x + dx] = 0 } }
        var oneRow = code
        oneRow.points = [Point(x: p[0].x, y: midY), Point(x: p[1].x, y: midY)]
        XCTAssertTrue(QuietZones.pass(oneRow, in: picture))
        // The same mark on every row is bars.
        for dx in [0, 1, 4, 5] { for y in p[0].y...p[3].y { picture.pixels[y * picture.width + x + dx] = 0 } }
        XCTAssertFalse(QuietZones.pass(oneRow, in: picture))
    }

    /// Other symbologies are not judged.
    func testOtherSymbologiesPass() throws {
        let picture = try image("ean13-rotated.png")
        var s = upceOnTheLeftHalf(of: try ean13(in: picture))
        s.symbology = Symbology(rawValue: "code128")
        XCTAssertTrue(QuietZones.pass(s, in: picture))
    }

    /// The plan: what a decoder reads goes through the check (the UPC-E claim alone is left out).
    func testThePlanLeavesOutTheUPCE() throws {
        final class Fixed: FrameDecoder, @unchecked Sendable {
            let symbols: [Symbol]
            init(_ symbols: [Symbol]) { self.symbols = symbols }
            func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] { symbols }
        }
        let picture = try image("ean13-rotated.png")
        let code = try ean13(in: picture)
        let data = try Data(contentsOf: URL(fileURLWithPath: quietPath("ean13-rotated.png")))
        for (read, expected) in [(code, ["ean13 8005235212442"]), (upceOnTheLeftHalf(of: code), [])] {
            var list = DecoderList()
            list.addWorker { Fixed([read]) }
            let frame = DecodePlan(list: list, stillOrder: .together).decode(.file(.data(data, name: "ean13-rotated.png")), arrival: .now())
            XCTAssertEqual(try frame.outcome.get().map { "\($0.symbology.rawValue) \($0.text)" }, expected)
        }
        // Both read by one decoder at one place: they disagree. The UPC-E is left out by the check
        // first; settled as they are, the UPC-E inside the EAN-13 goes too and the EAN-13 stands.
        var one = code, half = upceOnTheLeftHalf(of: code)
        one.decoder = "zxing"
        half.decoder = "zxing"
        XCTAssertEqual(Symbol.resolvingEANConflicts([one, half]).map(\.text), ["8005235212442"], "a short code inside a long one goes")
        let both = [one, half]
        var list = DecoderList()
        list.addWorker { Fixed(both) }
        let frame = DecodePlan(list: list, stillOrder: .together).decode(.file(.data(data, name: "ean13-rotated.png")), arrival: .now())
        XCTAssertEqual(try frame.outcome.get().map { "\($0.symbology.rawValue) \($0.text)" }, ["ean13 8005235212442"])
    }
}
