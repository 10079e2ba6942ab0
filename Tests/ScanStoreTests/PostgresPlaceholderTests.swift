@testable import ScanStore
import XCTest

/// `?` and `:name` become PostgreSQL's `$n` outside strings, quoted names and comments.
final class PostgresPlaceholderTests: XCTestCase {
    func testPlaceholdersAreNumberedOutsideQuotesAndCasts() throws {
        let (sql, order) = try PostgresDatabase.numbered("SELECT ?, :a, ':x', \"q?\", 'it''s ?' -- ? :c\n, :a::text, ?, :b_2")
        XCTAssertEqual(sql, "SELECT $1, $2, ':x', \"q?\", 'it''s ?' -- ? :c\n, $2::text, $3, $4")
        XCTAssertEqual(order, [nil, "a", nil, "b_2"])
    }

    func testPasswordsStayOutOfMessages() {
        XCTAssertEqual(PostgresDatabase.withoutPassword("postgresql://scan:secret@db.example:5432/shop"), "postgresql://scan@db.example:5432/shop")
        XCTAssertEqual(PostgresDatabase.withoutPassword("postgresql://127.0.0.1/shop"), "postgresql://127.0.0.1/shop")
    }
}

/// Issue 21: the statement fence of a sandboxed PostgreSQL connection (the role check is tested
/// against a real server in PostgresStoreTests).
final class PostgresGuardTests: XCTestCase {
    func testWordsInStringsCommentsAndDollarQuotesAreData() {
        XCTAssertNil(PostgresGuard.refusal(of: "SELECT 'copy', $$pg_read_file$$, $t$ dblink $t$ -- COPY\n FROM x /* lo_import /* nested */ */"))
        XCTAssertNil(PostgresGuard.refusal(of: "INSERT INTO inventory (name, language) VALUES (?, 'COPY')"))
        XCTAssertNil(PostgresGuard.refusal(of: "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$"))
        XCTAssertNil(PostgresGuard.refusal(of: "SELECT E'it\\'s copy' AS x"))
    }

    func testEscapesAreRefusedWhateverTheirSpelling() {
        for sql in ["COPY x TO PROGRAM 'id'", "  copy/**/(select 1) to '/tmp/x'", "SELECT \"PG_READ_FILE\"('/etc/passwd')",
                    "select pg_catalog.pg_read_file('/etc/passwd')", "SELECT lo_import('/etc/passwd')", "SELECT dblink_exec('x', 'y')",
                    "CREATE EXTENSION IF NOT EXISTS dblink", "load 'auto_explain'", "DO LANGUAGE plpython3u $$ import os $$",
                    "CREATE TRUSTED LANGUAGE plperlu", "alter system set x = 1", "SET ROLE postgres", "SET LOCAL ROLE postgres",
                    "RESET ROLE", "SET SESSION AUTHORIZATION postgres", "SELECT set_config('role', 'postgres', false)",
                    "CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw", "IMPORT FOREIGN SCHEMA public FROM SERVER s INTO x",
                    "CREATE USER MAPPING FOR CURRENT_USER SERVER s", "SELECT 1; COPY x FROM STDIN"] {
            XCTAssertNotNil(PostgresGuard.refusal(of: sql), sql)
        }
    }
}
