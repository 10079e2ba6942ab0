import Foundation
import ScanStore
import XCTest

/// The store's sandbox as a script author meets it: rules calling store.exec/query under
/// `scanlua simulate`, the refusal on the symbol's record, and nothing written elsewhere.
final class StoreSandboxCommandTests: XCTestCase {
    var dir: URL!
    var db: String { dir.appendingPathComponent("store.db").path }

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// A path outside the test's directory (where the store lives) that must never appear.
    func outside(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-\(name)-\(UUID().uuidString).db").path
    }

    /// Runs `script` on one mock scan and returns its record.
    func simulate(_ script: String) throws -> (CLI.Result, [String: Any]) {
        let file = dir.appendingPathComponent("rules.lua")
        try script.write(to: file, atomically: true, encoding: .utf8)
        let r = try CLI.run(["simulate", "--no-default-scripts", "--script", file.path, "--db", db, "--text", "hello"])
        return (r, try XCTUnwrap(r.records.first, r.stdout + r.stderr))
    }

    func errors(_ record: [String: Any]) -> [String: String] {
        var out: [String: String] = [:]
        for e in record["errors"] as? [[String: Any]] ?? [] {
            out[e["rule"] as? String ?? "?"] = e["message"] as? String
        }
        return out
    }

    /// Issue 61, attack 10: a rule that inserts, commits and then raises, under --dry-run. The
    /// COMMIT is refused (as every statement that begins, ends or splits a transaction), so the
    /// rule's error rolls the insert back; the dry run keeps nothing either.
    static let committer = """
        local scan, store = require "scan", require "store"
        store.migrate { [1] = "CREATE TABLE t (a INTEGER)" }
        scan.parser { name = "p", parse = function(ev) return { type = "p" } end }
        scan.rule { name = "control", on = "p", run = function(p, ctx)
          local said = {}
          for _, sql in ipairs { "COMMIT", "ROLLBACK", "END", "BEGIN", "SAVEPOINT s", "RELEASE s" } do
            local ok, err = pcall(store.exec, sql)
            said[#said + 1] = ok and (sql .. ": ran") or tostring(err):match("transaction control belongs to scanlua") or tostring(err)
          end
          ctx.emit { said = said }
        end }
        scan.rule { name = "sneaky", on = "p", run = function()
          store.exec("INSERT INTO t VALUES (1)")
          pcall(store.exec, "COMMIT")
          error("raised after the commit")
        end }
        scan.rule { name = "honest", on = "p", run = function() store.exec("INSERT INTO t VALUES (2)") end }
        """

    func testScriptsCannotCommitAndTheDryRunAndARulesErrorHold() throws {
        let file = dir.appendingPathComponent("rules.lua")
        try Self.committer.write(to: file, atomically: true, encoding: .utf8)
        for dryRun in [true, false] {
            let r = try CLI.run(["simulate", "--no-default-scripts", "--script", file.path, "--db", db, "--text", "x"] + (dryRun ? ["--dry-run"] : []))
            let record = try XCTUnwrap(r.records.first, r.stderr)
            let said = (record["emitted"] as? [[String: Any]])?.first?["said"] as? [String]
            XCTAssertEqual(said, Array(repeating: "transaction control belongs to scanlua", count: 6), "\(record)")
            XCTAssertEqual(errors(record)["sneaky"]?.contains("raised after the commit"), true, "\(record)")
            // The sneaky rule's COMMIT did not keep its row: its error rolled the event back (the
            // honest rule's row with it, as any failed rule does), and so does --dry-run.
            XCTAssertEqual(try rowTexts(try Database(path: db), "SELECT a FROM t ORDER BY a"), [], "dry run \(dryRun)")
        }
    }

    func testAttachAndVacuumIntoAreRefusedAndCreateNoFile() throws {
        let attached = outside("attach"), vacuumed = outside("vacuum"), atLoad = outside("load-vacuum")
        let (r, record) = try simulate("""
            local scan, store = require "scan", require "store"
            -- At load time too.
            local ok, loadError = pcall(store.exec, "VACUUM INTO '\(atLoad)'")
            scan.rule { name = "attach", run = function()
              store.exec("ATTACH DATABASE '\(attached)' AS x")
            end }
            scan.rule { name = "write-attached", run = function()
              store.exec("CREATE TABLE x.t (a)")
              store.exec("INSERT INTO x.t VALUES (1)")
            end }
            scan.rule { name = "vacuum-into", run = function()
              store.exec("VACUUM INTO '\(vacuumed)'")
            end }
            scan.rule { name = "pragma", run = function() store.exec("PRAGMA writable_schema = ON") end }
            scan.rule { name = "extension", run = function() store.query("SELECT load_extension('libm.so.6')") end }
            scan.rule { name = "load", run = function(p, ctx) ctx.emit { type = "load", ok = ok, message = loadError } end }
            """)
        XCTAssertEqual(r.status, 3, "the record carries the store error: \(r.stderr)")
        let e = errors(record)
        XCTAssertTrue(e["attach"]?.contains("store: not authorized: ATTACH is not allowed in scanlua's store (SQLite error 23 in: ATTACH DATABASE '\(attached)' AS x)") == true, "\(e)")
        XCTAssertTrue(e["write-attached"]?.contains("store: unknown database x") == true, "\(e)")
        // A rule runs inside its event's transaction, where SQLite refuses any VACUUM first.
        XCTAssertTrue(e["vacuum-into"]?.contains("store: cannot VACUUM from within a transaction") == true, "\(e)")
        XCTAssertTrue(e["pragma"]?.contains("store: not authorized: PRAGMA writable_schema = ON is not allowed in scanlua's store") == true, "\(e)")
        XCTAssertTrue(e["extension"]?.contains("store: not authorized: load_extension() is not allowed in scanlua's store") == true, "\(e)")
        let load = try XCTUnwrap((record["emitted"] as? [[String: Any]])?.first, "\(record)")
        XCTAssertEqual(load["ok"] as? Bool, false)
        XCTAssertTrue((load["message"] as? String)?.contains("store: not authorized: VACUUM INTO is not allowed in scanlua's store") == true, "\(load)")
        for path in [attached, vacuumed, atLoad] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), path)
        }
    }

    func testARunawayQueryFailsWithinSeconds() throws {
        let start = Date()
        let (r, record) = try simulate("""
            local scan, store = require "scan", require "store"
            scan.rule { name = "forever", run = function()
              store.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c")
            end }
            scan.rule { name = "costly", run = function()
              store.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 1000000) SELECT count(randomblob(16000000)) FROM c")
            end }
            scan.rule { name = "after", run = function(p, ctx)
              ctx.emit { type = "after", n = store.query("SELECT 41 + 1 AS n")[1].n }
            end }
            """)
        XCTAssertLessThan(Date().timeIntervalSince(start), 60, "bounded by the step budget")
        XCTAssertEqual(r.status, 3, "the record carries the store error: \(r.stderr)")
        XCTAssertTrue(errors(record)["forever"]?.contains("store: query interrupted: it ran past scanlua's limit of 100000000 SQLite steps") == true, "\(record)")
        XCTAssertTrue(errors(record)["costly"]?.contains("store: query interrupted: it ran past scanlua's limit of 5 seconds") == true, "\(record)")
        XCTAssertEqual((record["emitted"] as? [[String: Any]])?.first?["n"] as? Int, 42, "the store still works: \(record)")
    }

    func testHugeValuesAndResultsFailWithBoundedMemory() throws {
        try XCTSkipIf(ProcessInfo.processInfo.environment["SCANLUA_ASAN"] != nil, "memory figures are not comparable under AddressSanitizer (make check-asan)")
        let (r, record) = try simulate("""
            local scan, store = require "scan", require "store"
            scan.rule { name = "blob", run = function() store.query("SELECT randomblob(900000000)") end }
            scan.rule { name = "rows", run = function()
              store.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 50000000) SELECT x, 'some text' AS t FROM c")
            end }
            scan.rule { name = "bytes", run = function()
              store.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 1000) SELECT randomblob(10000000) AS b FROM c")
            end }
            scan.rule { name = "fits", run = function(p, ctx)
              local rows = store.query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 100000) SELECT x FROM c")
              ctx.emit { type = "fits", n = #rows }
            end }
            """)
        XCTAssertEqual(r.status, 3, "the record carries the store error: \(r.stderr)")
        let e = errors(record)
        XCTAssertTrue(e["blob"]?.contains("store: string or blob too big (scanlua's store allows values up to 16 MiB)") == true, "\(e)")
        XCTAssertTrue(e["rows"]?.contains("store: result too large: over 100000 rows, scanlua's limit for one query") == true, "\(e)")
        XCTAssertTrue(e["bytes"]?.contains("store: result too large: over 64 MiB, scanlua's limit for one query") == true, "\(e)")
        XCTAssertEqual((record["emitted"] as? [[String: Any]])?.first?["n"] as? Int, 100_000, "\(record)")
        // The largest child this test process waited for: scanlua, which never held 900 MB.
        var usage = rusage()
        _ = getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        XCTAssertLessThan(usage.ru_maxrss * 1024, 1 << 30, "peak resident set of scanlua")
    }
}
