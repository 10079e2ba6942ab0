import Foundation

/// The household-and-rules database behind the Lua `store` module: a connection opened on first
/// use, one transaction per scan event, idempotency keys and numbered migrations.
public final class Store {
    public let path: String
    private var database: Database?

    /// Between beginEvent and endEvent: a connection opened meanwhile starts the event's transaction.
    private var eventActive = false

    public init(path: String) { self.path = path }

    /// The default database: `$XDG_DATA_HOME/scanlua/scanlua.db` (`~/.local/share/scanlua/scanlua.db`).
    public static var defaultPath: String {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((env["HOME"] ?? ".") + "/.local/share")
        return base + "/scanlua/scanlua.db"
    }

    /// The connection, opened (and its directory created) on first use.
    public func db() throws(StoreError) -> Database {
        if let database { return database }
        let dir = (path as NSString).deletingLastPathComponent
        if !dir.isEmpty { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        let d = try Database(path: path)
        // An IMMEDIATE transaction takes the write lock first, so a second process waits (busy
        // timeout) instead of failing when it would have to upgrade a read lock.
        try d.execute("""
            BEGIN IMMEDIATE;
            CREATE TABLE IF NOT EXISTS scanlua_once (key TEXT PRIMARY KEY, at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP);
            CREATE TABLE IF NOT EXISTS scanlua_migrations (version INTEGER PRIMARY KEY, at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP);
            COMMIT;
            """)
        database = d
        if eventActive { try d.execute("BEGIN IMMEDIATE") }
        return d
    }

    public var isOpen: Bool { database != nil }

    /// Starts the transaction of one scan event: everything its rules write commits or rolls back
    /// as a whole. (If the connection is not open yet, it begins when first used.)
    public func beginEvent() throws(StoreError) {
        eventActive = true
        guard let database, !database.inTransaction else { return }
        try database.execute("BEGIN IMMEDIATE")
    }

    /// Ends it: commit, or roll back (a rule failed, or --dry-run).
    public func endEvent(commit: Bool) throws(StoreError) {
        eventActive = false
        guard let database, database.inTransaction else { return }
        try database.execute(commit ? "COMMIT" : "ROLLBACK")
    }

    /// True the first time `key` is seen (recorded in the current transaction), false after.
    public func once(_ key: String) throws(StoreError) -> Bool {
        let d = try db()
        try d.query("INSERT OR IGNORE INTO scanlua_once (key) VALUES (?)", positional: [.text(key)])
        return d.changes == 1
    }

    /// Applies the numbered migrations not applied yet, each in its own transaction, in order.
    /// - Returns: the versions applied now.
    public func migrate(_ migrations: [(version: Int, sql: String)]) throws(StoreError) -> [Int] {
        let d = try db()
        var applied: [Int] = []
        for m in migrations.sorted(by: { $0.version < $1.version }) {
            // Check inside the write transaction: another process may be applying the same migration.
            let outer = d.inTransaction
            if !outer { try d.execute("BEGIN IMMEDIATE") }
            do {
                let done = try d.query("SELECT 1 FROM scanlua_migrations WHERE version = ?", positional: [.integer(Int64(m.version))])
                if done.isEmpty {
                    try d.execute(m.sql)
                    try d.query("INSERT INTO scanlua_migrations (version) VALUES (?)", positional: [.integer(Int64(m.version))])
                    applied.append(m.version)
                }
                if !outer { try d.execute("COMMIT") }
            } catch {
                if !outer { try? d.execute("ROLLBACK") }
                throw StoreError(code: error.code, message: "migration \(m.version): \(error.message)", sql: error.sql)
            }
        }
        return applied
    }
}

@available(*, unavailable) extension Store: Sendable {}
