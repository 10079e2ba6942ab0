import Foundation
import XCTest
@testable import ScanCore

final class SessionFilterTests: XCTestCase {
    let a = Symbol(symbology: Symbology(rawValue: "qrcode"), bytes: Array("A".utf8))
    let b = Symbol(symbology: Symbology(rawValue: "qrcode"), bytes: Array("B".utf8))
    let t0 = Date(timeIntervalSince1970: 1000)

    /// Frames of symbols at 10 frames per second; returns the accepted texts per frame.
    func run(_ filter: inout SessionFilter, _ frames: [[Symbol]]) -> [String] {
        frames.enumerated().map { i, symbols in
            filter.accept(symbols, at: t0.addingTimeInterval(Double(i) * 0.1)).map(\.text).joined()
        }
    }

    func testPolicies() {
        let frames = [[a], [a], [a, b], [b], [a], [], [a], [a], [a], [a], [a], [a], [a], [a], [a]]
        var all = SessionFilter(policy: .all)
        XCTAssertEqual(run(&all, frames), ["A", "A", "AB", "B", "A", "", "A", "A", "A", "A", "A", "A", "A", "A", "A"])
        var once = SessionFilter(policy: .once)
        XCTAssertEqual(run(&once, frames), ["A", "", "B", "", "", "", "", "", "", "", "", "", "", "", ""])
        var consecutive = SessionFilter(policy: .consecutive)
        XCTAssertEqual(run(&consecutive, frames), ["A", "", "B", "", "A", "", "", "", "", "", "", "", "", "", ""])
        // A accepted at 0.0 s, again at 1.0 s (frame 10) and not before; B at 0.2 s.
        var interval = SessionFilter(policy: .interval, interval: 1)
        XCTAssertEqual(run(&interval, frames), ["A", "", "B", "", "", "", "", "", "", "", "A", "", "", "", ""])
    }

    func testOnceStopsAfterTheFirstAcceptedCode() {
        var f = SessionFilter(policy: .all, stopAfterFirst: true)
        XCTAssertFalse(f.isDone)
        XCTAssertEqual(f.accept([a, b], at: t0).map(\.text), ["A"])
        XCTAssertTrue(f.isDone)
        XCTAssertEqual(f.accept([b], at: t0), [])
    }
}
