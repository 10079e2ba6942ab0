import Foundation
import ScanStore
import XCTest

/// examples/household end to end: invoices and product barcodes into SQLite by the user's rules.
final class HouseholdTests: XCTestCase {
    var dir: URL!
    var db: String { dir.appendingPathComponent("household.db").path }
    let config = "examples/household/init.lua"
    let images = "examples/household/images"

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-household-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func rows(_ sql: String) throws -> [String] { try rowTexts(Database(path: db), sql) }

    func scan(_ paths: [String], extra: [String] = []) throws -> CLI.Result {
        try CLI.run(["scan", "--config", config, "--db", db] + extra + paths)
    }

    /// Products scanned before their names are imported: the scans wait, and count when the
    /// names arrive (they once vanished: the import deleted them and the rescan said already-counted).
    func testProductsScannedBeforeTheirNamesAreCountedWhenTheNamesArrive() throws {
        let first = try scan([images])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try rows("SELECT gtin, scans, pending FROM unknown_products ORDER BY gtin").count, 3)
        XCTAssertTrue(try rows("SELECT name FROM inventory WHERE name IN ('rice', 'soy sauce')").isEmpty)
        let imported = try CLI.run(["run", "--db", db, "examples/household/import-products.lua", "examples/household/products.csv"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(imported.stdout, "2 products imported from examples/household/products.csv into \(db)\n"
                       + "counted now, scanned before their names were known: rice +1, soy sauce +1\n")
        XCTAssertEqual(try rows("SELECT name, quantity FROM inventory WHERE name IN ('rice', 'soy sauce') ORDER BY name"),
                       ["rice|1", "soy sauce|1"])
        XCTAssertEqual(try rows("SELECT gtin, scans FROM unknown_products"), ["4719999999993|1"], "only the one still unnamed")
        let again = try scan([images])
        XCTAssertEqual(again.status, 0)
        XCTAssertEqual(try rows("SELECT name, quantity FROM inventory WHERE name IN ('rice', 'soy sauce') ORDER BY name"),
                       ["rice|1", "soy sauce|1"], "the rescan of the same photos counts nothing twice")
        XCTAssertEqual(try rows("SELECT version FROM scanlua_migrations ORDER BY version"), ["1", "2"])
    }

    /// In text mode the scan says which database the rules wrote to.
    func testTextModeNamesTheStore() throws {
        let r = try scan([images], extra: ["--format", "text"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("scanlua: store: \(db)\n"), r.stderr)
        XCTAssertFalse(try scan([images]).stderr.contains("store:"), "NDJSON stays quiet")
    }

    func testShoppingTripImportsOnceAndConsumeDecrements() throws {
        let imported = try CLI.run(["run", "--db", db, "examples/household/import-products.lua", "examples/household/products.csv"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(imported.stdout, "2 products imported from examples/household/products.csv into \(db)\n")

        let first = try scan([images])
        XCTAssertEqual(first.status, 0, first.stderr)
        let inventory = [
            "cleaning|laundry detergent|1|piece", "dairy|milk|3|piece", "fruit|apple|3|piece",
            "groceries|rice|1|piece", "groceries|soy sauce|1|piece", "paper goods|toilet paper|12|roll",
        ]
        XCTAssertEqual(try rows("SELECT category, name, quantity, unit FROM inventory ORDER BY category, name"), inventory)
        XCTAssertEqual(try rows("SELECT invoice, date, name, invoice_name, quantity, unit_price FROM purchases ORDER BY rowid"), [
            "QA12345678|2026-04-17|milk|鮮乳|2|95", "QA12345678|2026-04-17|toilet paper|衛生紙12捲|12|199",
            "QA12345678|2026-04-17|laundry detergent|洗衣精|1|259", "QB87654321|2026-04-18|milk|鮮乳|1|95",
            "QB87654321|2026-04-18|apple|蘋果|3|28",
        ])
        XCTAssertEqual(try rows("SELECT gtin, scans FROM unknown_products"), ["4719999999993|1"])

        let again = try scan([images])
        XCTAssertEqual(again.status, 0)
        XCTAssertEqual(try rows("SELECT category, name, quantity, unit FROM inventory ORDER BY category, name"), inventory,
                       "a second run changes nothing")
        XCTAssertEqual(try rows("SELECT count(*) FROM purchases"), ["5"])
        XCTAssertEqual(again.stdout.components(separatedBy: "\"already-imported\"").count - 1, 2)

        let consume = try scan(["examples/household/consume"])
        XCTAssertEqual(consume.status, 0, consume.stderr)
        XCTAssertEqual(try rows("SELECT quantity FROM inventory WHERE name = 'rice'"), ["0"])
        XCTAssertEqual(try rows("SELECT value FROM settings WHERE key = 'mode'"), ["consume"])

        let report = try CLI.run(["run", "--db", db, "examples/household/report.lua", "--csv", dir.appendingPathComponent("inv.csv").path])
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertTrue(report.stdout.hasPrefix("inventory in \(db) (scans count as: consume)\ncleaning\n  laundry detergent       1 piece\ndairy\n  milk                    3 piece\n"), report.stdout)
        XCTAssertTrue(report.stdout.contains("  4719999999993  scanned 1x\n"), report.stdout)
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("inv.csv"), encoding: .utf8), """
            category,name,quantity,unit
            cleaning,laundry detergent,1,piece
            dairy,milk,3,piece
            fruit,apple,3,piece
            groceries,soy sauce,1,piece
            paper goods,toilet paper,12,roll

            """)
    }

    func testHostileItemNamesAreStoredVerbatim() throws {
        let evil = "'); DROP TABLE items;--"
        let left = "QC11111111115042099990000000000000064000000002478945" + "7ydXZt4LAN1UHN/j1juVcRA==:**********:1:1:1:\(evil):1:100:"
        let r = try CLI.run(["simulate", "--config", config, "--db", db, "--text", left])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertNil(r.records.first?["errors"], r.stdout)
        XCTAssertEqual(try rows("SELECT invoice_name FROM purchases"), [evil])
        XCTAssertEqual(try rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'scanlua_%' ORDER BY name"),
                       ["inventory", "products", "purchases", "settings", "unknown_products"])
    }

    func testAKilledImportLeavesTheInvoiceAllOrNothing() throws {
        // Dies (os.exit, so no commit) between the first and second item of the first invoice.
        let crash = dir.appendingPathComponent("crash.lua").path
        try """
            local store = require "store"
            local exec, n = store.exec, 0
            store.exec = function(sql, params)
              if sql:find("INSERT INTO purchases", 1, true) then
                n = n + 1
                if n == 2 then os.exit(9) end
              end
              return exec(sql, params)
            end
            """.write(toFile: crash, atomically: true, encoding: .utf8)
        let killed = try scan([images + "/10-einvoice-utf8.png"], extra: ["--trust", "--script", crash])
        XCTAssertEqual(killed.status, 9)
        XCTAssertEqual(try rows("SELECT count(*) FROM purchases"), ["0"])
        XCTAssertEqual(try rows("SELECT count(*) FROM inventory"), ["0"])
        XCTAssertEqual(try rows("SELECT count(*) FROM scanlua_once"), ["0"], "the idempotency key rolled back too")

        let retried = try scan([images + "/10-einvoice-utf8.png"])
        XCTAssertEqual(retried.status, 0, retried.stderr)
        XCTAssertEqual(try rows("SELECT count(*) FROM purchases"), ["3"], "imported whole on the next run")
    }

    func testDryRunRollsBackTheStore() throws {
        let r = try scan([images + "/10-einvoice-utf8.png"], extra: ["--dry-run"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("\"imported\""), r.stdout)
        XCTAssertEqual(try rows("SELECT count(*) FROM purchases"), ["0"])
    }

    func testStoreErrorsNameTheSQL() throws {
        let script = dir.appendingPathComponent("bad.lua").path
        try "require('store').exec('INSERT INTO nowhere VALUES (?)', { 1 })\n".write(toFile: script, atomically: true, encoding: .utf8)
        let r = try CLI.run(["run", "--db", db, script])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("store: no such table: nowhere (SQLite error 1 in: INSERT INTO nowhere VALUES (?))"), r.stderr)
    }
}

extension HouseholdTests {
    /// Two scanlua processes writing to one database at once: WAL and the busy timeout serialise
    /// their transactions, and no scan is lost.
    func testTwoProcessesShareOneDatabase() throws {
        // Both start on a database without the schema: they race to migrate it too.
        let scans = String(repeating: "{\"symbology\": \"ean13\", \"text\": \"4710000000011\"}\n", count: 60)
        let processes: [Process] = try (0..<2).map { _ in
            let p = Process()
            p.executableURL = CLI.binary
            p.arguments = ["simulate", "--config", config, "--db", db]
            p.currentDirectoryURL = CLI.packageRoot
            let input = Pipe()
            p.standardInput = input
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            input.fileHandleForWriting.write(Data(scans.utf8))
            try input.fileHandleForWriting.close()
            return p
        }
        for p in processes {
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0)
        }
        XCTAssertEqual(try rows("SELECT version FROM scanlua_migrations ORDER BY version"), ["1", "2"], "each migration once")
        XCTAssertEqual(try rows("SELECT gtin, scans FROM unknown_products"), ["4710000000011|120"], "no scan lost")
    }
}
