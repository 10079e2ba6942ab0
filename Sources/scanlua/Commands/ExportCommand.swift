import Foundation
import ScanCore
import ScanPipeline
import ScanScript
import ScanStore

/// `scanlua export`: the scan history of a store, as CSV, NDJSON or JSON.
enum ExportCommand {
    static let command = Command(
        name: "export",
        abstract: "Write out the scan history of a store (every record of sessions with --db).",
        usage: "scanlua export [--format csv|ndjson|json] [--csv-raw] [--since TIME] [--type TYPE] [script options]",
        options: Option.names(in: [.export]) + ["config", "db"],
        notes: """
            Columns: time (UTC), source, frame, page (a document's, or empty), symbology, text, bytes
            (Base64), payload_type, payload (JSON), actions (JSON, with their status). A session keeps
            history when it has a store named by --db or the config's db. A code's text is chosen by
            whoever printed the code: CSV cells that a spreadsheet would run as a formula (starting with
            = + - @, a tab or a CR) start with a ' (OWASP's advice), unless --csv-raw; NDJSON and JSON
            are unchanged.
            """,
        run: run)

    static func run(_ args: inout ArgumentList, _ o: OptionValues) throws -> Int32 {
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let since = o[.since]
        if let since, since.range(of: #"^\d{4}-\d{2}-\d{2}(T\d{2}(:\d{2}(:\d{2}(\.\d+)?)?)?Z?)?$"#, options: .regularExpression) == nil {
            throw UsageError("invalid value '\(since)' for '--since': expected an ISO 8601 date or time in UTC, such as 2026-12-01 or 2026-12-01T10:00Z")
        }
        let engine = try makeEngine(o) { $0.defaultScripts = false; $0.checksRules = false }
        let format = o[.exportFormat] ?? "csv"
        let history: History
        do { history = History(try engine.store.existing()) } catch {
            Console.error("scanlua: \(engine.store.displayPath): \(error.message)\n")
            return ExitStatus.failure
        }
        // A delivery queued at scan time shows as it ended (done, failed, still queued): the
        // history keeps the record as written, the outbox the delivery's state since.
        let deliveries = (try? Outbox(history.database).states()) ?? [:]
        var first = true
        let neutralise = o[.csvRaw] != true
        if format == "csv" { Console.write(csvLine(History.Row.columns)) }
        if format == "json" { Console.write("[") }
        do {
            try history.rows(since: since.map { $0.hasSuffix("Z") ? String($0.dropLast()) : $0 },
                                                    type: o[.exportType]) { rows in
                for var r in rows {
                    if !deliveries.isEmpty { r.actions = Self.withDeliveryStates(r.actions, deliveries) }
                    switch format {
                    case "csv":
                        Console.write(csvLine([r.time, r.source, String(r.frame), r.page.map(String.init) ?? "", r.symbology, r.text, r.bytes, r.payloadType, r.payload, r.actions],
                                              neutralise: neutralise))
                    default:
                        let object = JSON.object([
                            ("time", .string(r.time)), ("source", .string(r.source)), ("frame", .int(r.frame)), ("page", r.page.map { .int($0) } ?? .null),
                            ("symbology", .string(r.symbology)), ("text", .string(r.text)), ("bytes", .string(r.bytes)),
                            ("payload_type", .string(r.payloadType)),
                            ("payload", JSON(parsing: Array(r.payload.utf8)) ?? .string(r.payload)),
                            ("actions", JSON(parsing: Array(r.actions.utf8)) ?? .string(r.actions)),
                        ])
                        Console.write(format == "json" ? (first ? "\n" : ",\n") + object.serialized : object.serialized + "\n")
                    }
                    first = false
                }
                _ = Console.flush()
            }
        } catch {
            Console.error("scanlua: \(engine.store.displayPath): \(error.message)\n")
            return ExitStatus.failure
        }
        if format == "json" { Console.write(first ? "]\n" : "\n]\n") }
        // A type that matched nothing is most often a wrong name (einvoice for tw-einvoice).
        if first, let type = o[.exportType], let present = try? history.types(), !present.contains(type) {
            Console.error("scanlua: --type \(type): no scan has that payload type; the history of \(engine.store.displayPath) has "
                          + (present.isEmpty ? "no scans" : present.joined(separator: ", ")) + "\n")
        }
        return ExitStatus.success
    }

    /// The actions JSON with each http/mqtt action's `status` as its outbox entry ended.
    static func withDeliveryStates(_ actions: String, _ states: [String: (state: Outbox.State, lastError: String?)]) -> String {
        guard actions.contains("idempotency_key"), case .array(let list)? = JSON(parsing: Array(actions.utf8)) else { return actions }
        return JSON.array(list.map { action in
            guard case .object(var pairs) = action, case .string(let key)? = action["idempotency_key"], let now = states[key],
                  let i = pairs.firstIndex(where: { $0.0 == "status" }) else { return action }
            pairs[i].1 = .string(now.state.word)
            switch now.state {
            case .delivered: pairs.removeAll { $0.0 == "reason" || $0.0 == "error" }
            case .failed:  // why it ended so: "gave up after 10 attempts: HTTP 503", not the scan-time reason
                pairs.removeAll { $0.0 == "reason" || $0.0 == "error" }
                if let e = now.lastError { pairs.append(("error", .string(e))) }
            case .pending:
                if let e = now.lastError, let r = pairs.firstIndex(where: { $0.0 == "reason" }) { pairs[r].1 = .string(e) }
            }
            return .object(pairs)
        }).serialized
    }

    /// One CSV record per RFC 4180: fields with a comma, quote, CR or LF are quoted, quotes doubled; CRLF ends it.
    /// `neutralise`: a field a spreadsheet would take for a formula gets a leading `'`.
    static func csvLine(_ fields: [String], neutralise: Bool = false) -> String {
        fields.map { field in
            let f = neutralise && isFormula(field) ? "'" + field : field
            // Neutralised, a field with a semicolon or a tab is quoted too: a spreadsheet in a
            // locale that splits at those would start a cell (a formula) after one.
            return f.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n"
                                       || (neutralise && ($0 == ";" || $0 == "\t")) })
                ? "\"" + f.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : f
        }.joined(separator: ",") + "\r\n"
    }

    /// What Excel, LibreOffice and Google Sheets run as a formula (OWASP's CSV injection list).
    static func isFormula(_ field: String) -> Bool {
        guard let c = field.unicodeScalars.first else { return false }
        return ["=", "+", "-", "@", "\t", "\r"].contains(c)
    }
}
