import Foundation

/// The household-and-rules database behind the Lua `store` module: a connection opened on first
/// use, one transaction per scan event, idempotency keys and numbered migrations.
///
/// An event's transaction spans several Lua calls (each rule's store calls), so it cannot be one
/// ``Database/inTransaction(_:)`` closure: while events run (``beginEvents()``), the first store
/// call of an event begins it (``touch()``) and the event's end commits or rolls it back.
package final class Store {
    package let path: String
    private var database: (any StoreConnection)?

    /// Between beginEvents and endEvents: store calls belong to the running event.
    private var eventsRunning = false

    /// Untrusted scripts use this store: a PostgreSQL connection is opened sandboxed (``PostgresGuard``).
    package var sandboxed = false

    package init(path: String, sandboxed: Bool = false) {
        self.path = path
        self.sandboxed = sandboxed
    }

    /// The path as messages and `store.path()` show it (a server URL without its password).
    package var displayPath: String { PostgresDatabase.withoutPassword(path) }

    /// The default database: `$XDG_DATA_HOME/scanlua/scanlua.db` (`~/.local/share/scanlua/scanlua.db`).
    package static var defaultPath: String {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((env["HOME"] ?? ".") + "/.local/share")
        return base + "/scanlua/scanlua.db"
    }

    /// The connection, opened (and its directory created, and its own tables set up) on first use.
    package func db() throws(StoreError) -> any StoreConnection {
        if let database { return database }
        let dir = (path as NSString).deletingLastPathComponent
        if !isServer && !dir.isEmpty { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        let d = try openStoreConnection(path, sandboxed: sandboxed)
        try d.inTransaction { () throws(StoreError) in
            if d.dialect == .postgresql {
                // Two stations opening a new database at once: one creates the tables, the other waits.
                try d.execute("SELECT pg_advisory_xact_lock(7431250)")
            }
            try d.execute("""
                CREATE TABLE IF NOT EXISTS scanlua_once (key TEXT PRIMARY KEY, at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP);
                CREATE TABLE IF NOT EXISTS scanlua_migrations (version INTEGER PRIMARY KEY, at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP);
                """)
            try d.asHost { () throws(StoreError) in
                try d.execute(Outbox.schema(d) + History.schema(d))
                try History.upgrade(d)
            }
        }
        database = d
        return d
    }

    package var isOpen: Bool { database != nil }

    /// Whether the store is a PostgreSQL server (a URL), not an SQLite file.
    package var isServer: Bool { path.hasPrefix("postgresql://") || path.hasPrefix("postgres://") }

    /// The connection for a command that only reads or tends what sessions wrote (export,
    /// outbox): a database file that does not exist is refused, not created empty.
    package func existing() throws(StoreError) -> any StoreConnection {
        if !isServer && database == nil && !FileManager.default.fileExists(atPath: path) {
            throw StoreError(code: 14, message: "no such database: nothing was recorded into it yet (scan or watch with --db \(path) create it with the first code they read)", sql: nil)
        }
        return try db()
    }

    /// Events start running: from now on, each event's store calls are one transaction.
    package func beginEvents() { eventsRunning = true }

    /// No event runs any more (store calls from a report or a test run in autocommit again).
    package func endEvents() { eventsRunning = false }

    /// Called before every store call: the running event's transaction begins at its first one.
    package func touch() throws(StoreError) -> any StoreConnection {
        let d = try db()
        if eventsRunning && !d.inTransaction { try d.begin() }
        return d
    }

    /// Ends the running event's transaction, if it began one: commit, or roll back (a rule failed,
    /// or --dry-run).
    package func endEvent(commit: Bool) throws(StoreError) {
        guard let database, database.inTransaction else { return }
        try database.asHost { () throws(StoreError) in try database.execute(commit ? "COMMIT" : "ROLLBACK") }
    }

    /// True the first time `key` is seen (recorded in the current transaction), false after.
    package func once(_ key: String) throws(StoreError) -> Bool {
        let d = try touch()
        try d.query("INSERT INTO scanlua_once (key) VALUES (?) ON CONFLICT (key) DO NOTHING", positional: [.text(key)])
        return d.changes == 1
    }

    /// Applies the numbered migrations not applied yet, each in its own transaction (or the
    /// running event's), in order.
    /// - Returns: the versions applied now.
    package func migrate(_ migrations: [(version: Int, sql: String)]) throws(StoreError) -> [Int] {
        let d = try touch()
        var applied: [Int] = []
        for m in migrations.sorted(by: { $0.version < $1.version }) {
            do {
                // Checked inside the write transaction: another process may be applying the same migration.
                try d.inTransaction { () throws(StoreError) in
                    if d.dialect == .postgresql { try d.execute("LOCK TABLE scanlua_migrations IN EXCLUSIVE MODE") }
                    let done = try d.query("SELECT 1 FROM scanlua_migrations WHERE version = ?", positional: [.integer(Int64(m.version))])
                    guard done.isEmpty else { return }
                    try d.execute(m.sql)
                    try d.query("INSERT INTO scanlua_migrations (version) VALUES (?)", positional: [.integer(Int64(m.version))])
                    applied.append(m.version)
                }
            } catch {
                throw StoreError(code: error.code, message: "migration \(m.version): \(error.message)", sql: error.sql, database: error.database)
            }
        }
        return applied
    }
}

@available(*, unavailable) extension Store: Sendable {}
