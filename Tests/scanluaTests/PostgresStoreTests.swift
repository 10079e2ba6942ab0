import Foundation
import ScanStore
import XCTest

/// Issue 15: `--db postgresql://...` gives the same Lua store API as SQLite, and several stations
/// share one inventory. PostgreSQL runs in a temporary folder on a loopback port, started here
/// (as the postgres user) and stopped at the end.
final class PostgresStoreTests: XCTestCase {
    var dir: URL!
    var server: TestServer!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        server = try TestServer.postgres(in: dir)
        try PostgresDatabase(url: "postgresql://postgres@127.0.0.1:\(server.port)/postgres").execute("CREATE DATABASE scanlua")
    }

    override func tearDownWithError() throws {
        server?.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    var url: String { "postgresql://postgres@127.0.0.1:\(server.port)/scanlua" }

    func rows(_ db: any StoreConnection, _ sql: String) throws -> [String] { try rowTexts(db, sql) }

    func testTheStoreAPIWorksTheSameOnPostgreSQL() throws {
        let script = dir.appendingPathComponent("store.lua").path
        try """
            local scan, store = require "scan", require "store"
            store.migrate { [1] = "CREATE TABLE seen (code TEXT PRIMARY KEY, n INTEGER NOT NULL, price REAL, note TEXT)" }
            scan.parser { name = "count", parse = function(ev)
              local first = store.once("code:" .. ev.text)
              local changed = store.exec("INSERT INTO seen (code, n, price) VALUES (?, 1, ?) ON CONFLICT (code) DO UPDATE SET n = seen.n + 1",
                                         { ev.text, 2.5 })
              local row = store.query("SELECT n, price, note, n::text AS t FROM seen WHERE code = :code", { code = ev.text })[1]
              local ok, err = pcall(store.exec, "INSERT INTO nowhere VALUES (?)", { 1 })
              return { type = "count", first = first, changed = changed, n = row.n, price = row.price, note = row.note, t = row.t,
                       err = err, path = store.path() }
            end }
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let input = Data(#"{"text":"A"}"#.utf8 + [10] + #"{"text":"A"}"#.utf8 + [10] + #"{"text":"B"}"#.utf8 + [10])
        let r = try CLI.run(["simulate", "--no-default-scripts", "--db", url, "--script", script], stdin: input)
        XCTAssertEqual(r.status, 0, r.stderr)
        let payloads = r.records.compactMap { $0["payload"] as? [String: Any] }
        XCTAssertEqual(payloads.map { $0["first"] as? Bool }, [true, false, true], "once is once per key")
        XCTAssertEqual(payloads.map { $0["n"] as? Int }, [1, 2, 1])
        XCTAssertEqual(payloads.map { $0["changed"] as? Int }, [1, 1, 1])
        XCTAssertEqual(payloads.first?["price"] as? Double, 2.5)
        XCTAssertNil(payloads.first?["note"], "NULL columns are absent")
        XCTAssertEqual(payloads.first?["t"] as? String, "1", ":: casts are not parameters")
        XCTAssertTrue((payloads.first?["err"] as? String ?? "").contains("relation \"nowhere\" does not exist"), "\(payloads.first ?? [:])")
        XCTAssertEqual(payloads.first?["path"] as? String, url)
        // A second run: the migration is not applied again, the keys stay seen.
        let again = try CLI.run(["simulate", "--no-default-scripts", "--db", url, "--script", script, "--text", "A"])
        XCTAssertEqual((again.records.first?["payload"] as? [String: Any])?["first"] as? Bool, false)
        let db = try PostgresDatabase(url: url)
        XCTAssertEqual(try rows(db, "SELECT version FROM scanlua_migrations"), ["1"])
        XCTAssertEqual(try rows(db, "SELECT code, n FROM seen ORDER BY code"), ["A|3", "B|1"])
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM scanlua_history"), ["4"], "the history is kept there too")
    }

    /// The household example, unchanged, on one PostgreSQL database fed by two stations at once:
    /// the same inventory and purchases as one SQLite run.
    func testTwoStationsImportingAtOnceEndAsOneSQLiteRun() throws {
        let config = "examples/household/init.lua", images = "examples/household/images"
        let sqlite = dir.appendingPathComponent("household.db").path
        for db in [sqlite, url] {
            let imported = try CLI.run(["run", "--db", db, "examples/household/import-products.lua", "examples/household/products.csv"])
            XCTAssertEqual(imported.status, 0, imported.stderr)
        }
        XCTAssertEqual(try CLI.run(["scan", "--config", config, "--db", sqlite, images]).status, 0)

        let stations: [Process] = try (0..<2).map { _ in
            let p = Process()
            p.executableURL = CLI.binary
            p.arguments = ["scan", "--config", config, "--db", url, images]
            p.currentDirectoryURL = CLI.packageRoot
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            return p
        }
        for p in stations { p.waitUntilExit(); XCTAssertEqual(p.terminationStatus, 0) }

        let one = try Database(path: sqlite), shared = try PostgresDatabase(url: url)
        for sql in ["SELECT category, name, quantity, unit FROM inventory ORDER BY category, name",
                    "SELECT invoice, date, name, invoice_name, quantity, unit_price FROM purchases ORDER BY invoice, name",
                    "SELECT gtin FROM unknown_products ORDER BY gtin", "SELECT version FROM scanlua_migrations",
                    "SELECT gtin, name, category FROM products ORDER BY gtin"] {
            let expected = try rows(one, sql)
            XCTAssertFalse(expected.isEmpty, sql)
            XCTAssertEqual(try rows(shared, sql), expected, sql)
        }
    }
}
