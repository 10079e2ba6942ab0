import Foundation
import ScanCore
import XCTest

/// Issue 20: MaxiCodes in photos (zxing-cpp 3.1.1 reads them only from pure images).
/// Fixtures from scripts/make-fixtures (zint, then ImageMagick: turned, slanted, blurred, noisy).
final class MaxiCodeReaderTests: XCTestCase {
    /// The text zint encoded (mode 2: the primary message is put in after `[)>RS01GS96`).
    static let labelText = "[)>\u{1E}01\u{1D}96152382802\u{1D}840\u{1D}001\u{1D}841706672\u{1D}840\u{1D}001\u{1D}1Z12345675\u{1D}UPSN\u{1D}12345E\u{1D}089\u{1D}\u{1D}1/1\u{1D}10.1\u{1D}Y\u{1D}\u{1D}\u{1D}UT\u{1E}\u{04}"

    func testAMaxiCodeInAPhotoIsRead() throws {
        let image = try Fixture.image("maxicode-photo.jpg")
        XCTAssertEqual(ZXingDecoder(symbologies: [.maxiCode], effort: .thorough).decode(image).count, 0,
                       "zxing-cpp reads it alone: no test of ours")
        let (symbols, unread) = MaxiCodeReader().decode(image)
        XCTAssertEqual(unread, [])
        let symbol = try XCTUnwrap(symbols.first)
        XCTAssertEqual(symbols.count, 1)
        XCTAssertEqual(symbol.symbology.rawValue, "maxicode")
        XCTAssertEqual(symbol.text, Self.labelText)
        XCTAssertEqual(symbol.decoder, "zxing")
        // The symbol is about 180 pixels across, turned 133 degrees, centred near (785, 582).
        XCTAssertEqual(symbol.points.count, 4)
        let cx = Double(symbol.points.map(\.x).reduce(0, +)) / 4, cy = Double(symbol.points.map(\.y).reduce(0, +)) / 4
        XCTAssertEqual(cx, 785, accuracy: 8)
        XCTAssertEqual(cy, 582, accuracy: 8)
        let side = hypot(Double(symbol.points[1].x - symbol.points[0].x), Double(symbol.points[1].y - symbol.points[0].y))
        XCTAssertEqual(side, 175, accuracy: 20)
    }

    /// The bullseye's centre and X, from the rings.
    func testTheBullseyeIsFoundWhereItIs() throws {
        let image = Self.target(width: 400, height: 300, cx: 201.5, cy: 148.25, module: 7)
        let eyes = MaxiCodeReader.bullseyes(in: image)
        XCTAssertEqual(eyes.count, 1)
        let eye = try XCTUnwrap(eyes.first)
        XCTAssertEqual(eye.x, 201.5, accuracy: 0.5)
        XCTAssertEqual(eye.y, 148.25, accuracy: 0.5)
        XCTAssertEqual(eye.module, 7, accuracy: 0.3)
    }

    /// A close-up (X about 33 pixels in a 1600x1200 photo): rings wider than the finder's
    /// threshold blocks, whose flat insides take the threshold beside them.
    func testAMaxiCodeCloseUpIsRead() throws {
        let (symbols, unread) = MaxiCodeReader().decode(try Fixture.image("maxicode-close.jpg"))
        XCTAssertEqual(unread, [])
        XCTAssertEqual(symbols.map(\.text), [Self.labelText])
    }

    /// Rings 40 pixels a module on white (their insides flat): found, with their centre and X.
    func testWideRingsAreFound() throws {
        let eyes = MaxiCodeReader.bullseyes(in: Self.target(width: 1600, height: 1200, cx: 700.5, cy: 560, module: 40))
        let eye = try XCTUnwrap(eyes.first)
        XCTAssertEqual(eyes.count, 1)
        XCTAssertEqual(eye.x, 700.5, accuracy: 1)
        XCTAssertEqual(eye.y, 560, accuracy: 1)
        XCTAssertEqual(eye.module, 40, accuracy: 1.5)
    }

    /// One-pixel runs after a long run (a blurred edge across two blocks' thresholds) are merged
    /// into it with the run after them; after shorter runs (rings at X 5 or 6) they stay.
    func testSpecksAreMergedIntoTheRunBefore() {
        var runs = [3, 24, 1, 1, 24, 26, 1, 30, 8]
        MaxiCodeReader.despeckle(&runs)
        XCTAssertEqual(runs, [3, 26, 24, 57, 8])
        var short = [2, 6, 1, 5, 1, 1, 4]
        MaxiCodeReader.despeckle(&short)
        XCTAssertEqual(short, [2, 6, 1, 5, 1, 1, 4])
        var last = [12, 1]
        MaxiCodeReader.despeckle(&last)
        XCTAssertEqual(last, [12, 1], "a speck with no run after it is left for the next")
    }

    /// Rings with no symbol round them (a target, a logo) are a bullseye not read: no symbol.
    func testRingsWithoutASymbolReadNothing() {
        let (symbols, unread) = MaxiCodeReader().decode(Self.target(width: 400, height: 300, cx: 200, cy: 150, module: 7))
        XCTAssertEqual(symbols, [])
        XCTAssertEqual(unread.count, 1)
    }

    /// An image of many bullseyes (crafted, or a patterned surface) is looked at a bounded number of times.
    func testManyBullseyesAreBounded() {
        var image = GrayImage(width: 1200, height: 1200, pixels: [UInt8](repeating: 255, count: 1200 * 1200))
        for row in 0..<10 {
            for column in 0..<10 {
                Self.drawRings(&image, cx: 60 + 120 * Double(column), cy: 60 + 120 * Double(row), module: 8)
            }
        }
        let (symbols, unread) = MaxiCodeReader().decode(image)
        XCTAssertEqual(symbols, [])
        XCTAssertEqual(unread.count, 4, "at most 4 bullseyes per image")
    }

    /// Flat, tiny and noisy images find nothing.
    func testNoBullseyeInPlainImages() {
        XCTAssertEqual(MaxiCodeReader.bullseyes(in: GrayImage(width: 5, height: 5, pixels: [UInt8](repeating: 0, count: 25))), [])
        XCTAssertEqual(MaxiCodeReader.bullseyes(in: GrayImage(width: 300, height: 200, pixels: [UInt8](repeating: 128, count: 60_000))), [])
        var seed: UInt64 = 7
        let noise = (0..<(300 * 200)).map { _ -> UInt8 in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: seed >> 56)
        }
        XCTAssertEqual(MaxiCodeReader.bullseyes(in: GrayImage(width: 300, height: 200, pixels: noise)), [])
    }

    /// A grid with nothing dark (a bullseye sampled over blank paper) is no code, and no crash.
    func testAnEmptyGridReadsNothing() {
        XCTAssertEqual(ZXingDecoder(symbologies: [.maxiCode], effort: .fast, pure: true)
            .decode(MaxiCodeReader.pureImage([Bool](repeating: false, count: 990))), [])
    }

    // MARK: - Rings drawn here

    /// A white image with the bullseye of a MaxiCode of module `module` at (cx, cy), no symbol round it.
    static func target(width: Int, height: Int, cx: Double, cy: Double, module: Double) -> GrayImage {
        var image = GrayImage(width: width, height: height, pixels: [UInt8](repeating: 255, count: width * height))
        drawRings(&image, cx: cx, cy: cy, module: module)
        return image
    }

    /// The three dark rings (ISO/IEC 16023 radii, as zint draws them), anti-aliased by 4x4 supersampling.
    static func drawRings(_ image: inout GrayImage, cx: Double, cy: Double, module: Double) {
        let centre = 2 / 3.0.squareRoot(), step = (9 - centre) / 5
        let radii = (0..<6).map { (centre + Double($0) * step) / 2 * module }
        let reach = Int(radii[5]) + 2
        for y in max(0, Int(cy) - reach)...min(image.height - 1, Int(cy) + reach) {
            for x in max(0, Int(cx) - reach)...min(image.width - 1, Int(cx) + reach) {
                var dark = 0
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        let r = hypot(Double(x) + (Double(sx) + 0.5) / 4 - 0.5 - cx, Double(y) + (Double(sy) + 0.5) / 4 - 0.5 - cy)
                        if (radii[0] <= r && r < radii[1]) || (radii[2] <= r && r < radii[3]) || (radii[4] <= r && r < radii[5]) { dark += 1 }
                    }
                }
                if dark > 0 { image.pixels[y * image.width + x] = UInt8(255 - dark * 255 / 16) }
            }
        }
    }
}
