import Foundation
import XCTest
@testable import ScanStore

/// The store's sandbox (StoreLimits): SQL reaches no other file, and neither runs nor grows
/// without bound where Lua's own limits cannot see it.
final class StoreHardeningTests: XCTestCase {
    var dir: String!
    var path: String { dir + "/t.db" }

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-hardening-\(UUID().uuidString)").path
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// A path outside the store's directory that must never appear.
    func outside(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-\(name)-\(UUID().uuidString).db").path
    }

    func message(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            try body()
            XCTFail("no error", file: file, line: line)
            return nil
        } catch {
            return (error as? StoreError)?.message
        }
    }

    func testAttachIsRefusedAndWritesNoOtherFile() throws {
        let db = try Store(path: path).db()
        let target = outside("attach")
        XCTAssertEqual(message { try db.execute("ATTACH DATABASE '\(target)' AS x") },
                       "not authorized: ATTACH is not allowed in scanlua's store")
        XCTAssertThrowsError(try db.query("ATTACH DATABASE ? AS x", positional: [.text(target)])) { error in
            XCTAssertEqual((error as? StoreError)?.code, 23, "SQLITE_AUTH")
            XCTAssertEqual("\(error)", "not authorized: ATTACH is not allowed in scanlua's store (SQLite error 23 in: ATTACH DATABASE ? AS x)")
        }
        XCTAssertEqual(message { try db.execute("ATTACH ':memory:' AS m") }, "not authorized: ATTACH is not allowed in scanlua's store")
        XCTAssertEqual(message { try db.execute("ATTACH '' AS m") }, "not authorized: ATTACH is not allowed in scanlua's store")
        XCTAssertEqual(message { try db.execute("CREATE TABLE x.t (a); INSERT INTO x.t VALUES (1)") }, "unknown database x")
        XCTAssertEqual(message { try db.execute("DETACH DATABASE main") }, "not authorized: DETACH is not allowed in scanlua's store")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
        // The connection still works.
        try db.execute("CREATE TABLE t (a); INSERT INTO t VALUES (1)")
        XCTAssertEqual(try db.query("SELECT a FROM t").first?.first?.1, .integer(1))
    }

    func testVacuumIntoIsRefusedButVacuumWorks() throws {
        let db = try Store(path: path).db()
        try db.execute("CREATE TABLE t (a); INSERT INTO t VALUES (1)")
        let target = outside("vacuum")
        XCTAssertEqual(message { try db.execute("VACUUM INTO '\(target)'") },
                       "not authorized: VACUUM INTO is not allowed in scanlua's store (it writes another file)")
        XCTAssertEqual(message { try db.query("VACUUM INTO ?", positional: [.text(target)]) },
                       "not authorized: VACUUM INTO is not allowed in scanlua's store (it writes another file)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
        try db.execute("VACUUM")
        XCTAssertEqual(try db.query("SELECT a FROM t").first?.first?.1, .integer(1))
    }

    func testOnlySchemaAndVersionPragmasAreAllowed() throws {
        let db = try Store(path: path).db()
        try db.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE t (a TEXT, p INTEGER REFERENCES parent(id)); CREATE INDEX t_a ON t (a)")
        XCTAssertEqual(try db.query("PRAGMA table_info(t)").count, 2)
        XCTAssertEqual(try db.query("SELECT name FROM pragma_table_info('t') ORDER BY cid").map { $0[0].1 }, [.text("a"), .text("p")])
        XCTAssertEqual(try db.query("PRAGMA index_list(t)").count, 1)
        XCTAssertEqual(try db.query("PRAGMA foreign_key_list(t)").count, 1)
        XCTAssertEqual(try db.query("PRAGMA user_version").first?.first?.1, .integer(0))
        // The host's own setup PRAGMAs ran before the authorizer.
        XCTAssertEqual(try db.query("PRAGMA journal_mode").first?.first?.1, .text("wal"))
        XCTAssertEqual(try db.query("PRAGMA foreign_keys").first?.first?.1, .integer(1))
        let refused: [(String, String)] = [
            ("PRAGMA user_version = 3", "PRAGMA user_version = 3"),
            ("PRAGMA writable_schema = ON", "PRAGMA writable_schema = ON"),
            ("PRAGMA journal_mode = DELETE", "PRAGMA journal_mode = DELETE"),
            ("PRAGMA foreign_keys = OFF", "PRAGMA foreign_keys = OFF"),
            ("PRAGMA temp_store_directory = '/tmp'", "PRAGMA temp_store_directory = /tmp"),
            ("PRAGMA cache_size", "PRAGMA cache_size"),
        ]
        for (sql, shown) in refused {
            XCTAssertEqual(message { try db.execute(sql) },
                           "not authorized: \(shown) is not allowed in scanlua's store (only reading the schema and versions: table_info, index_list, foreign_key_list, user_version, ...)", sql)
        }
        XCTAssertEqual(try db.query("PRAGMA journal_mode").first?.first?.1, .text("wal"))
        XCTAssertEqual(try db.query("PRAGMA foreign_keys").first?.first?.1, .integer(1))
    }

    func testLoadExtensionIsRefused() throws {
        let db = try Store(path: path).db()
        XCTAssertEqual(message { try db.query("SELECT load_extension('/usr/lib/x86_64-linux-gnu/libsqlite3.so.0')") },
                       "not authorized: load_extension() is not allowed in scanlua's store")
    }

    func testMigrationsAreSandboxedToo() throws {
        let store = Store(path: path)
        let target = outside("migration")
        XCTAssertThrowsError(try store.migrate([(version: 1, sql: "ATTACH '\(target)' AS x; CREATE TABLE x.t (a)")])) { error in
            XCTAssertEqual((error as? StoreError)?.message, "migration 1: not authorized: ATTACH is not allowed in scanlua's store")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
    }

    func testARunawayQueryIsInterruptedQuickly() throws {
        let db = try Store(path: path).db()
        let forever = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"
        // The step cap stops it in 1-3 s on a free core; on a loaded machine the 5 s deadline may
        // come first. Either way it is stopped, with a message naming the limit.
        let stopped: Set<String?> = ["query interrupted: it ran past scanlua's limit of 100000000 SQLite steps",
                                     "query interrupted: it ran past scanlua's limit of 5 seconds"]
        let start = Date()
        XCTAssertTrue(stopped.contains(message { try db.query(forever) }))
        XCTAssertLessThan(Date().timeIntervalSince(start), 30, "bounded by the step budget")
        XCTAssertTrue(stopped.contains(message { try db.execute("CREATE TABLE t (a); " + forever) }))
        XCTAssertLessThan(Date().timeIntervalSince(start), 60)
        // The budget is per statement: a big but finite query still runs, and the connection is fine.
        let million = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 1000000) SELECT count(*) FROM c"
        XCTAssertEqual(try db.query(million).first?.first?.1, .integer(1_000_000))
        XCTAssertEqual(try db.query(million).first?.first?.1, .integer(1_000_000))
    }

    func testAQueryOfFewButCostlyStepsHitsTheDeadline() throws {
        // About 16 steps a row, well under the step budget, but 16 MB of random bytes a row: hours.
        let db = try Store(path: path).db()
        let start = Date()
        XCTAssertEqual(message { try db.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 1000000) SELECT count(randomblob(16000000)) FROM c") },
                       "query interrupted: it ran past scanlua's limit of 5 seconds")
        XCTAssertLessThan(Date().timeIntervalSince(start), 30)
        XCTAssertEqual(try db.query("SELECT 1").first?.first?.1, .integer(1), "the next statement has its own time")
    }

    func testHugeValuesFailWithoutTheMemory() throws {
        let db = try Store(path: path).db()
        let before = peakResidentBytes()
        XCTAssertEqual(message { try db.query("SELECT randomblob(900000000)") },
                       "string or blob too big (scanlua's store allows values up to 16 MiB)")
        XCTAssertEqual(message { try db.query("SELECT length(zeroblob(900000000))") },
                       "string or blob too big (scanlua's store allows values up to 16 MiB)")
        XCTAssertLessThan(peakResidentBytes() - before, 200 << 20, "no 900 MB value was built")
        XCTAssertEqual(try db.query("SELECT length(randomblob(1000000))").first?.first?.1, .integer(1_000_000))
    }

    func testSQLitesHeapIsCapped() throws {
        try XCTSkipIf(ProcessInfo.processInfo.environment["SCANLUA_ASAN"] != nil, "memory figures are not comparable under AddressSanitizer (make check-asan)")
        // An in-memory database lives in SQLite's heap: filling it hits the 256 MiB cap.
        let before = peakResidentBytes()
        var failure: String?
        do {
            let db = try Database(path: ":memory:")
            try db.execute("CREATE TABLE big (b BLOB)")
            for _ in 0..<600 {
                do { try db.query("INSERT INTO big VALUES (randomblob(1000000))") } catch {
                    failure = error.message
                    break
                }
            }
        }
        XCTAssertEqual(failure, "out of memory (scanlua's store caps SQLite's memory at 256 MiB)")
        XCTAssertLessThan(peakResidentBytes() - before, 400 << 20, "not the 600 MB asked for")
        let db = try Database(path: ":memory:")
        XCTAssertEqual(try db.query("SELECT 1").first?.first?.1, .integer(1), "usable once the memory is back")
    }

    func testAQueryHoldsAtMostTheRowAndByteCap() throws {
        let db = try Store(path: path).db()
        let rows = { (n: Int) in "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT \(n)) SELECT x FROM c" }
        XCTAssertEqual(try db.query(rows(100_000)).count, 100_000)
        XCTAssertEqual(message { try db.query(rows(100_001)) },
                       "result too large: over 100000 rows, scanlua's limit for one query (page with LIMIT and OFFSET, or aggregate in SQL)")
        XCTAssertEqual(message { try db.query(rows(10_000_000)) },
                       "result too large: over 100000 rows, scanlua's limit for one query (page with LIMIT and OFFSET, or aggregate in SQL)")
        let blobs = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 100) SELECT randomblob(1000000) FROM c"
        XCTAssertEqual(message { try db.query(blobs) },
                       "result too large: over 64 MiB, scanlua's limit for one query (page with LIMIT and OFFSET, or select fewer columns)")
        // An exec keeps no rows: the same statements run to their end.
        XCTAssertEqual(try db.query(rows(1_000_000), limit: .none).count, 0)
        XCTAssertEqual(try db.query(blobs, limit: .none).count, 0)
    }

    /// The process's peak resident set (ru_maxrss, KiB on Linux), in bytes.
    func peakResidentBytes() -> Int {
        var usage = rusage()
        _ = getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss * 1024
    }
}
