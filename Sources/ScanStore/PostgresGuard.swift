/// What keeps a sandboxed script's SQL inside its own database on PostgreSQL, which has no
/// authorizer like SQLite's. Two layers:
///
/// 1. **The role** (what it rests on): an untrusted session refuses to connect as a role that is,
///    or may become (`pg_has_role ... MEMBER`), a superuser, a `CREATEROLE` role (on PostgreSQL
///    15 it can grant itself the roles below), or a member of `pg_execute_server_program`,
///    `pg_read_server_files` or `pg_write_server_files`, or one that may create in the database
///    (its owner: trusted extensions, `ALTER DATABASE ... SET`). Without those, PostgreSQL itself refuses
///    `COPY ... PROGRAM` and server files, `pg_read_file`, server-side `lo_import`/`lo_export`,
///    untrusted languages, `LOAD` and untrusted extensions (dblink, postgres_fdw), and `ALTER SYSTEM`.
/// 2. **The statements** (a second fence, so a role granted too much later is not the only
///    guard): a script's SQL that names `COPY`, a server-file or large-object file function,
///    dblink, `CREATE EXTENSION`, `LOAD`, a language other than SQL and PL/pgSQL, `ALTER SYSTEM`,
///    foreign servers, or `SET ROLE`/`SESSION AUTHORIZATION` is refused before it is sent.
///    Words inside strings, dollar quotes and comments do not count; quoted names do.
///
/// `--trust` (or a config's `trust`) lifts both: trusted scripts are the operator's own code.
package enum PostgresGuard {
    /// Roles whose members read or write the server's files or run programs on it.
    package static let serverRoles = ["pg_execute_server_program", "pg_read_server_files", "pg_write_server_files"]

    /// The roles the connected role is or may become that give powers outside its database: one
    /// row per role, its name and what it gives.
    static let privilegedRolesSQL = """
        SELECT r.rolname, CASE WHEN r.rolsuper THEN 'a superuser' WHEN r.rolcreaterole THEN 'allowed to create roles (CREATEROLE)'
          ELSE 'a member of ' || r.rolname END
        FROM pg_roles r
        WHERE pg_has_role(current_user, r.oid, 'MEMBER')
          AND (r.rolsuper OR r.rolcreaterole OR r.rolname IN ('pg_execute_server_program', 'pg_read_server_files', 'pg_write_server_files'))
        UNION ALL
        SELECT current_database(), 'allowed to create in database ' || current_database()
          || ' (its owner, or granted CREATE: it could install extensions and change the database''s settings)'
        WHERE has_database_privilege(current_database(), 'CREATE')
        """

    /// The message for a connection refused because of `roles` (what each gives).
    static func refusal(url: String, user: String, powers: [String]) -> String {
        "\(url): the role '\(user)' is \(powers.joined(separator: ", ")): through it a sandboxed script could run programs on the "
            + "server and read its files (COPY ... PROGRAM, pg_read_file). Connect as a role that owns only scanlua's database "
            + "(docs/security.md shows how to create one: it owns a schema, not the database), or pass --trust for scripts you wrote yourself"
    }

    /// Function names a sandboxed statement may not call (exact), and prefixes.
    static let functions: Set<String> = [
        "pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_stat_file", "pg_ls_logdir", "pg_ls_waldir", "pg_ls_tmpdir",
        "pg_ls_archive_statusdir", "pg_ls_logicalsnapdir", "pg_ls_logicalmapdir", "pg_ls_replslotdir", "pg_file_write",
        "pg_file_rename", "pg_file_unlink", "pg_file_sync", "pg_logdir_ls", "lo_import", "lo_export", "pg_reload_conf",
        "pg_rotate_logfile", "pg_promote", "pg_terminate_backend", "pg_cancel_backend", "set_config",
    ]
    static let functionPrefixes = ["dblink", "postgres_fdw"]

    /// Whether a statement of `sql` begins, ends or splits a transaction (BEGIN, START
    /// TRANSACTION, COMMIT, END, ROLLBACK, ABORT, SAVEPOINT, RELEASE, PREPARE TRANSACTION):
    /// refused from every script, trusted or not (``StoreLimits/transactionRefusal``).
    package static func controlsTransactions(_ sql: String) -> Bool {
        let words = tokens(sql)
        let heads = [0] + words.indices.filter { words[$0] == ";" }.map { $0 + 1 }
        return heads.contains { i in
            guard i < words.count else { return false }
            let next = i + 1 < words.count ? words[i + 1] : ""
            return ["begin", "commit", "end", "rollback", "abort", "savepoint", "release"].contains(words[i])
                || (words[i] == "start" && next == "transaction") || (words[i] == "prepare" && next == "transaction")
        }
    }

    /// Why a sandboxed script may not run `sql`, or nil.
    package static func refusal(of sql: String) -> String? {
        let words = tokens(sql)
        func at(_ i: Int) -> String { i >= 0 && i < words.count ? words[i] : "" }
        // `LANGUAGE x` of a function, procedure or DO block (a column may be named language).
        let definesCode = words.first == "do" || words.contains("function") || words.contains("procedure")
        if sql.range(of: #"[Uu]&\s*['"]"#, options: .regularExpression) != nil {
            return "U& escapes can spell any name; write it plainly"
        }
        if words.first == "set" || words.first == "reset" {
            return "SET changes the session's settings (its time limit, its role); scanlua sets what it needs"
        }
        if words.first == "do" { return "DO blocks run code the statement check cannot read; use plain SQL" }
        for (i, w) in words.enumerated() {
            if w == "pg_settings" { return "pg_settings changes the session's settings" }
            if (w == "database" || w == "role" || w == "user" || w == "schema") && at(i - 1) == "alter" {
                return "ALTER \(w.uppercased()) changes settings beyond this script's statements"
            }
            if w == "copy" { return "COPY reads and writes files and programs on the server; use INSERT and SELECT" }
            if functions.contains(w) || functionPrefixes.contains(where: w.hasPrefix) {
                return "\(w) reaches outside scanlua's database (server files, programs, other databases or sessions)"
            }
            if w == "load" && i == 0 { return "LOAD loads code into the server" }
            if w == "extension" && (at(i - 1) == "create" || at(i - 1) == "alter") { return "extensions are the database owner's to install" }
            if w == "language" {
                if ["create", "procedural", "replace", "trusted"].contains(at(i - 1)) { return "languages are the database owner's to install" }
                if definesCode && !["sql", "plpgsql"].contains(at(i + 1)) {
                    return "code in language '\(at(i + 1))' can run programs on the server; use SQL or PL/pgSQL"
                }
            }
            if w == "system" && at(i - 1) == "alter" { return "ALTER SYSTEM changes the server's configuration" }
            if w == "server" && (at(i - 1) == "create" || at(i - 1) == "alter") { return "foreign servers reach other databases" }
            if w == "foreign" && (at(i - 1) == "import" || at(i - 1) == "create") { return "foreign tables reach other databases" }
            if w == "mapping" && at(i - 1) == "user" { return "user mappings hold credentials for other databases" }
            if w == "role" && (at(i - 1) == "set" || at(i - 1) == "reset" || (at(i - 1) == "local" && at(i - 2) == "set")) {
                return "SET ROLE changes whose powers the session has"
            }
            if w == "authorization" && at(i - 1) == "session" && ["set", "local", "reset"].contains(at(i - 2)) {
                return "SET SESSION AUTHORIZATION changes whose powers the session has"
            }
        }
        return nil
    }

    /// The words of `sql`, lowercased: keywords, names and quoted names; strings (`'...'`, `E'...'`,
    /// `$tag$...$tag$`), comments (`--`, nested `/* */`), numbers and punctuation left out.
    static func tokens(_ sql: String) -> [String] {
        let c = Array(sql.unicodeScalars)
        var words: [String] = []
        var i = 0
        func isWordStart(_ s: Unicode.Scalar) -> Bool { s == "_" || s.properties.isAlphabetic }
        func isWord(_ s: Unicode.Scalar) -> Bool { isWordStart(s) || s == "$" || ("0"..."9").contains(s) }
        while i < c.count {
            let s = c[i]
            if s == "-", i + 1 < c.count, c[i + 1] == "-" {
                while i < c.count && c[i] != "\n" { i += 1 }
            } else if s == "/", i + 1 < c.count, c[i + 1] == "*" {
                var depth = 0
                repeat {
                    if i + 1 < c.count && c[i] == "/" && c[i + 1] == "*" { depth += 1; i += 2 }
                    else if i + 1 < c.count && c[i] == "*" && c[i + 1] == "/" { depth -= 1; i += 2 }
                    else { i += 1 }
                } while depth > 0 && i < c.count
            } else if s == "'" {
                // E'...' strings take backslash escapes; others only doubled quotes.
                // (An E that ends a longer name, as in `name'...'`, is a type cast's name, not E'.)
                let escapes = i > 0 && (c[i - 1] == "E" || c[i - 1] == "e") && (i < 2 || !isWord(c[i - 2]))
                i += 1
                while i < c.count {
                    if escapes && c[i] == "\\" { i += 2; continue }
                    if c[i] == "'" { if i + 1 < c.count && c[i + 1] == "'" { i += 2; continue }; break }
                    i += 1
                }
                i += 1
            } else if s == "\"" {
                var name = ""
                i += 1
                while i < c.count {
                    if c[i] == "\"" { if i + 1 < c.count && c[i + 1] == "\"" { name += "\""; i += 2; continue }; break }
                    name.unicodeScalars.append(c[i])
                    i += 1
                }
                i += 1
                words.append(name.lowercased())
            } else if s == "$", let tagEnd = dollarTag(c, i) {
                let tag = c[i...tagEnd]
                var j = tagEnd + 1
                while j < c.count, !(c[j] == "$" && j + tag.count <= c.count && c[j..<(j + tag.count)].elementsEqual(tag)) { j += 1 }
                i = j + tag.count
            } else if isWordStart(s) {
                var word = ""
                while i < c.count && isWord(c[i]) { word.unicodeScalars.append(c[i]); i += 1 }
                words.append(word.lowercased())
            } else if ("0"..."9").contains(s) {
                while i < c.count && (isWord(c[i]) || c[i] == ".") { i += 1 }
            } else if s == ";" {
                words.append(";")  // between statements: each statement's first word is a head
                i += 1
            } else {
                i += 1
            }
        }
        return words
    }

    /// The end of a dollar-quote opening tag (`$$` or `$name$`) starting at `i`, or nil (`$1`).
    private static func dollarTag(_ c: [Unicode.Scalar], _ i: Int) -> Int? {
        var j = i + 1
        if j < c.count, c[j] == "$" { return j }
        guard j < c.count, c[j] == "_" || c[j].properties.isAlphabetic else { return nil }
        while j < c.count, c[j] == "_" || c[j].properties.isAlphabetic || ("0"..."9").contains(c[j]) { j += 1 }
        return j < c.count && c[j] == "$" ? j : nil
    }
}
