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
