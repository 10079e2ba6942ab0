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
        // The least-privilege role docs/security.md shows: it may connect to scanlua's database
        // and owns a schema there (its name: first on the default search_path), nothing else.
        let admin = try PostgresDatabase(url: superuserURL)
        try admin.execute("CREATE ROLE station LOGIN")
        try admin.execute("CREATE DATABASE scanlua")
        try admin.execute("REVOKE CONNECT ON DATABASE scanlua FROM PUBLIC; GRANT CONNECT ON DATABASE scanlua TO station")
        try PostgresDatabase(url: "postgresql://postgres@127.0.0.1:\(server.port)/scanlua").execute("CREATE SCHEMA AUTHORIZATION station")
    }

    var superuserURL: String { "postgresql://postgres@127.0.0.1:\(server.port)/postgres" }

    override func tearDownWithError() throws {
        server?.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    var url: String { "postgresql://station@127.0.0.1:\(server.port)/scanlua" }

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

    // MARK: Issue 21: a sandboxed script cannot escape through PostgreSQL

    func script(_ name: String, _ body: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try body.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A parser that runs `sql` (store.query) and returns its rows or its error.
    func attacker(_ sql: String) throws -> String {
        try script("attack.lua", """
            local scan, store = require "scan", require "store"
            scan.parser { name = "attack", parse = function(ev)
              local ok, res = pcall(store.query, ev.text)
              return { type = "attack", ok = ok, error = (not ok) and tostring(res) or nil, rows = ok and res or nil }
            end }
            """)
    }

    /// A superuser, a CREATEROLE role, or a member of pg_execute_server_program /
    /// pg_read_server_files / pg_write_server_files is refused for untrusted scripts, with the
    /// reason and the way out; --trust accepts it.
    func testPrivilegedRolesAreRefusedUnlessTrusted() throws {
        let admin = try PostgresDatabase(url: superuserURL)
        try admin.execute("CREATE ROLE filer LOGIN; GRANT pg_read_server_files TO filer")
        try admin.execute("CREATE ROLE prog LOGIN; CREATE ROLE progs; GRANT pg_execute_server_program TO progs; GRANT progs TO prog")
        try admin.execute("CREATE ROLE maker LOGIN CREATEROLE")
        try admin.execute("CREATE ROLE owner LOGIN; ALTER DATABASE scanlua OWNER TO owner")
        try admin.execute("GRANT CONNECT ON DATABASE scanlua TO filer, prog, maker")
        let out = dir.appendingPathComponent("out").path
        let attack = try attacker("COPY (SELECT 1) TO PROGRAM 'id > \(out)'")
        for (user, power) in [("postgres", "a superuser"), ("filer", "a member of pg_read_server_files"),
                              ("prog", "a member of pg_execute_server_program"), ("maker", "allowed to create roles"),
                              ("owner", "allowed to create in database scanlua")] {
            let db = "postgresql://\(user)@127.0.0.1:\(server.port)/scanlua"
            let r = try CLI.run(["simulate", "--no-default-scripts", "--db", db, "--script", attack, "--text", "COPY (SELECT 1) TO PROGRAM 'id > \(out)'"])
            let p = r.records.first?["payload"] as? [String: Any]
            XCTAssertEqual(p?["ok"] as? Bool, false, "\(user): \(r.stdout)")
            let error = p?["error"] as? String ?? ""
            XCTAssertTrue(error.contains("the role '\(user)' is \(power)"), "\(user): \(error)")
            XCTAssertTrue(error.contains("docs/security.md") && error.contains("--trust"), error)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "\(user): the program ran")
        }
        // Trusted scripts are the operator's own: the superuser connection is theirs to use.
        let trusted = try CLI.run(["simulate", "--no-default-scripts", "--trust", "--db", superuserURL, "--script", attack,
                                   "--text", "SELECT current_user AS who"])
        let rows = (trusted.records.first?["payload"] as? [String: Any])?["rows"] as? [[String: Any]]
        XCTAssertEqual(rows?.first?["who"] as? String, "postgres", trusted.stdout + trusted.stderr)
    }

    /// With the least-privilege role, every way out is refused (by scanlua before sending, and by
    /// PostgreSQL itself for the role), no file is written and nothing is read from the server.
    func testEveryEscapeIsRefusedForTheLeastPrivilegeRole() throws {
        let out = dir.appendingPathComponent("out").path
        let attacks = [
            "COPY (SELECT 1) TO PROGRAM 'id > \(out)'",
            "copy/**/(select 1) to program 'id > \(out)'",
            "COPY scanlua_once FROM '/etc/hostname'",
            "SELECT pg_read_file('/etc/hostname')",
            "SELECT \"pg_read_file\"('/etc/hostname')",
            "SELECT pg_read_binary_file('/etc/hostname')",
            "SELECT pg_ls_dir('/')",
            "SELECT lo_import('/etc/hostname')",
            "SELECT lo_export(1, '\(out)')",
            "CREATE EXTENSION dblink",
            "SELECT dblink_connect('dbname=postgres')",
            "CREATE EXTENSION postgres_fdw",
            "LOAD 'plpgsql'",
            "CREATE FUNCTION f() RETURNS int LANGUAGE c AS '/lib/x86_64-linux-gnu/libc.so.6', 'system'",
            "DO LANGUAGE plperlu $$ system('id > \(out)') $$",
            "CREATE LANGUAGE plperlu",
            "ALTER SYSTEM SET log_directory = '/tmp'",
            "SET ROLE postgres",
            "SELECT set_config('role', 'postgres', false)",
            "SET SESSION AUTHORIZATION postgres",
            "CREATE SERVER other FOREIGN DATA WRAPPER dblink_fdw",
            // Found by an attack on the first version: settings, code blocks, spellings.
            "SET statement_timeout = 0",
            "SET SESSION ROLE station",
            "UPDATE pg_settings SET setting = '0' WHERE name = 'statement_timeout'",
            "ALTER DATABASE scanlua SET statement_timeout = 0",
            "ALTER ROLE station SET search_path = evil, public",
            "DO $$BEGIN EXECUTE 'CREATE EXTENSION pgcrypto'; END$$",
            "CREATE EXTENSION pgcrypto",
            "SELECT name'\\' AS a, pg_read_file('/etc/hostname') --'",
            "SELECT U&\"pg_r\\0065ad_file\"('/etc/hostname')",
        ]
        var stdin = Data()
        for a in attacks { stdin += try JSONSerialization.data(withJSONObject: ["text": a]) + Data([10]) }
        let r = try CLI.run(["simulate", "--no-default-scripts", "--db", url, "--script", try attacker("")], stdin: stdin)
        XCTAssertEqual(r.records.count, attacks.count, r.stderr)
        for (attack, record) in zip(attacks, r.records) {
            let p = record["payload"] as? [String: Any]
            XCTAssertEqual(p?["ok"] as? Bool, false, "\(attack) was run: \(record)")
            XCTAssertTrue((p?["error"] as? String ?? "").contains("not authorized:"), "\(attack): \(p?["error"] ?? "")")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        // The role alone holds too: PostgreSQL refuses these to it without scanlua's statement check.
        let unguarded = try PostgresDatabase(url: url)
        for sql in ["COPY (SELECT 1) TO PROGRAM 'id > \(out)'", "SELECT pg_read_file('/etc/hostname')", "SELECT lo_import('/etc/hostname')",
                    "CREATE EXTENSION dblink", "SET ROLE postgres"] {
            XCTAssertThrowsError(try unguarded.query(sql), sql) { error in
                XCTAssertTrue("\(error)".contains("permission denied") || "\(error)".contains("must be"), "\(sql): \(error)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        // Words in strings and comments are data, not statements; ordinary SQL runs.
        let fine = try CLI.run(["simulate", "--no-default-scripts", "--db", url, "--script", try attacker(""),
                                "--text", "SELECT 'copy pg_read_file' AS note -- COPY"])
        let rows = (fine.records.first?["payload"] as? [String: Any])?["rows"] as? [[String: Any]]
        XCTAssertEqual(rows?.first?["note"] as? String, "copy pg_read_file", fine.stdout)
    }

    /// Issue 61, attack 10 on PostgreSQL: transaction control is refused, trusted or not, so a
    /// rule's COMMIT cannot keep its row past its error or --dry-run.
    func testScriptsCannotCommitAndTheDryRunHolds() throws {
        let file = dir.appendingPathComponent("committer.lua")
        try StoreSandboxCommandTests.committer.write(to: file, atomically: true, encoding: .utf8)
        for extra in [["--dry-run"], ["--dry-run", "--trust"], []] {
            let r = try CLI.run(["simulate", "--no-default-scripts", "--script", file.path, "--db", url, "--text", "x"] + extra)
            let record = try XCTUnwrap(r.records.first, r.stderr)
            let said = (record["emitted"] as? [[String: Any]])?.first?["said"] as? [String]
            XCTAssertEqual(said, Array(repeating: "transaction control belongs to scanlua", count: 6), "\(extra): \(record)")
            XCTAssertEqual(try rows(try PostgresDatabase(url: url), "SELECT a FROM t ORDER BY a"), [], "\(extra)")
        }
    }

    /// The time limit holds even when a function lifts the server's statement_timeout (the
    /// statement check cannot read inside a function body): the client cancels after 6 s.
    func testTheClientCancelsAStatementPastTheLimit() throws {
        let lift = """
            CREATE FUNCTION lift() RETURNS void LANGUAGE plpgsql AS $f$ BEGIN EXECUTE 'SET statement_timeout = 0'; END $f$
            """
        let script = try self.script("slow.lua", """
            local scan, store = require "scan", require "store"
            scan.parser { name = "slow", parse = function(ev)
              store.exec([[\(lift)]])
              store.query("SELECT lift()")
              local ok, err = pcall(store.query, "SELECT pg_sleep(60)")
              return { type = "slow", ok = ok, error = tostring(err) }
            end }
            """)
        let start = Date()
        let r = try CLI.run(["simulate", "--no-default-scripts", "--db", url, "--script", script, "--text", "x"])
        let seconds = Date().timeIntervalSince(start)
        let p = r.records.first?["payload"] as? [String: Any]
        XCTAssertEqual(p?["ok"] as? Bool, false, r.stdout + r.stderr)
        XCTAssertTrue((p?["error"] as? String ?? "").contains("canceling statement"), "\(p ?? [:])")
        XCTAssertLessThan(seconds, 20, "cancelled, not slept for 60 s")
    }
}
