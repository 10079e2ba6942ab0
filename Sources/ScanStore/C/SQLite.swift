// The only Swift file that calls SQLite.
internal import CSQLite
import Foundation

/// A value bound to, or read from, SQL.
package enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A store error with the SQL that caused it.
package struct StoreError: Error, CustomStringConvertible, Equatable {
    /// SQLite's result code (PostgreSQL's errors: 1, or 23 for a statement scanlua refused).
    package let code: Int32
    /// SQLite's message (sqlite3_errmsg), or PostgreSQL's with its SQLSTATE.
    package let message: String
    /// The statement, when one was running.
    package let sql: String?
    /// Which database said it: "SQLite" or "PostgreSQL".
    package var database = "SQLite"

    package init(code: Int32, message: String, sql: String?, database: String = "SQLite") {
        self.code = code
        self.message = message
        self.sql = sql
        self.database = database
    }

    package var description: String {
        sql.map { "\(message) (\(database) error \(code) in: \($0))" } ?? "\(message) (\(database) error \(code))"
    }
}

/// What scanlua lets one store connection do: scripts are not trusted with the machine, so SQL
/// can neither reach other files nor run or grow without bound where Lua's own limits cannot see.
package enum StoreLimits {
    /// SQLite virtual-machine steps one statement may take: 100,000,000. A recursive CTE counts
    /// about 16 steps a row, so this is about 6 million rows (1–2 s on one laptop core); a household
    /// report over tens of thousands of rows takes a few million.
    package static let steps = 100_000_000
    /// Seconds one statement may run, for what steps do not show: a step can be costly (a 16 MiB
    /// randomblob, printf with a huge width), so a few steps a row can still take hours.
    package static let seconds = 5
    /// How often (in steps) the progress handler counts and reads the clock: 100,000 times at most
    /// per statement, at a few nanoseconds each.
    static let progressInterval: Int32 = 1_000
    /// The longest string or blob (and row, and SQL text) SQLite builds: 16 MiB (SQLITE_LIMIT_LENGTH).
    package static let valueBytes = 16 << 20
    /// SQLite's heap, for the whole process (sqlite3_hard_heap_limit64): 256 MiB; above the soft
    /// limit (64 MiB) SQLite first gives back page cache.
    package static let heapBytes: Int64 = 256 << 20
    static let softHeapBytes: Int64 = 64 << 20
    /// Rows one query may return: 100,000 …
    package static let rows = 100_000
    /// … and bytes (values, plus 48 a value and 64 a row for what holding them costs): 64 MiB.
    package static let resultBytes = 64 << 20

    /// PRAGMAs that only read the schema or versions, allowed with an argument (a table name).
    static let schemaPragmas: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
        "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check",
    ]
    /// PRAGMAs allowed only as reads (no `= value`).
    static let readPragmas: Set<String> = [
        "user_version", "application_id", "schema_version", "data_version", "journal_mode", "foreign_keys",
        "page_count", "page_size", "freelist_count", "encoding", "collation_list", "function_list",
        "module_list", "pragma_list", "database_list", "compile_options",
    ]
}

/// The heap limits are SQLite's, process-wide: set once, by the first connection.
private let processHeapLimits: Void = {
    _ = sqlite3_hard_heap_limit64(StoreLimits.heapBytes)
    _ = sqlite3_soft_heap_limit64(StoreLimits.softHeapBytes)
}()

/// The state the authorizer and progress handler share with the running statement.
private final class Sandbox {
    /// Steps the running statement took, counted every ``StoreLimits/progressInterval``.
    var steps = 0
    /// True while sqlite3_step runs: an ATTACH authorized then is VACUUM's own (INTO, or its temp copy).
    var stepping = false
    /// Why the authorizer refused the running statement, for its error message.
    var refusal: String?
    /// When the running statement began (CLOCK_MONOTONIC, nanoseconds).
    var started: UInt64 = 0
    /// Why the progress handler stopped the running statement.
    var interruption: String?
    /// Set while the host itself writes (``Database/asHost(_:)``): scanlua's own tables are writable.
    var host = false

    func begin() { steps = 0; refusal = nil; interruption = nil; stepping = false; started = Sandbox.now() }

    static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    /// Called every ``StoreLimits/progressInterval`` steps: true to interrupt the statement.
    func progress() -> Bool {
        steps += Int(StoreLimits.progressInterval)
        if steps > StoreLimits.steps {
            interruption = "\(StoreLimits.steps) SQLite steps"
        } else if Sandbox.now() &- started > UInt64(StoreLimits.seconds) * 1_000_000_000 {
            interruption = "\(StoreLimits.seconds) seconds"
        }
        return interruption != nil
    }

    /// Why `action` is refused, or nil to allow it. Arguments as in sqlite3_set_authorizer.
    func refuse(_ action: Int32, _ a: String?, _ b: String?) -> String? {
        switch action {
        case SQLITE_ATTACH:
            // Plain VACUUM attaches "" (a private temporary copy) while it runs; VACUUM INTO attaches its target.
            if stepping { return (a ?? "").isEmpty ? nil : "VACUUM INTO is not allowed in scanlua's store (it writes another file)" }
            return "ATTACH is not allowed in scanlua's store"
        case SQLITE_DETACH:
            return "DETACH is not allowed in scanlua's store"
        case SQLITE_TRANSACTION, SQLITE_SAVEPOINT:
            // A statement's own (VACUUM's, while it steps) and the host's are fine.
            return host || stepping ? nil : StoreLimits.transactionRefusal
        case SQLITE_PRAGMA:
            let name = (a ?? "").lowercased()
            if StoreLimits.schemaPragmas.contains(name) || (b == nil && StoreLimits.readPragmas.contains(name)) { return nil }
            let shown = b.map { "PRAGMA \(name) = \($0)" } ?? "PRAGMA \(name)"
            return "\(shown) is not allowed in scanlua's store (only reading the schema and versions: table_info, index_list, foreign_key_list, user_version, ...)"
        case SQLITE_FUNCTION:
            return (b ?? "").lowercased() == "load_extension" ? "load_extension() is not allowed in scanlua's store" : nil
        case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE, SQLITE_CREATE_TABLE, SQLITE_DROP_TABLE, SQLITE_ALTER_TABLE, SQLITE_CREATE_INDEX,
             SQLITE_CREATE_TRIGGER, SQLITE_DROP_INDEX, SQLITE_DROP_TRIGGER,
             // TEMP ones too: a temp trigger on a host table would run inside the host's own
             // writes; a temp table or view of the same name would hide the real one.
             SQLITE_CREATE_TEMP_TABLE, SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_VIEW,
             SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_TEMP_TRIGGER, SQLITE_CREATE_TEMP_INDEX:
            // The outbox and the history are scanlua's: a rule that could rewrite a queued delivery's
            // URL would send it past the network allow-list.
            // The table's name is the first argument, except for indexes, triggers and ALTER (the second).
            let firstIsTable = [SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE, SQLITE_CREATE_TABLE, SQLITE_DROP_TABLE,
                                SQLITE_CREATE_TEMP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_VIEW].contains(action)
            let table = (firstIsTable ? a : b) ?? ""
            // (While a statement steps, what is authorized is VACUUM's own copying.)
            if !host, !stepping, StoreLimits.hostTables.contains(table.lowercased()) { return "table \(table) is scanlua's own (read it, do not write it)" }
            return nil
        default:
            return nil
        }
    }
}

extension StoreLimits {
    /// Tables only the host writes: the outbox of deliveries and the scan history.
    package static let hostTables: Set<String> = ["scanlua_outbox", "scanlua_history"]

    /// Why a script may not begin, end or split a transaction: the host commits each event's
    /// writes with its record, or rolls them back (a rule failed, `--dry-run`).
    package static let transactionRefusal = "transaction control belongs to scanlua (BEGIN, COMMIT, END, ROLLBACK, SAVEPOINT and RELEASE"
        + " are refused: an event's writes commit with its record, or roll back when a rule fails or with --dry-run)"
}

/// One SQLite connection, closed in deinit. Not thread-safe: use it on one thread.
///
/// Every connection is sandboxed (``StoreLimits``): an authorizer refuses ATTACH, DETACH,
/// VACUUM INTO, load_extension() and PRAGMAs other than schema and version reads; a progress
/// handler stops a statement after ``StoreLimits/steps`` steps or ``StoreLimits/seconds``; values are capped at
/// ``StoreLimits/valueBytes`` and SQLite's heap at ``StoreLimits/heapBytes``.
package final class Database: StoreConnection {
    private let db: OpaquePointer
    private let sandbox = Sandbox()
    package let path: String

    /// Opens (creating) the database at `path` in WAL mode with a 5 s busy timeout, so two
    /// scanlua processes can share it. The corresponding C function is `sqlite3_open_v2`.
    package init(path: String) throws(StoreError) {
        _ = processHeapLimits
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
        // The sandbox, after the host's own PRAGMAs above.
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, Int32(StoreLimits.valueBytes))
        sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, Int32(StoreLimits.valueBytes))
        sqlite3_enable_load_extension(db, 0)
        let context = Unmanaged.passUnretained(sandbox).toOpaque()
        sqlite3_progress_handler(db, StoreLimits.progressInterval, { context in
            Unmanaged<Sandbox>.fromOpaque(context!).takeUnretainedValue().progress() ? 1 : 0
        }, context)
        sqlite3_set_authorizer(db, { context, action, a, b, _, _ in
            let sandbox = Unmanaged<Sandbox>.fromOpaque(context!).takeUnretainedValue()
            guard let reason = sandbox.refuse(action, a.map { String(cString: $0) }, b.map { String(cString: $0) }) else { return SQLITE_OK }
            if sandbox.refusal == nil { sandbox.refusal = reason }
            return SQLITE_DENY
        }, context)
    }

    deinit {
        sqlite3_set_authorizer(db, nil, nil)
        sqlite3_progress_handler(db, 0, nil, nil)
        sqlite3_close_v2(db)
    }

    private func check(_ rc: Int32, sql: String?) throws(StoreError) {
        guard rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW else {
            var message = String(cString: sqlite3_errmsg(db))
            if let refusal = sandbox.refusal {
                message = "not authorized: \(refusal)"
            } else if let interruption = sandbox.interruption {
                message = "query interrupted: it ran past scanlua's limit of \(interruption)"
            } else if rc & 0xff == SQLITE_TOOBIG {
                message += " (scanlua's store allows values up to \(StoreLimits.valueBytes >> 20) MiB)"
            } else if rc & 0xff == SQLITE_NOMEM {
                message += " (scanlua's store caps SQLite's memory at \(StoreLimits.heapBytes >> 20) MiB)"
            }
            throw StoreError(code: rc, message: message, sql: sql)
        }
    }

    /// Steps `stmt` to its end (rows are passed to `row`), as the sandbox's running statement.
    private func step(_ stmt: OpaquePointer, sql: String, row: (OpaquePointer) throws(StoreError) -> Void) throws(StoreError) {
        while true {
            sandbox.stepping = true
            let rc = sqlite3_step(stmt)
            sandbox.stepping = false
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { try check(rc, sql: sql); return }
            try row(stmt)
        }
    }

    /// Runs `body` with scanlua's own tables (``StoreLimits/hostTables``) writable: the host's
    /// outbox and history code, never a script's statement.
    @discardableResult
    package func asHost<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let was = sandbox.host
        sandbox.host = true
        defer { sandbox.host = was }
        return try body()
    }

    /// Runs SQL without parameters or results (may hold several statements, run in turn as
    /// sqlite3_exec would; each has its own step budget).
    package func execute(_ sql: String) throws(StoreError) {
        guard let text = strdup(sql) else { throw StoreError(code: SQLITE_NOMEM, message: "out of memory", sql: sql) }
        defer { free(text) }
        var next = UnsafePointer<CChar>(text)
        while next.pointee != 0 {
            var stmt: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            sandbox.begin()
            try check(sqlite3_prepare_v2(db, next, -1, &stmt, &tail), sql: sql)
            defer { sqlite3_finalize(stmt) }
            guard let tail, tail != next else { break }
            next = tail
            guard let stmt else { continue }  // a comment or a lone ";"
            try step(stmt, sql: sql) { _ throws(StoreError) in }
        }
    }

    /// How much of its result a ``query(_:positional:named:limit:)`` may hold.
    package struct ResultLimit: Sendable {
        package var rows: Int
        package var bytes: Int
        package init(rows: Int, bytes: Int) { self.rows = rows; self.bytes = bytes }
        /// ``StoreLimits/rows`` and ``StoreLimits/resultBytes``.
        package static let standard = ResultLimit(rows: StoreLimits.rows, bytes: StoreLimits.resultBytes)
        /// Keep no rows (exec): the statement still runs to its end.
        package static let none = ResultLimit(rows: 0, bytes: 0)
        /// The host's own reads (outbox, history export, in pages): no cap.
        package static let host = ResultLimit(rows: .max, bytes: .max)
    }

    /// Runs one statement with parameters (positional `?` from `positional`, or `:name` from `named`)
    /// and returns its rows as column-name/value pairs. Values are bound, never spliced into the SQL.
    /// A result larger than ``ResultLimit/standard`` is an error.
    @discardableResult
    package func query(_ sql: String, positional: [SQLValue] = [], named: [String: SQLValue] = [:]) throws(StoreError) -> [[(String, SQLValue)]] {
        try query(sql, positional: positional, named: named, limit: .standard)
    }

    /// ``query(_:positional:named:)`` with another result limit: a result larger than `limit` is an
    /// error (with ``ResultLimit/none`` rows are dropped instead, as for an exec).
    @discardableResult
    package func query(_ sql: String, positional: [SQLValue] = [], named: [String: SQLValue] = [:],
                      limit: ResultLimit) throws(StoreError) -> [[(String, SQLValue)]] {
        var stmt: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        // Our own copy of the text: `tail` points into it after prepare (a bridged String's
        // temporary C string would be gone by then; AddressSanitizer found that).
        guard let text = strdup(sql) else { throw StoreError(code: SQLITE_NOMEM, message: "out of memory", sql: sql) }
        defer { free(text) }
        sandbox.begin()
        try check(sqlite3_prepare_v2(db, text, -1, &stmt, &tail), sql: sql)
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
        let keep = limit.rows > 0
        var bytes = 0
        try step(stmt, sql: sql) { stmt throws(StoreError) in
            guard keep else { return }
            guard rows.count < limit.rows else {
                throw StoreError(code: SQLITE_TOOBIG, message: "result too large: over \(limit.rows) rows, scanlua's limit for one query (page with LIMIT and OFFSET, or aggregate in SQL)", sql: sql)
            }
            var row: [(String, SQLValue)] = []
            bytes += 64
            for c in 0..<sqlite3_column_count(stmt) {
                let name = String(cString: sqlite3_column_name(stmt, c))
                bytes += 48 + Int(sqlite3_column_bytes(stmt, c))
                switch sqlite3_column_type(stmt, c) {
                case SQLITE_INTEGER: row.append((name, .integer(sqlite3_column_int64(stmt, c))))
                case SQLITE_FLOAT: row.append((name, .real(sqlite3_column_double(stmt, c))))
                case SQLITE_TEXT:  // by its byte count: text may hold NUL
                    let bytes = UnsafeRawBufferPointer(start: sqlite3_column_text(stmt, c), count: Int(sqlite3_column_bytes(stmt, c)))
                    row.append((name, .text(String(decoding: bytes, as: UTF8.self))))
                case SQLITE_BLOB:
                    let n = Int(sqlite3_column_bytes(stmt, c))
                    let p = sqlite3_column_blob(stmt, c)
                    row.append((name, .blob(p.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: n)) } ?? [])))
                default: row.append((name, .null))
                }
            }
            guard bytes <= limit.bytes else {
                throw StoreError(code: SQLITE_TOOBIG, message: "result too large: over \(limit.bytes >> 20) MiB, scanlua's limit for one query (page with LIMIT and OFFSET, or select fewer columns)", sql: sql)
            }
            rows.append(row)
        }
        return rows
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE. The corresponding C function is `sqlite3_changes`.
    package var changes: Int { Int(sqlite3_changes(db)) }
    package var inTransaction: Bool { sqlite3_get_autocommit(db) == 0 }
    package var dialect: SQLDialect { .sqlite }
    /// BEGIN IMMEDIATE takes the write lock first, so a second process waits for its busy timeout
    /// instead of failing on a lock upgrade.
    package func begin() throws(StoreError) { try asHost { () throws(StoreError) in try execute("BEGIN IMMEDIATE") } }

    private func bind(_ stmt: OpaquePointer, _ i: Int32, _ v: SQLValue) -> Int32 {
        // SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        switch v {
        case .null: return sqlite3_bind_null(stmt, i)
        case .integer(let n): return sqlite3_bind_int64(stmt, i, n)
        case .real(let d): return sqlite3_bind_double(stmt, i, d)
        case .text(let s):  // with its byte count: text may hold NUL
            let bytes = Array(s.utf8) + [0]  // never empty: a NULL pointer would bind NULL, not ''
            return bytes.withUnsafeBufferPointer { buf in
                buf.withMemoryRebound(to: CChar.self) { sqlite3_bind_text(stmt, i, $0.baseAddress, Int32(bytes.count - 1), transient) }
            }
        case .blob(let b): return b.withUnsafeBytes { sqlite3_bind_blob(stmt, i, $0.baseAddress, Int32(b.count), transient) }
        }
    }
}

@available(*, unavailable) extension Database: Sendable {}
