import Foundation
import ScanStore

/// The `store` module: SQLite for rules and reports, with parameters only.
///
///     store.exec(sql [, params]) -> changed rows      params: { v1, v2 } for ?, or { name = v } for :name
///     store.query(sql [, params]) -> { {column = value, ...}, ... }   (NULL columns are absent)
///     store.once(key) -> true the first time key is seen (kept only if the event commits)
///     store.migrate { [1] = "CREATE TABLE ...", [2] = "ALTER TABLE ..." }   applied once each, in order
///     store.path() -> the database file
///
/// The connection is sandboxed (ScanStore's `StoreLimits`): no ATTACH, DETACH, VACUUM INTO,
/// load_extension() or PRAGMAs beyond schema and version reads; a step budget per statement;
/// 16 MiB values; 256 MiB of SQLite heap; 100,000 rows (64 MiB) per query.
extension ScriptEngine {
    func storeModule() -> LuaValue {
        .table([
            ("exec", .function { [unowned self] L throws(ScriptError) in
                let (sql, positional, named) = try storeArguments(L, "exec")
                let db = try withStore { () throws(StoreError) in try self.store.touch() }
                // Rows an exec's statement returns are dropped, not held.
                _ = try withStore { () throws(StoreError) in try db.query(sql, positional: positional, named: named, limit: .none) }
                L.push(.int(db.changes))
                return 1
            }),
            ("query", .function { [unowned self] L throws(ScriptError) in
                let (sql, positional, named) = try storeArguments(L, "query")
                // At most StoreLimits.rows rows and StoreLimits.resultBytes (larger results are a
                // store error), so the tables are pushed with Lua's cap lifted: a refused allocation
                // there would raise a Lua error through Swift frames.
                let rows = try withStore { () throws(StoreError) in
                    try self.store.touch().query(sql, positional: positional, named: named, limit: .standard)
                }
                try L.withoutMemoryLimit { () throws(ScriptError) in L.pushRows(rows) }
                return 1
            }),
            ("once", .function { [unowned self] L throws(ScriptError) in
                let key = String(decoding: try L.checkString(1, "once"), as: UTF8.self)
                L.push(.bool(try withStore { () throws(StoreError) in try self.store.once(key) }))
                return 1
            }),
            ("migrate", .function { [unowned self] L throws(ScriptError) in
                let migrations = try L.migrations(at: 1)
                let applied = try withStore { () throws(StoreError) in try self.store.migrate(migrations) }
                L.push(.int(applied.count))
                return 1
            }),
            ("path", .function { [unowned self] L in
                L.push(.string(store.displayPath))
                return 1
            }),
        ])
    }

    private func storeArguments(_ L: LuaState, _ name: String) throws(ScriptError) -> (String, [SQLValue], [String: SQLValue]) {
        let sql = String(decoding: try L.checkString(1, name), as: UTF8.self)
        let (positional, named) = try L.sqlParameters(at: 2, function: name)
        return (sql, positional, named)
    }

    private func withStore<T>(_ body: () throws(StoreError) -> T) throws(ScriptError) -> T {
        do { return try body() } catch { throw .argument("store: \(error)") }
    }
}
