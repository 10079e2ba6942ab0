import Foundation
import XCTest
@testable import ScanStore

final class StoreTests: XCTestCase {
    var path: String!

    override func setUpWithError() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-store-\(UUID().uuidString)/t.db").path
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }

    /// Issue 22 item 4: a 17 MiB payload beside an ordinary code: both rows are kept, the big one
    /// with a note in place of what the store cannot hold (one row used to fail them all).
    func testAnOversizedRowIsKeptWithANoteAndCostsNoOtherRow() throws {
        let store = Store(path: path)
        let history = History(try store.db())
        let big = String(repeating: "x", count: 17 << 20)
        func row(_ text: String, _ payload: String) -> History.Row {
            History.Row(time: "2026-12-02T08:00:00Z", source: "frame.png", frame: 0, symbology: "qrcode", text: text, bytes: "",
                        payloadType: "raw", payload: payload, actions: "[]")
        }
        try history.add([row(big, "{\"type\":\"raw\",\"t\":\"\(big)\"}"), row("CODE-A", "{\"type\":\"raw\"}")])
        var rows: [History.Row] = []
        try history.rows(since: nil, type: nil) { rows += $0 }
        XCTAssertEqual(rows.map(\.text), ["(text of 17825792 bytes not kept in the history: over 4 MiB)", "CODE-A"])
        XCTAssertEqual(rows.first?.payload, #"{"type":"raw","note":"(payload of 17825813 bytes not kept in the history: over 4 MiB)"}"#)
    }

    func testParametersAreBoundNeverSpliced() throws {
        let store = Store(path: path)
        let db = try store.db()
        try db.execute("CREATE TABLE items (name TEXT, qty REAL)")
        let evil = "'); DROP TABLE items;--"
        try db.query("INSERT INTO items VALUES (?, ?)", positional: [.text(evil), .real(1.5)])
        try db.query("INSERT INTO items VALUES (:name, :qty)", named: ["name": .text("牛奶"), "qty": .integer(2)])
        let rows = try db.query("SELECT name, qty FROM items ORDER BY rowid")
        XCTAssertEqual(rows.map { $0[0].1 }, [.text(evil), .text("牛奶")])
        XCTAssertEqual(rows.map { $0[1].1 }, [.real(1.5), .real(2)], "REAL affinity")
    }

    func testErrorsCarryTheSQLAndSQLitesMessage() throws {
        let db = try Store(path: path).db()
        XCTAssertThrowsError(try db.query("SELECT nope FROM nowhere")) { error in
            XCTAssertEqual(error as? StoreError, StoreError(code: 1, message: "no such table: nowhere", sql: "SELECT nope FROM nowhere"))
            XCTAssertEqual("\(error)", "no such table: nowhere (SQLite error 1 in: SELECT nope FROM nowhere)")
        }
        XCTAssertThrowsError(try db.query("SELECT ?", positional: [])) { error in
            XCTAssertEqual((error as? StoreError)?.message, "no value for parameter 1 (0 given)")
        }
        XCTAssertThrowsError(try db.query("SELECT 1; SELECT 2")) { error in
            XCTAssertEqual((error as? StoreError)?.message, "one statement at a time (use separate calls)")
        }
    }

    func testOnceAndEventTransactions() throws {
        let store = Store(path: path)
        _ = try store.db()
        store.beginEvents()
        XCTAssertTrue(try store.once("tw-einvoice:AB11223344"))
        XCTAssertTrue(try store.db().inTransaction, "the event's first store call began its transaction")
        XCTAssertFalse(try store.once("tw-einvoice:AB11223344"))
        try store.endEvent(commit: false)
        XCTAssertTrue(try store.once("tw-einvoice:AB11223344"), "the rolled-back key was not kept")
        try store.endEvent(commit: true)
        store.endEvents()
        XCTAssertFalse(try Store(path: path).once("tw-einvoice:AB11223344"), "committed keys survive reopening")
    }

    func testMigrationsApplyOnceInOrder() throws {
        let store = Store(path: path)
        let migrations = [(2, "ALTER TABLE t ADD COLUMN b TEXT"), (1, "CREATE TABLE t (a INTEGER)")]
        XCTAssertEqual(try store.migrate(migrations.map { (version: $0.0, sql: $0.1) }), [1, 2])
        XCTAssertEqual(try store.migrate(migrations.map { (version: $0.0, sql: $0.1) }), [])
        XCTAssertThrowsError(try store.migrate([(version: 3, sql: "CREATE TABLE t (x)")])) { error in
            XCTAssertEqual((error as? StoreError)?.message, "migration 3: table t already exists")
        }
        XCTAssertEqual(try store.migrate([(version: 3, sql: "CREATE TABLE u (x)")]), [3], "a failed migration is not recorded")
    }

    func testInTransactionRollsBackWhenTheBodyThrows() throws {
        let db = try Store(path: path).db()
        XCTAssertThrowsError(try db.inTransaction { () throws(StoreError) in
            try db.execute("CREATE TABLE kept_only_on_commit (x)")
            try db.execute("INSERT INTO no_such_table VALUES (1)")
        })
        XCTAssertFalse(db.inTransaction)
        XCTAssertEqual(try db.query("SELECT count(*) FROM sqlite_master WHERE name = 'kept_only_on_commit'").first?.first?.1,
                       .integer(0), "the table created before the failure was rolled back")
        try db.inTransaction { () throws(StoreError) in try db.execute("CREATE TABLE kept_only_on_commit (x)") }
        XCTAssertEqual(try db.query("SELECT count(*) FROM sqlite_master WHERE name = 'kept_only_on_commit'").first?.first?.1, .integer(1))
    }

    func testFailedMigrationLeavesNothingBehind() throws {
        let store = Store(path: path)
        XCTAssertThrowsError(try store.migrate([(version: 1, sql: "CREATE TABLE half (x); INSERT INTO nowhere VALUES (1)")]))
        let db = try store.db()
        XCTAssertEqual(try db.query("SELECT count(*) FROM sqlite_master WHERE name = 'half'").first?.first?.1, .integer(0))
        XCTAssertEqual(try db.query("SELECT count(*) FROM scanlua_migrations").first?.first?.1, .integer(0))
    }

    func testWALModeAndTwoConnections() throws {
        let a = try Store(path: path).db()
        let b = try Store(path: path).db()
        XCTAssertEqual(try a.query("PRAGMA journal_mode").first?.first?.1, .text("wal"))
        try a.execute("CREATE TABLE t (x)")
        try a.query("INSERT INTO t VALUES (1)")
        XCTAssertEqual(try b.query("SELECT count(*) FROM t").first?.first?.1, .integer(1))
    }
}
