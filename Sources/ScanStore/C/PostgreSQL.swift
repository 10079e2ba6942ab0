// The only Swift file that calls libpq.
internal import CLibPQ
import Foundation

/// A PostgreSQL connection (`--db postgresql://user@host:port/db`): the store shared by many
/// stations. Scripts' `?` and `:name` placeholders become `$1, $2 ...`; values are sent as text
/// parameters and never spliced into the SQL; each statement may run ``StoreLimits/seconds``
/// (statement_timeout). A sandboxed connection (untrusted scripts) refuses privileged roles and
/// statements that reach outside the database: see ``PostgresGuard``.
package final class PostgresDatabase: StoreConnection {
    private let conn: OpaquePointer
    package let path: String
    package private(set) var changes = 0
    package var dialect: SQLDialect { .postgresql }
    /// Untrusted scripts use this connection: ``PostgresGuard`` checks their statements.
    package let sandboxed: Bool
    /// Above 0 while the host runs its own statements (``asHost(_:)``).
    private var hostDepth = 0

    /// The corresponding C function is `PQconnectdb`.
    /// - Parameter sandboxed: refuse a role with powers outside its database, and check statements.
    package init(url: String, sandboxed: Bool = false) throws(StoreError) {
        self.sandboxed = sandboxed
        path = Self.withoutPassword(url)
        guard let c = PQconnectdb(url) else { throw StoreError(code: 1, message: "\(path): out of memory", sql: nil, database: "PostgreSQL") }
        guard PQstatus(c) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(c)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(c)
            throw StoreError(code: 1, message: "\(path): \(message)", sql: nil, database: "PostgreSQL")
        }
        conn = c
        try plain("SET statement_timeout = '\(StoreLimits.seconds)s'; SET client_min_messages = warning")
        if sandboxed {
            let rows = try query(PostgresGuard.privilegedRolesSQL, positional: [], named: [:], limit: .standard)
            let powers = rows.compactMap { row -> String? in if case .text(let t)? = row.last?.1 { return t }; return nil }
            if !powers.isEmpty {
                let user = String(cString: PQuser(conn))
                throw StoreError(code: 23, message: PostgresGuard.refusal(url: path, user: user, powers: powers), sql: nil, database: "PostgreSQL")
            }
        }
    }

    /// A sandboxed script's statement that reaches outside the database is refused unsent.
    private func guardStatement(_ sql: String) throws(StoreError) {
        guard hostDepth == 0 else { return }
        if PostgresGuard.controlsTransactions(sql) {
            throw StoreError(code: 23, message: "not authorized: \(StoreLimits.transactionRefusal)", sql: sql, database: "PostgreSQL")
        }
        guard sandboxed, let reason = PostgresGuard.refusal(of: sql) else { return }
        throw StoreError(code: 23, message: "not authorized: \(reason) (a sandboxed script; --trust lifts this)", sql: sql, database: "PostgreSQL")
    }

    deinit { PQfinish(conn) }

    package var inTransaction: Bool { PQtransactionStatus(conn) != PQTRANS_IDLE }

    package func begin() throws(StoreError) { try plain("BEGIN") }

    @discardableResult
    package func asHost<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        hostDepth += 1
        defer { hostDepth -= 1 }
        return try body()
    }

    /// The corresponding C function is `PQexec` (several statements allowed, no parameters).
    package func execute(_ sql: String) throws(StoreError) {
        let head = sql.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
        try guardStatement(sql)
        if ["BEGIN", "COMMIT", "ROLLBACK", "END", "SAVEPOINT", "RELEASE"].contains(where: { head.hasPrefix($0) }) { return try plain(sql) }
        try statement { () throws(StoreError) in
            guard let result = PQexec(conn, sql) else { throw failure(sql) }
            defer { PQclear(result) }
            try check(result, sql: sql)
        }
    }

    /// A failed statement inside a transaction undoes only itself, as in SQLite: PostgreSQL would
    /// abort the whole transaction (so a script's pcall'd error would roll back its event).
    /// The time limit is the client's too: a statement still running a second past
    /// ``StoreLimits/seconds`` is cancelled from here (a script could lift the server's
    /// statement_timeout from inside a function). The corresponding C function is `PQcancel`.
    private func statement<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let cancel = PQgetCancel(conn).map(CancelTimer.init)
        if let cancel {
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(StoreLimits.seconds + 1)) { cancel.fire() }
        }
        defer { cancel?.finish() }
        return try savepointed(body)
    }

    private func savepointed<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        guard inTransaction else { return try body() }
        try plain("SAVEPOINT scanlua_statement")
        do {
            let value = try body()
            try plain("RELEASE SAVEPOINT scanlua_statement")
            return value
        } catch {
            try? plain("ROLLBACK TO SAVEPOINT scanlua_statement")
            try? plain("RELEASE SAVEPOINT scanlua_statement")
            throw error
        }
    }

    private func plain(_ sql: String) throws(StoreError) {
        guard let result = PQexec(conn, sql) else { throw failure(sql) }
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    /// The corresponding C function is `PQexecParams`.
    @discardableResult
    package func query(_ sql: String, positional: [SQLValue], named: [String: SQLValue], limit: Database.ResultLimit) throws(StoreError)
        -> [[(String, SQLValue)]] {
        try guardStatement(sql)
        let (text, order) = try Self.numbered(sql)
        var values: [SQLValue] = []
        var next = 0
        for name in order {
            if let name {
                guard let v = named[name] else { throw StoreError(code: 25, message: "no value for parameter :\(name)", sql: sql, database: "PostgreSQL") }
                values.append(v)
            } else {
                guard next < positional.count else { throw StoreError(code: 25, message: "not enough values for the ? parameters", sql: sql, database: "PostgreSQL") }
                values.append(positional[next])
                next += 1
            }
        }
        let texts: [[CChar]?] = values.map { v in
            switch v {
            case .null: return nil
            case .integer(let n): return Array(String(n).utf8CString)
            case .real(let d): return Array(String(d).utf8CString)
            case .text(let s): return Array(s.utf8CString)
            case .blob(let b): return Array(("\\x" + b.map { String(format: "%02x", $0) }.joined()).utf8CString)
            }
        }
        let pointers = texts.map { t -> UnsafeMutablePointer<CChar>? in
            guard let t else { return nil }
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: t.count)
            p.initialize(from: t, count: t.count)
            return p
        }
        defer { pointers.forEach { $0?.deallocate() } }
        var args: [UnsafePointer<CChar>?] = pointers.map { $0.map { UnsafePointer($0) } }
        let result = try statement { () throws(StoreError) -> OpaquePointer in
            guard let result = PQexecParams(conn, text, Int32(args.count), nil, &args, nil, nil, 0) else { throw failure(sql) }
            do throws(StoreError) { try check(result, sql: sql) } catch { PQclear(result); throw error }
            return result
        }
        defer { PQclear(result) }
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
        guard limit.rows > 0, PQresultStatus(result) == PGRES_TUPLES_OK else { return [] }
        let rowCount = Int(PQntuples(result)), columns = Int(PQnfields(result))
        guard rowCount <= limit.rows else {
            throw StoreError(code: 18, message: "result too large: over \(limit.rows) rows, scanlua's limit for one query (page with LIMIT and OFFSET, or aggregate in SQL)", sql: sql, database: "PostgreSQL")
        }
        let names = (0..<columns).map { String(cString: PQfname(result, Int32($0))) }
        var rows: [[(String, SQLValue)]] = []
        var bytes = 0
        for r in 0..<rowCount {
            var row: [(String, SQLValue)] = []
            for c in 0..<columns {
                if PQgetisnull(result, Int32(r), Int32(c)) == 1 { row.append((names[c], .null)); continue }
                let value = String(cString: PQgetvalue(result, Int32(r), Int32(c)))
                bytes += value.utf8.count
                switch PQftype(result, Int32(c)) {
                case 20, 21, 23: row.append((names[c], Int64(value).map { .integer($0) } ?? .text(value)))  // int8, int2, int4
                case 700, 701, 1700: row.append((names[c], Double(value).map { .real($0) } ?? .text(value)))  // float4, float8, numeric
                case 16: row.append((names[c], .integer(value == "t" ? 1 : 0)))  // bool, as SQLite has it
                case 17:  // bytea, in hex output
                    var b: [UInt8] = []
                    var i = value.index(value.startIndex, offsetBy: min(2, value.count))
                    while i < value.endIndex, let j = value.index(i, offsetBy: 2, limitedBy: value.endIndex), let byte = UInt8(value[i..<j], radix: 16) {
                        b.append(byte)
                        i = j
                    }
                    row.append((names[c], .blob(b)))
                default: row.append((names[c], .text(value)))
                }
            }
            guard bytes <= limit.bytes else {
                throw StoreError(code: 18, message: "result too large: over \(limit.bytes >> 20) MiB, scanlua's limit for one query (page with LIMIT and OFFSET, or select fewer columns)", sql: sql, database: "PostgreSQL")
            }
            rows.append(row)
        }
        return rows
    }

    private func check(_ result: OpaquePointer, sql: String) throws(StoreError) {
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY else {
            let message = String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            throw StoreError(code: 1, message: message.replacingOccurrences(of: "ERROR:  ", with: "") + (state.isEmpty ? "" : " [\(state)]"), sql: sql, database: "PostgreSQL")
        }
    }

    private func failure(_ sql: String) -> StoreError {
        StoreError(code: 1, message: String(cString: PQerrorMessage(conn)).trimmingCharacters(in: .whitespacesAndNewlines), sql: sql, database: "PostgreSQL")
    }

    /// `?` and `:name` to `$1, $2 ...` outside quotes and comments (`::` casts stay); the order
    /// of the parameters, nil for each `?`. The same `:name` twice is the same `$n`.
    static func numbered(_ sql: String) throws(StoreError) -> (String, [String?]) {
        var out = ""
        var order: [String?] = []
        var namedIndex: [String: Int] = [:]
        let chars = Array(sql)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "'" || c == "\"" {  // a string or a quoted name, with doubled quotes inside
                var j = i + 1
                while j < chars.count { if chars[j] == c { if j + 1 < chars.count && chars[j + 1] == c { j += 2; continue }; break }; j += 1 }
                out += String(chars[i...min(j, chars.count - 1)])
                i = j + 1
                continue
            }
            if c == "-", i + 1 < chars.count, chars[i + 1] == "-" {  // a comment to the line's end
                while i < chars.count && chars[i] != "\n" { out.append(chars[i]); i += 1 }
                continue
            }
            if c == "?" {
                order.append(nil)
                out += "$\(order.count)"
                i += 1
                continue
            }
            if c == ":", i + 1 < chars.count, chars[i + 1].isLetter || chars[i + 1] == "_", i == 0 || chars[i - 1] != ":" {
                var j = i + 1
                while j < chars.count && (chars[j].isLetter || chars[j].isNumber || chars[j] == "_") { j += 1 }
                let name = String(chars[(i + 1)..<j])
                if let n = namedIndex[name] { out += "$\(n)" } else {
                    order.append(name)
                    namedIndex[name] = order.count
                    out += "$\(order.count)"
                }
                i = j
                continue
            }
            if c == ":", i + 1 < chars.count, chars[i + 1] == ":" { out += "::"; i += 2; continue }
            out.append(c)
            i += 1
        }
        return (out, order)
    }

    /// `postgresql://user:secret@host/db` as messages show it: `postgresql://user@host/db`.
    static func withoutPassword(_ url: String) -> String {
        guard var c = URLComponents(string: url), c.password != nil else { return url }
        c.password = nil
        return c.string ?? url
    }
}

/// The cancel handle of one statement: `fire` (the timer's thread) sends the cancel request
/// unless the statement finished; `finish` frees the handle, never while `fire` uses it.
private final class CancelTimer: @unchecked Sendable {
    private let pointer: OpaquePointer
    private let lock = NSLock()
    private var finished = false

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// The corresponding C function is `PQcancel` (thread-safe).
    func fire() {
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return }
        var message = [CChar](repeating: 0, count: 256)
        _ = PQcancel(pointer, &message, Int32(message.count))
    }

    /// The corresponding C function is `PQfreeCancel`.
    func finish() {
        lock.lock()
        finished = true
        PQfreeCancel(pointer)
        lock.unlock()
    }
}
