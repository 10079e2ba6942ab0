import Foundation
@testable import ScanCore
import XCTest

/// Issue 20: QR codes zxing-cpp found but could not decode, read on a grid fitted to their
/// function patterns. Fixtures from scripts/make-fixtures (qrencode, then ImageMagick).
final class QRGridFitTests: XCTestCase {
    /// qrcode.png: qrencode's version 2 (25 modules) of https://example.com/scanlua, 4 pixels a
    /// module in a quiet zone of 4: the grid's corners are (16, 16) and (116, 116).
    func testTheFunctionPatternIsWhatQrencodeDraws() throws {
        let image = try Fixture.image("qrcode.png")
        let dim = 25
        let pattern = QRGridFit.functionPattern(dim: dim)
        var fixed = 0
        for r in 0..<dim {
            for c in 0..<dim where pattern[r * dim + c] >= 0 {
                fixed += 1
                let dark = image.pixels[(16 + 4 * r + 2) * image.width + 16 + 4 * c + 2] < 128
                XCTAssertEqual(dark, pattern[r * dim + c] == 1, "module (\(r), \(c))")
            }
        }
        // 3 finders with separators (3 x 64), 2 timing lines of 9, one alignment pattern of 25.
        XCTAssertEqual(fixed, 3 * 64 + 2 * 9 + 25)
    }

    /// Corners up to a module and a half off (as a failed read may place them) fit back onto the code, to
    /// within about a module (a corner away from the finders is held by the timing patterns and
    /// the alignment pattern only), and the code reads with its exact text.
    func testAGridStartedOffTheCodeFitsBackAndReads() throws {
        let image = try Fixture.image("qrcode.png")
        let off = [Point(x: 10, y: 22), Point(x: 121, y: 11), Point(x: 110, y: 122), Point(x: 22, y: 110)]
        let symbol = try XCTUnwrap(QRGridFit().read(image, corners: off, version: 2))
        XCTAssertEqual(symbol.text, "https://example.com/scanlua")
        XCTAssertEqual(symbol.symbology.rawValue, "qrcode")
        XCTAssertEqual(symbol.decoder, "zxing")
        for (p, q) in zip(symbol.points, [Point(x: 16, y: 16), Point(x: 116, y: 16), Point(x: 116, y: 116), Point(x: 16, y: 116)]) {
            XCTAssertLessThanOrEqual(max(abs(p.x - q.x), abs(p.y - q.y)), 5, "\(symbol.points)")
        }
        // The wrong version's grid reads nothing (its data does not pass the checks).
        XCTAssertNil(QRGridFit().read(image, corners: off, version: 3))
    }

    /// qr-curved.png: a version 4 code wrapped round a can (its sides compressed, its top and
    /// bottom bowed apart). zxing-cpp finds it and fails its checksum; the fitted grid reads it.
    func testACodeWrappedRoundACanReadsOnTheFittedGrid() throws {
        let image = try Fixture.image("qr-curved.png")
        XCTAssertEqual(ZXingDecoder(symbologies: [Symbology(rawValue: "qrcode")], effort: .thorough).decode(image).count, 0,
                       "zxing-cpp reads it alone: no test of ours")
        // The retries' check: the failures it reports, as the plan gets them.
        let check = ZXingDecoder(symbologies: [Symbology(rawValue: "qrcode")], effort: .balanced, reportFailures: true)
        let failures = check.decodeReporting(image).failures.filter { $0.version == 4 }
        XCTAssertFalse(failures.isEmpty)
        XCTAssertTrue(failures.allSatisfy { $0.corners.count == 4 })
        let fit = QRGridFit()
        let symbol = try XCTUnwrap(failures.lazy.compactMap { fit.read(image, corners: $0.corners, version: 4) }.first)
        XCTAssertEqual(symbol.text, "https://scanlua.example/curved/4")
        // Versions outside what is fitted are left alone.
        XCTAssertNil(fit.read(image, corners: failures[0].corners, version: QRGridFit.largestVersion + 1))
    }

    /// The square-to-quad map sends the unit square's corners to the grid's corners.
    func testTheGridMapsTheUnitSquareOntoItsCorners() {
        let grid = QRGridFit.Grid(corners: [(10, 20), (110, 30), (120, 140), (5, 120)], phi: 0.8, bow: 1.5, alongRows: false)
        let h = grid.homography
        for ((u, v), (x, y)) in zip([(0.0, 0.0), (1, 0), (1, 1), (0, 1)], grid.corners) {
            let p = grid.map(u, v, dim: 25, homography: h)
            XCTAssertEqual(p.0, x, accuracy: 1e-9)
            XCTAssertEqual(p.1, y, accuracy: 1e-9)
        }
    }
}
