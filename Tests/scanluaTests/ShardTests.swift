import Foundation
import XCTest

/// Issue 15: `scan --shard I/N` splits a batch so that N processes cover every input once.
final class ShardTests: XCTestCase {
    func testThreeShardsTogetherEqualOneUnshardedScanRecordForRecord() throws {
        let fixtures = CLI.packageRoot.appendingPathComponent("Tests/ScanCoreTests/Fixtures").path
        // No time budget: a pass it cuts in one run and not in the other (a debug build on a busy
        // machine) makes a record differ by its warnings, which is not what shards are about.
        let whole = try CLI.run(["scan", "--no-default-scripts", "--time-budget", "0", fixtures])
        let lines = whole.stdout.split(separator: "\n").map(String.init)
        XCTAssertGreaterThan(lines.count, 30)
        var sharded: [String] = []
        var sources: [Set<String>] = []
        for i in 1...3 {
            let r = try CLI.run(["scan", "--no-default-scripts", "--time-budget", "0", "--shard", "\(i)/3", fixtures])
            let part = r.stdout.split(separator: "\n").map(String.init)
            XCTAssertFalse(part.isEmpty, "shard \(i)")
            sharded += part
            sources.append(Set(r.records.compactMap { $0["source"] as? String }))
        }
        // (zbar's quality count can differ between runs when threads race: compare the rest.)
        func withoutQuality(_ lines: [String]) -> [String] {
            lines.map { $0.replacingOccurrences(of: #""quality":\d+,"#, with: "", options: .regularExpression) }.sorted()
        }
        let (got, want) = (withoutQuality(sharded), withoutQuality(lines))
        XCTAssertEqual(got.count, want.count)
        XCTAssertTrue(got == want, "the same records, each once (\(zip(got, want).filter { $0 != $1 }.count) differ)")
        XCTAssertTrue(sources[0].isDisjoint(with: sources[1]) && sources[1].isDisjoint(with: sources[2]) && sources[0].isDisjoint(with: sources[2]),
                      "no input in two shards")
        for bad in ["0/3", "4/3", "1/0", "x", "1/2/3", "1//2", "+1/2", "/1/2/"] {
            let r = try CLI.run(["scan", "--shard", bad, fixtures])
            XCTAssertEqual(r.status, 2, bad)
            XCTAssertTrue(r.stderr.contains("invalid value '\(bad)' for '--shard': expected I/N with 1 <= I <= N"), r.stderr)
        }
    }
}
