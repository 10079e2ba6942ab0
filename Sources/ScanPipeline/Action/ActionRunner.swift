import Foundation
import ScanCore
import ScanStore

/// Carries out the actions rules return (``ActionType``), or with `--dry-run` only marks them.
///
/// `{type="append", path=..., line=...}` appends a line to a file below the working directory
/// (anywhere when trusted); `{type="stop"}` ends the scan after the current frame; `http` and
/// `mqtt` forward to a server or broker on the ``NetworkPolicy`` allow-list, through the durable
/// ``Outbox``. Each action in the record gains `status`: `done`, `dry-run`, `failed` (with
/// `error`) or, for a delivery kept for later, `queued` (with `reason`).
package final class ActionRunner {
    package let dryRun: Bool
    package let trusted: Bool
    /// Files no action may write, trusted or not: the config, scripts, the store's database.
    package var protectedPaths: [String] = []
    /// Set once a `stop` action ran: the session finishes the current frame and stops.
    package private(set) var stopRequested = false
    /// Where `http` and `mqtt` actions may connect.
    package var network = NetworkPolicy(patterns: [], trusted: false)
    /// The store whose database holds the outbox (opened at the first delivery).
    package var store = Store(path: Store.defaultPath)
    /// What sends deliveries (a fake one in unit tests).
    var forwarder: any Transport = Forwarder()
    private var notAllowedSaid: Set<String> = []
    /// The action types carried out; nil: all (`simulate` gives those of `--perform`: mock scans
    /// reach nothing unless asked). `stop` always runs. The others are marked `dry-run`, and
    /// stderr says so once per type.
    package var performs: Set<ActionType>?
    /// Give-up rules: a delivery that still fails after this many attempts, or older than this
    /// many seconds, is `failed` (listed by `outbox --failed`, re-queued by `outbox --retry ID`).
    package var maxAttempts = 10
    package var maxAge: TimeInterval = 7 * 24 * 3600
    private var notPerformedSaid: Set<ActionType> = []
    /// Sends deliveries off the session's path (``DeliveryThread``); nil: each is attempted here.
    var delivery: DeliveryThread?
    private var outbox: Outbox?

    package init(dryRun: Bool, trusted: Bool) {
        self.dryRun = dryRun
        self.trusted = trusted
    }

    /// Lua files (scripts and configs), SQLite files, and the given paths (wherever they resolve).
    static func isScriptOrStore(_ path: String, protected: [String]) -> Bool {
        let name = (path as NSString).lastPathComponent.lowercased()
        for suffix in [".lua", ".db", ".sqlite", ".sqlite3", ".db-wal", ".db-shm", ".db-journal"] where name.hasSuffix(suffix) {
            return true
        }
        // Where a file is or would be: its directory resolved, so files not made yet compare too.
        func located(_ file: String) -> String? {
            let parent = (file as NSString).deletingLastPathComponent
            return physicalPath(parent.isEmpty ? "." : parent).map { $0 + "/" + (file as NSString).lastPathComponent }
        }
        let target = located(path)
        return protected.contains { p in
            p == path || (target != nil && located(p) == target)
        }
    }

    /// Carries out one symbol's actions. `event` names the scan (source, frame, time, symbology,
    /// bytes): with the rule and the action it makes each delivery's idempotency key.
    package func carryOut(_ actions: [JSON], event: String = "") -> [JSON] {
        actions.enumerated().map { index, action in
            guard case .object(var pairs) = action else { return action }
            if dryRun {
                pairs.append(("status", .string("dry-run")))
                return .object(pairs)
            }
            if let performs, case .string(let t)? = action["type"], let type = ActionType(rawValue: t), type != .stop, !performs.contains(type) {
                if notPerformedSaid.insert(type).inserted {
                    let rule: String = { if case .string(let r)? = action["rule"] { return r }; return "?" }()
                    Console.error("scanlua: simulate: rule '\(rule)' returned a\(type == .append ? "n" : "") \(t) action: marked dry-run, not carried out"
                                  + " (mock scans reach nothing; --perform \(t) carries out \(t) actions)\n")
                }
                pairs.append(("status", .string("dry-run")))
                return .object(pairs)
            }
            if case .string(let t)? = action["type"], t == "http" || t == "mqtt" {
                return .object(pairs + deliver(action, key: Self.idempotencyKey(event: event, index: index, action: action)))
            }
            switch perform(action) {
            case nil: pairs.append(("status", .string("done")))
            case let error?:
                pairs.append(("status", .string("failed")))
                pairs.append(("error", .string(error)))
            }
            return .object(pairs)
        }
    }

    /// The same scan, rule and action always give the same key; another scan another key.
    static func idempotencyKey(event: String, index: Int, action: JSON) -> String {
        String(SHA256.hex(Array("\(event)\u{1}\(index)\u{1}\(action.serialized)".utf8)).prefix(32))
    }

    /// An `http` or `mqtt` action: checked, written to the outbox, sent; the fields its record gains.
    private func deliver(_ action: JSON, key: String) -> [(String, JSON)] {
        func failed(_ message: String) -> [(String, JSON)] { [("status", .string("failed")), ("error", .string(message))] }
        let rule: String = { if case .string(let r)? = action["rule"] { return r }; return "?" }()
        let request: Forwarder.Request
        switch Forwarder.request(from: action) {
        case .success(let r): request = r
        case .failure(.permanent(let m)), .failure(.retryable(let m)): return failed(m)
        }
        guard network.allows(request.endpoint) else {
            return failed("rule '\(rule)': \(request.endpoint) is not on the network allow-list (the config's"
                          + " scan.options { network = { ... } }, --network, or --trust); nothing was sent")
        }
        var fields: [(String, JSON)] = [("idempotency_key", .string(key))]
        // Written ahead of the attempt: a crash between sending and marking sends it again, same key.
        var entry: Outbox.Entry?
        var queueError: String?
        do throws(StoreError) {
            entry = try openOutbox().add(key: key, rule: rule, kind: request.type, target: request.target, action: action.serialized)
        } catch {
            queueError = "cannot keep it in the outbox: \(error.message)"
        }
        if let entry, entry.state == .delivered { return [("status", .string("done")), ("note", .string("delivered before"))] + fields }
        guard let entry else {
            // Not kept: one attempt here, and what it came to (never a silent loss).
            switch forwarder.send(request, key: key) {
            case .delivered(let status): return [("status", .string("done"))] + fields + (status.map { [("response_status", .int($0))] } ?? [])
            case .retry(let reason, _), .failed(let reason, _): return failed(reason + "; " + (queueError ?? ""))
            }
        }
        // With a delivery thread the session waits at most its `wait`; without one (outbox --flush)
        // the attempt runs here. Either way ``attempt(_:_:)`` sends it and records the outcome.
        let outcome: Forwarder.Outcome?
        if deliveryWait != nil { startDeliveries() }
        if let delivery { outcome = delivery.send(entry, request) } else { outcome = attempt(entry, request) }
        switch outcome {
        case nil:
            fields.insert(contentsOf: [("status", .string("queued")), ("reason", .string("no answer within \(delivery?.wait ?? 0) s: sent in the background")),
                                       ("outbox_id", .int(Int(entry.id)))], at: 0)
        case .delivered(let status)?:
            fields.insert(("status", .string("done")), at: 0)
            if let status { fields.append(("response_status", .int(status))) }
        case .retry(let reason, let status)?:
            if let why = giveUp(entry, now: Date()) {
                fields.insert(contentsOf: failed("\(why): \(reason)"), at: 0)
            } else {
                fields.insert(contentsOf: [("status", .string("queued")), ("reason", .string(reason)), ("outbox_id", .int(Int(entry.id)))], at: 0)
            }
            if let status { fields.append(("response_status", .int(status))) }
        case .failed(let reason, let status)?:
            fields.insert(contentsOf: failed(reason), at: 0)
            if let status { fields.append(("response_status", .int(status))) }
        }
        return fields
    }

    /// The one delivery path, for a first attempt and every retry: sends the entry's request
    /// (unless the allow-list refuses it: then nothing is contacted, and the entry says why) and
    /// records the outcome in the outbox: delivered, due again with backoff, or failed (for good,
    /// or given up after ``maxAttempts`` or ``maxAge``).
    func attempt(_ entry: Outbox.Entry, _ request: Forwarder.Request, now: Date = Date()) -> Forwarder.Outcome {
        let outbox: Outbox
        do { outbox = try openOutbox() } catch {
            report(error)
            return forwarder.send(request, key: entry.key)
        }
        let outcome = forwarder.send(request, key: entry.key)
        switch outcome {
        case .delivered(let status):
            keep(outbox, entry.id, state: .delivered, error: nil, responseStatus: status)
        case .retry(let reason, let status):
            if let why = giveUp(entry, now: now) {
                keep(outbox, entry.id, state: .failed, error: "\(why): \(reason)", responseStatus: status)
            } else {
                keep(outbox, entry.id, state: .pending, error: reason, responseStatus: status,
                                   retryAt: Self.retryTime(attempts: entry.attempts + 1, now: now))
            }
        case .failed(let reason, let status):
            keep(outbox, entry.id, state: .failed, error: reason, responseStatus: status)
        }
        return outcome
    }

    /// Exponential backoff: 1, 2, 4 ... seconds after the attempt, at most 5 minutes.
    static func retryTime(attempts: Int, now: Date = Date()) -> Double {
        now.timeIntervalSince1970 + min(300, pow(2, Double(max(0, attempts - 1))))
    }

    private func openOutbox() throws(StoreError) -> Outbox {
        if let outbox { return outbox }
        let o = Outbox(try store.db())
        outbox = o
        return o
    }

    /// Retries what this session queued (and anything else pending in its outbox) whose time
    /// has come; with `all`, every pending delivery now (`scanlua outbox --flush`).
    /// - Returns: how many were delivered, and how many are still undelivered.
    @discardableResult
    package func retryDue(all: Bool = false, now: Date = Date()) -> (delivered: Int, undelivered: Int) {
        // Entries earlier sessions left queued count too: the outbox is opened when its database
        // exists (an idle station restarted by systemd sends them), never created for this.
        if outbox == nil, let d = try? store.existing() { outbox = Outbox(d) }
        guard let outbox else { return (0, 0) }
        let due: [Outbox.Entry]
        do { due = try outbox.due(now: all ? .infinity : now.timeIntervalSince1970) } catch {
            report(error)
            return (0, 0)
        }
        var delivered = 0
        for entry in due {
            guard let action = JSON(parsing: Array(entry.action.utf8)) else {
                keep(outbox, entry.id, state: .failed, error: "the queued action is not JSON", responseStatus: nil)
                continue
            }
            let request: Forwarder.Request
            switch Forwarder.request(from: action) {
            case .success(let r): request = r
            case .failure(.permanent(let m)), .failure(.retryable(let m)):
                keep(outbox, entry.id, state: .failed, error: m, responseStatus: nil)
                continue
            }
            // The allow-list holds for queued deliveries too (the database is only a file); one not
            // on it now stays pending (an allow-list given later may name it) and is not contacted.
            guard network.allows(request.endpoint) else {
                let reason = "not sent: \(request.endpoint) is not on this run's network allow-list (--network, the config's network, or --trust)"
                report { () throws(StoreError) in try outbox.note(entry.id, error: reason) }
                if !notAllowedSaid.contains(request.endpoint.description) {
                    notAllowedSaid.insert(request.endpoint.description)
                    Console.error("scanlua: outbox: \(reason)\n")
                }
                continue
            }
            if case .delivered = attempt(entry, request, now: now) { delivered += 1 }
        }
        return (delivered, (try? outbox.queued().count) ?? 0)
    }

    /// Records an attempt's outcome in the outbox; a store that refuses is said on stderr (once per
    /// message), not dropped: the delivery's state would otherwise be wrong without a word.
    private func keep(_ outbox: Outbox, _ id: Int64, state: Outbox.State, error: String?, responseStatus: Int?, retryAt: Double = 0) {
        report { () throws(StoreError) in try outbox.record(id, state: state, error: error, responseStatus: responseStatus, retryAt: retryAt) }
    }

    private var storeErrorsSaid: Set<String> = []
    private func report(_ body: () throws(StoreError) -> Void) {
        do throws(StoreError) { try body() } catch { report(error) }
    }
    private func report(_ error: StoreError) {
        if storeErrorsSaid.insert(error.message).inserted {
            Console.error("scanlua: outbox of \(store.displayPath): \(error.message) (deliveries go on; their state there may lag)\n")
        }
    }

    /// Why a delivery that failed again is given up, or nil to keep trying.
    func giveUp(_ entry: Outbox.Entry, now: Date) -> String? {
        if entry.attempts + 1 >= maxAttempts { return "gave up after \(entry.attempts + 1) attempts" }
        if let created = Self.sqlTime(entry.created), now.timeIntervalSince(created) > maxAge {
            return "gave up: older than \(Int(maxAge / 3600)) hours"
        }
        return nil
    }

    /// The outbox's `created` column (`YYYY-MM-DD HH:MM:SS`, UTC, or ISO 8601 with T).
    static func sqlTime(_ text: String) -> Date? {
        // The first 19 characters are the time in UTC whatever follows: `2026-12-02T09:11:34Z`
        // (SQLite's strftime), `2026-12-02 09:11:34` or PostgreSQL's `... 09:11:34.123+00`.
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return f.date(from: String(text.prefix(19)).replacingOccurrences(of: "T", with: " "))
    }

    /// Deliveries of this session's outbox not yet delivered (0 when none was queued).
    package var undelivered: Int { outbox.flatMap { try? $0.queued().count } ?? 0 }

    /// Closes broker connections.
    package func close() { forwarder.close() }

    /// How long a session waits for a delivery's answer (`--delivery-wait`); nil: deliveries are
    /// attempted on the caller's thread (outbox --flush).
    package var deliveryWait: TimeInterval?

    /// Starts the delivery thread (once): from now on deliveries leave the session's path, and
    /// what waits in the outbox is retried also while the session is idle.
    package func startDeliveries() {
        guard delivery == nil, let wait = deliveryWait, !dryRun else { return }
        delivery = DeliveryThread(storePath: store.path, sandboxed: store.sandboxed, network: network,
                                  maxAttempts: maxAttempts, maxAge: maxAge, wait: wait)
    }

    /// Ends the delivery thread: what was handed over is attempted for at most `seconds`.
    /// Returns false when some was still in flight (it stays queued in the outbox).
    @discardableResult
    package func finishDeliveries(upTo seconds: TimeInterval) -> Bool {
        guard let d = delivery else { return true }
        delivery = nil
        let left = d.finish(waitingUpTo: seconds)
        // What was still in flight counts as an attempt (a server that never answers reaches the
        // give-up rules over many short sessions), due again with backoff.
        if !left.isEmpty, let outbox = try? openOutbox() {
            for entry in left {
                keep(outbox, entry.id, state: .pending, error: "no answer before the session ended", responseStatus: nil,
                     retryAt: Self.retryTime(attempts: entry.attempts + 1))
            }
        }
        return left.isEmpty
    }

    /// Performs one action; returns nil on success or the reason it failed.
    private func perform(_ action: JSON) -> String? {
        guard case .string(let name)? = action["type"] else { return "action has no type" }
        guard let type = ActionType(rawValue: name) else { return "unknown action type '\(name)'" }
        switch type {
        case .stop:
            stopRequested = true
            return nil
        case .http, .mqtt:
            return nil  // carried out by deliver
        case .append:
            guard case .string(let path)? = action["path"], !path.isEmpty else { return "append needs a 'path' string" }
            guard case .string(let line)? = action["line"] else { return "append needs a 'line' string" }
            if !trusted && (path.hasPrefix("/") || path.split(separator: "/").contains("..")) {
                return "\(path): append is limited to paths below the working directory (use --trust to lift this)"
            }
            // A rule must not be able to change what the next run loads or its store.
            if Self.isScriptOrStore(path, protected: protectedPaths) {
                return "\(path): an action cannot write a script, a config or a database"
            }
            // Below the working directory physically, not only as text (a linked directory leads out).
            let directory = (path as NSString).deletingLastPathComponent
            if !trusted && !isPhysically(directory.isEmpty ? "." : directory, inside: FileManager.default.currentDirectoryPath) {
                return "\(path): append is limited to paths below the working directory (\(directory) leads out of it)"
            }
            return appendLine(line, toFile: path).map { "\(path): \($0)" }
        }
    }
}

@available(*, unavailable) extension ActionRunner: Sendable {}
