import ScanCore
import XCTest
@testable import ScanPipeline

/// Issue 24 item 4: on a dense photo a code's label goes where it covers no other code.
final class AnnotationTests: XCTestCase {
    func square(_ x: Int, _ y: Int, _ side: Int) -> [Point] {
        [Point(x: x, y: y), Point(x: x + side, y: y), Point(x: x + side, y: y + side), Point(x: x, y: y + side)]
    }

    /// A 4x4 grid of 200-pixel codes 60 pixels apart in a 1600x1200 photo (a sheet of labels):
    /// at the photo's own font size a label would be wider than a gap, so labels shrink or move;
    /// none covers a code, and none covers another label.
    func testLabelsOnADenseSheetCoverNoCode() {
        let width = 1600, height = 1200
        var codes: [[Point]] = []
        for row in 0..<4 { for column in 0..<4 { codes.append(square(100 + column * 260, 100 + row * 260, 200)) } }
        let (line, scale) = Annotation.sizes(width: width, height: height)
        let boxes = codes.map { Annotation.Box(points: $0) }
        var placed: [Annotation.Box] = []
        for (i, outline) in codes.enumerated() {
            let a = Annotation(outline: outline, label: "qrcode Test \(i)", color: .accepted)
            let (box, fitted) = Annotation.labelBox(a, line: line, scale: scale, width: width, height: height,
                                                    avoiding: boxes.enumerated().filter { $0.offset != i }.map(\.element) + placed)
            XCTAssertGreaterThanOrEqual(fitted, 1)
            for (j, other) in boxes.enumerated() { XCTAssertEqual(box.overlap(other), 0, "label \(i) covers code \(j)") }
            for (j, other) in placed.enumerated() { XCTAssertEqual(box.overlap(other), 0, "label \(i) covers label \(j)") }
            XCTAssertTrue(box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height, "label \(i) inside")
            placed.append(box)
        }
        // With room, the label keeps the photo's size and sits above its code.
        let lone = Annotation(outline: square(700, 500, 200), label: "ean13 4719512002889", color: .accepted)
        let (box, fitted) = Annotation.labelBox(lone, line: line, scale: scale, width: width, height: height, avoiding: [])
        XCTAssertEqual(fitted, scale)
        XCTAssertEqual(box.x, 700)
        XCTAssertLessThan(box.y + box.height, 500)
        // A code in the top left corner: pushed back inside the image, the label would sit on it.
        let corner = Annotation(outline: square(0, 0, 150), label: "qrcode Enough", color: .accepted)
        let (cornerBox, _) = Annotation.labelBox(corner, line: line, scale: scale, width: width, height: height, avoiding: [])
        XCTAssertEqual(cornerBox.overlap(Annotation.Box(points: corner.outline)), 0, "not on its own code")
    }

    func testPathsAreResolvedBeforeTheyAreMirrored() {
        XCTAssertEqual(AnnotatedImageWriter.standardized("./glare/../lots/x.jpg"), "lots/x.jpg")
        XCTAssertEqual(AnnotatedImageWriter.standardized("/a/b/../c.jpg"), "/a/c.jpg")
        XCTAssertEqual(AnnotatedImageWriter.standardized("../x/y.jpg"), "../x/y.jpg")
    }
}
