// The only Swift file that calls SQLite.
internal import CSQLite
import Foundation

/// A value bound to, or read from, SQL.
public enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// An SQLite error with the SQL that caused it.
public struct StoreError: Error, CustomStringConvertible, Equatable {
    /// SQLite's result code.
    public let code: Int32
    /// SQLite's message (sqlite3_errmsg).
    public let message: String
    /// The statement, when one was running.
    public let sql: String?

    public var description: String {
        sql.map { "\(message) (SQLite error \(code) in: \($0))" } ?? "\(message) (SQLite error \(code))"
    }
}

/// One SQLite connection, closed in deinit. Not thread-safe: use it on one thread.
public final class Database {
    private let db: OpaquePointer
    public let path: String

    /// Opens (creating) the database at `path` in WAL mode with a 5 s busy timeout, so two
    /// scanlua processes can share it. The corresponding C function is `sqlite3_open_v2`.
    public init(path: String) throws(StoreError) {
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            // > Whether or not an error occurs when it is opened, resources associated with the
            // > database connection handle should be released by passing it to sqlite3_close()
            sqlite3_close(handle)
            throw StoreError(code: rc, message: "\(path): \(message)", sql: nil)
        }
        db = handle
        self.path = path
        sqlite3_busy_timeout(db, 5000)
        // Switching a new database to WAL needs an exclusive lock; two processes opening it at
        // once can see SQLITE_BUSY here without the busy handler: retry for a while.
        var attempt = 0
        while true {
            do {
                try execute("PRAGMA journal_mode=WAL")
                break
            } catch where error.code == SQLITE_BUSY && attempt < 50 {
                attempt += 1
                usleep(100_000)
            }
        }
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit { sqlite3_close_v2(db) }

    private func check(_ rc: Int32, sql: String?) throws(StoreError) {
        guard rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW else {
            throw StoreError(code: rc, message: String(cString: sqlite3_errmsg(db)), sql: sql)
        }
    }

    /// Runs SQL without parameters or results (may hold several statements).
    public func execute(_ sql: String) throws(StoreError) {
        try check(sqlite3_exec(db, sql, nil, nil, nil), sql: sql)
    }

    /// Runs one statement with parameters (positional `?` from `positional`, or `:name` from `named`)
    /// and returns its rows as column-name/value pairs. Values are bound, never spliced into the SQL.
    @discardableResult
    public func query(_ sql: String, positional: [SQLValue] = [], named: [String: SQLValue] = [:]) throws(StoreError) -> [[(String, SQLValue)]] {
        var stmt: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        try check(sqlite3_prepare_v2(db, sql, -1, &stmt, &tail), sql: sql)
        guard let stmt else { return [] }  // blank SQL
        defer { sqlite3_finalize(stmt) }
        if let tail, tail.pointee != 0, !String(cString: tail).allSatisfy({ $0.isWhitespace || $0 == ";" }) {
            throw StoreError(code: SQLITE_MISUSE, message: "one statement at a time (use separate calls)", sql: sql)
        }
        let count = sqlite3_bind_parameter_count(stmt)
        for i in 1...max(count, 1) where count > 0 {
            let value: SQLValue
            if let cname = sqlite3_bind_parameter_name(stmt, i) {
                let name = String(String(cString: cname).dropFirst())  // ":name", "@name", "$name"
                guard let v = named[name] else {
                    throw StoreError(code: SQLITE_RANGE, message: "no value for parameter :\(name)", sql: sql)
                }
                value = v
            } else {
                guard Int(i) <= positional.count else {
                    throw StoreError(code: SQLITE_RANGE, message: "no value for parameter \(i) (\(positional.count) given)", sql: sql)
                }
                value = positional[Int(i) - 1]
            }
            try check(bind(stmt, Int32(i), value), sql: sql)
        }
        var rows: [[(String, SQLValue)]] = []
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { try check(rc, sql: sql); break }
            var row: [(String, SQLValue)] = []
            for c in 0..<sqlite3_column_count(stmt) {
                let name = String(cString: sqlite3_column_name(stmt, c))
                switch sqlite3_column_type(stmt, c) {
                case SQLITE_INTEGER: row.append((name, .integer(sqlite3_column_int64(stmt, c))))
                case SQLITE_FLOAT: row.append((name, .real(sqlite3_column_double(stmt, c))))
                case SQLITE_TEXT: row.append((name, .text(String(cString: sqlite3_column_text(stmt, c)))))
                case SQLITE_BLOB:
                    let n = Int(sqlite3_column_bytes(stmt, c))
                    let p = sqlite3_column_blob(stmt, c)
                    row.append((name, .blob(p.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: n)) } ?? [])))
                default: row.append((name, .null))
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE. The corresponding C function is `sqlite3_changes`.
    public var changes: Int { Int(sqlite3_changes(db)) }
    public var inTransaction: Bool { sqlite3_get_autocommit(db) == 0 }

    private func bind(_ stmt: OpaquePointer, _ i: Int32, _ v: SQLValue) -> Int32 {
        // SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        switch v {
        case .null: return sqlite3_bind_null(stmt, i)
        case .integer(let n): return sqlite3_bind_int64(stmt, i, n)
        case .real(let d): return sqlite3_bind_double(stmt, i, d)
        case .text(let s): return sqlite3_bind_text(stmt, i, s, -1, transient)
        case .blob(let b): return b.withUnsafeBytes { sqlite3_bind_blob(stmt, i, $0.baseAddress, Int32(b.count), transient) }
        }
    }
}

@available(*, unavailable) extension Database: Sendable {}
