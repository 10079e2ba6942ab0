import Foundation

/// The durable outbox of `http` and `mqtt` deliveries, in the store's database. A delivery is
/// written here before it is sent (so a crash between send and mark re-sends it with the same
/// idempotency key), marked delivered once the other side acknowledged it, and otherwise retried
/// with exponential backoff: by the session while it runs, by `scanlua outbox --flush` after.
package struct Outbox {
    /// `pending` is what records and `outbox --list` call queued.
    package enum State: String, Sendable {
        case pending, delivered, failed
        /// The word records, history and `outbox --list` use.
        package var word: String { self == .pending ? "queued" : self == .delivered ? "done" : "failed" }
    }

    package struct Entry: Sendable {
        package var id: Int64
        package var key: String
        package var rule: String
        package var kind: String
        package var target: String
        /// The action as its rule returned it (JSON text): what is sent again.
        package var action: String
        package var state: State
        package var attempts: Int
        package var nextAttempt: Double
        package var lastError: String?
        package var created: String
    }

    static func schema(_ d: any StoreConnection) -> String { """
        CREATE TABLE IF NOT EXISTS scanlua_outbox (
          id \(d.rowIDColumn),
          key TEXT NOT NULL UNIQUE,            -- the Idempotency-Key of every attempt
          rule TEXT NOT NULL,
          kind TEXT NOT NULL,                  -- http or mqtt
          target TEXT NOT NULL,                -- the URL or broker
          action TEXT NOT NULL,                -- the action as JSON
          state TEXT NOT NULL DEFAULT 'pending',
          attempts INTEGER NOT NULL DEFAULT 0,
          next_attempt DOUBLE PRECISION NOT NULL DEFAULT 0, -- seconds since 1970
          last_error TEXT,
          response_status INTEGER,
          created TEXT NOT NULL DEFAULT (\(d.nowSQL)),
          delivered TEXT
        );
        """
    }

    package let database: any StoreConnection

    package init(_ database: any StoreConnection) { self.database = database }

    /// Writes a delivery ahead of its first attempt; returns its entry (an existing one when the
    /// key was queued before, delivered or not).
    package func add(key: String, rule: String, kind: String, target: String, action: String) throws(StoreError) -> Entry {
        try database.asHost { () throws(StoreError) in
            try database.query("INSERT INTO scanlua_outbox (key, rule, kind, target, action) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
                               positional: [.text(key), .text(rule), .text(kind), .text(target), .text(action)])
        }
        guard let entry = try entries(where: "key = ?", [.text(key)]).first else {
            throw StoreError(code: 1, message: "outbox entry vanished", sql: "SELECT")
        }
        return entry
    }

    /// Records an attempt: delivered, to be retried at `retryAt`, or failed for good.
    package func record(_ id: Int64, state: State, error: String?, responseStatus: Int?, retryAt: Double = 0) throws(StoreError) {
        try database.asHost { () throws(StoreError) in
            try database.query("""
                UPDATE scanlua_outbox SET state = ?, attempts = attempts + 1, last_error = ?, response_status = ?, next_attempt = ?,
                  delivered = CASE WHEN ? = 'delivered' THEN \(database.nowSQL) ELSE delivered END
                WHERE id = ?
                """, positional: [.text(state.rawValue), error.map { .text($0) } ?? .null, responseStatus.map { .integer(Int64($0)) } ?? .null,
                                  .real(retryAt), .text(state.rawValue), .integer(id)])
        }
    }

    /// Pending entries whose next attempt is due (all pending ones with `now` = infinity).
    package func due(now: Double) throws(StoreError) -> [Entry] {
        try entries(where: "state = 'pending' AND next_attempt <= ?", [.real(now)])
    }

    /// Everything not delivered: pending and failed.
    package func undelivered() throws(StoreError) -> [Entry] {
        try entries(where: "state != 'delivered'", [])
    }

    /// Entries given up on (`failed`).
    package func failed() throws(StoreError) -> [Entry] {
        try entries(where: "state = 'failed'", [])
    }

    /// Entries still to be delivered (`pending`: records say `queued`).
    package func queued() throws(StoreError) -> [Entry] {
        try entries(where: "state = 'pending'", [])
    }

    /// Queues a failed entry again as if new: its attempts from 0 and its age from now (the
    /// give-up rules start over); false when there is no failed entry `id`.
    package func requeue(_ id: Int64) throws(StoreError) -> Bool {
        try database.asHost { () throws(StoreError) in
            try database.query("""
                UPDATE scanlua_outbox SET state = 'pending', attempts = 0, next_attempt = 0, created = \(database.nowSQL)
                WHERE id = ? AND state = 'failed'
                """, positional: [.integer(id)])
        }
        return database.changes > 0
    }

    /// Notes why an entry was not attempted (not on the allow-list), without counting an attempt.
    package func note(_ id: Int64, error: String) throws(StoreError) {
        try database.asHost { () throws(StoreError) in
            try database.query("UPDATE scanlua_outbox SET last_error = ? WHERE id = ?", positional: [.text(error), .integer(id)])
        }
    }

    /// The state of every entry by idempotency key, with its last error (`scanlua export` shows
    /// a delivery as it ended).
    package func states() throws(StoreError) -> [String: (state: State, lastError: String?)] {
        var out: [String: (state: State, lastError: String?)] = [:]
        for row in try database.query("SELECT key, state, last_error FROM scanlua_outbox", positional: [], named: [:], limit: .host) {
            let v = Dictionary(row, uniquingKeysWith: { a, _ in a })
            if case .text(let k)? = v["key"], case .text(let s)? = v["state"], let state = State(rawValue: s) {
                out[k] = (state, { if case .text(let e)? = v["last_error"] { return e }; return nil }())
            }
        }
        return out
    }

    /// Removes an entry; false when there is none with that id.
    package func drop(_ id: Int64) throws(StoreError) -> Bool {
        try database.asHost { () throws(StoreError) in
            try database.query("DELETE FROM scanlua_outbox WHERE id = ?", positional: [.integer(id)])
        }
        return database.changes > 0
    }

    private func entries(where condition: String, _ params: [SQLValue]) throws(StoreError) -> [Entry] {
        let rows = try database.query("""
            SELECT id, key, rule, kind, target, action, state, attempts, next_attempt, last_error, created
            FROM scanlua_outbox WHERE \(condition) ORDER BY id
            """, positional: params, named: [:], limit: .host)
        return rows.map { row in
            let v = Dictionary(row, uniquingKeysWith: { a, _ in a })
            func text(_ k: String) -> String { if case .text(let s)? = v[k] { return s }; return "" }
            func int(_ k: String) -> Int64 { if case .integer(let n)? = v[k] { return n }; return 0 }
            func real(_ k: String) -> Double { if case .real(let d)? = v[k] { return d }; if case .integer(let n)? = v[k] { return Double(n) }; return 0 }
            return Entry(id: int("id"), key: text("key"), rule: text("rule"), kind: text("kind"), target: text("target"),
                         action: text("action"), state: State(rawValue: text("state")) ?? .pending, attempts: Int(int("attempts")),
                         nextAttempt: real("next_attempt"), lastError: v["last_error"].flatMap { if case .text(let s) = $0 { return s }; return nil },
                         created: text("created"))
        }
    }
}
