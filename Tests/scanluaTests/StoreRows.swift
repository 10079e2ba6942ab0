import ScanStore

/// A query's rows as `a|b|c` strings (whole reals without a fraction, NULL as NULL), for
/// comparing stores in tests: SQLite files and PostgreSQL servers alike.
func rowTexts(_ db: any StoreConnection, _ sql: String) throws -> [String] {
    try db.query(sql).map { row in
        row.map { col -> String in
            switch col.1 {
            case .text(let s): return s
            case .integer(let n): return String(n)
            case .real(let d): return d == d.rounded() ? String(Int(d)) : String(d)
            case .null: return "NULL"
            case .blob(let b): return "blob:\(b.count)"
            }
        }.joined(separator: "|")
    }
}
