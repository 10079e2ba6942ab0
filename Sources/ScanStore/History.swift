import Foundation

/// Every record of a session with a store (`--db` or the config's `db`), as BinaryEye keeps its
/// scan history: what `scanlua export` writes out.
package struct History {
    package struct Row: Sendable {
        package var time: String
        package var source: String
        package var frame: Int
        /// A document's page, from 1 (nil for images and streams).
        package var page: Int?
        package var symbology: String
        package var text: String
        /// The bytes in Base64.
        package var bytes: String
        package var payloadType: String
        /// JSON text.
        package var payload: String
        /// JSON text: the actions with their status.
        package var actions: String

        package init(time: String, source: String, frame: Int, page: Int? = nil, symbology: String, text: String, bytes: String,
                    payloadType: String, payload: String, actions: String) {
            self.page = page
            (self.time, self.source, self.frame, self.symbology, self.text, self.bytes) = (time, source, frame, symbology, text, bytes)
            (self.payloadType, self.payload, self.actions) = (payloadType, payload, actions)
        }

        /// Column names, in the order of ``values`` (CSV header and JSON keys).
        package static let columns = ["time", "source", "frame", "page", "symbology", "text", "bytes", "payload_type", "payload", "actions"]
    }

    static func schema(_ d: any StoreConnection) -> String { """
        CREATE TABLE IF NOT EXISTS scanlua_history (
          id \(d.rowIDColumn),
          time TEXT NOT NULL,          -- ISO 8601, UTC
          source TEXT NOT NULL,
          frame INTEGER NOT NULL,
          page INTEGER,                -- a document's page, from 1; NULL for images and streams
          symbology TEXT NOT NULL,
          text TEXT NOT NULL,
          bytes TEXT NOT NULL,         -- Base64
          payload_type TEXT NOT NULL,
          payload TEXT NOT NULL,       -- JSON
          actions TEXT NOT NULL        -- JSON
        );
        CREATE INDEX IF NOT EXISTS scanlua_history_time ON scanlua_history (time);
        """
    }

    /// A history made before pages were recorded gets its `page` column (as the host, which
    /// created the table). On PostgreSQL a role that does not own the table cannot: the error
    /// says what the owner runs.
    static func upgrade(_ d: any StoreConnection) throws(StoreError) {
        let has: Bool
        switch d.dialect {
        case .sqlite:
            has = try d.query("PRAGMA table_info(scanlua_history)", limit: .host).contains { row in
                row.contains { $0.0 == "name" && $0.1 == .text("page") }
            }
        case .postgresql:
            has = try !d.query("""
                SELECT 1 FROM information_schema.columns WHERE table_name = 'scanlua_history' AND column_name = 'page'
                AND table_schema = current_schema()
                """, limit: .host).isEmpty
        }
        guard !has else { return }
        do throws(StoreError) { try d.execute("ALTER TABLE scanlua_history ADD COLUMN page INTEGER") } catch {
            throw StoreError(code: error.code, message: "the history table needs its page column: as its owner, run"
                             + " ALTER TABLE scanlua_history ADD COLUMN page INTEGER (\(error.message))", sql: error.sql, database: error.database)
        }
    }

    package let database: any StoreConnection

    package init(_ database: any StoreConnection) { self.database = database }

    /// What one history row may hold in a column: the store refuses values over 16 MiB, and one
    /// such row would fail the frame's whole transaction (every other code's row with it).
    package static let maxColumnBytes = 4 << 20

    /// The row as the history keeps it: a text, bytes or payload over ``maxColumnBytes`` is
    /// replaced by a note saying so (the record on stdout had it whole).
    package static func bounded(_ row: Row) -> Row {
        var r = row
        func note(_ what: String, _ n: Int) -> String { "(\(what) of \(n) bytes not kept in the history: over \(maxColumnBytes >> 20) MiB)" }
        if r.text.utf8.count > maxColumnBytes { r.text = note("text", r.text.utf8.count) }
        if r.bytes.utf8.count > maxColumnBytes { r.bytes = "" }
        if r.payload.utf8.count > maxColumnBytes {
            // JSON by hand: ScanStore does not know ScanCore's JSON type.
            func quoted(_ s: String) -> String {
                "\"" + s.unicodeScalars.map { c in
                    switch c {
                    case "\"": return "\\\""
                    case "\\": return "\\\\"
                    case _ where c.value < 0x20: return String(format: "\\u%04x", c.value)
                    default: return String(c)
                    }
                }.joined() + "\""
            }
            r.payload = "{\"type\":\(quoted(r.payloadType)),\"note\":\(quoted(note("payload", r.payload.utf8.count)))}"
        }
        if r.actions.utf8.count > maxColumnBytes { r.actions = "[]" }
        return r
    }

    /// Adds rows, in one transaction; oversized columns are replaced by notes (``bounded(_:)``).
    package func add(_ rows: [Row]) throws(StoreError) {
        guard !rows.isEmpty else { return }
        try database.asHost { () throws(StoreError) in
            try database.inTransaction { () throws(StoreError) in
                for r in rows.map(Self.bounded) {
                    try database.query("""
                        INSERT INTO scanlua_history (time, source, frame, page, symbology, text, bytes, payload_type, payload, actions)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, positional: [.text(r.time), .text(r.source), .integer(Int64(r.frame)), r.page.map { .integer(Int64($0)) } ?? .null,
                                          .text(r.symbology), .text(r.text),
                                          .text(r.bytes), .text(r.payloadType), .text(r.payload), .text(r.actions)])
                }
            }
        }
    }

    /// The payload types present, sorted (what `export --type` can match).
    package func types() throws(StoreError) -> [String] {
        try database.query("SELECT DISTINCT payload_type FROM scanlua_history ORDER BY payload_type", positional: [], named: [:], limit: .host)
            .compactMap { row in row.first { $0.0 == "payload_type" }.flatMap { if case .text(let t) = $0.1 { return t }; return nil } }
    }

    /// Rows in time order, from `since` (an ISO 8601 prefix such as `2026-12-01` or
    /// `2026-12-01T10:00:00Z`) and of one payload type when given, handed over a page at a time.
    package func rows(since: String?, type: String?, page: Int = 5000, _ body: ([Row]) -> Void) throws(StoreError) {
        var last: Int64 = 0
        while true {
            var condition = "id > ?"
            var params: [SQLValue] = [.integer(last)]
            if let since { condition += " AND time >= ?"; params.append(.text(since)) }
            if let type { condition += " AND payload_type = ?"; params.append(.text(type)) }
            let result = try database.query("""
                SELECT id, time, source, frame, page, symbology, text, bytes, payload_type, payload, actions FROM scanlua_history
                WHERE \(condition) ORDER BY id LIMIT \(page)
                """, positional: params, named: [:], limit: .host)
            guard !result.isEmpty else { return }
            var rows: [Row] = []
            for row in result {
                let v = Dictionary(row, uniquingKeysWith: { a, _ in a })
                func text(_ k: String) -> String { if case .text(let s)? = v[k] { return s }; return "" }
                if case .integer(let id)? = v["id"] { last = id }
                var frame = 0
                if case .integer(let n)? = v["frame"] { frame = Int(n) }
                var page: Int?
                if case .integer(let n)? = v["page"] { page = Int(n) }
                rows.append(Row(time: text("time"), source: text("source"), frame: frame, page: page, symbology: text("symbology"),
                                text: text("text"), bytes: text("bytes"), payloadType: text("payload_type"),
                                payload: text("payload"), actions: text("actions")))
            }
            body(rows)
        }
    }
}
