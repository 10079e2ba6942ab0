import Foundation
import XCTest

/// Issue 12 H: every hostile input met so far (the attacks of the issue, and what `make fuzz`
/// found; scripts/make-fuzz-corpus writes them) is replayed through the fuzz targets, as are
/// the seeds. A trap, a hang or a runaway allocation fails the test.
final class FuzzRegressionTests: XCTestCase {
    func testEveryRegressionAndSeedInputReplaysWithoutCrashing() throws {
        let fuzz = CLI.binary.deletingLastPathComponent().appendingPathComponent("scanlua-fuzz")
        let corpus = CLI.packageRoot.appendingPathComponent("Tests/Fuzz")
        for target in ["image", "decode", "y4m", "mjpeg", "ndjson", "json", "pages"] {
            let dirs = ["regressions", "seeds"].map { corpus.appendingPathComponent("\($0)/\(target)").path }
            let count = dirs.map { (try? FileManager.default.contentsOfDirectory(atPath: $0).count) ?? 0 }.reduce(0, +)
            XCTAssertGreaterThan(count, 0, "scripts/make-fuzz-corpus wrote inputs for \(target)")
            let p = Process()
            p.executableURL = fuzz
            p.arguments = [target] + dirs
            let out = Pipe()
            p.standardOutput = out
            p.standardError = out
            try p.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationReason, .exit, "\(target): \(text)")
            XCTAssertEqual(p.terminationStatus, 0, "\(target): \(text)")
            XCTAssertEqual(text, "\(target): \(count) inputs replayed, none crashed\n")
        }
    }
}
