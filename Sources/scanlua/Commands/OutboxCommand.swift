import Foundation
import ScanCore
import ScanPipeline
import ScanScript
import ScanStore

/// `scanlua outbox`: the deliveries `http` and `mqtt` actions could not make yet.
enum OutboxCommand {
    static let command = Command(
        name: "outbox",
        abstract: "List, send or drop the http/mqtt deliveries waiting in the store's outbox.",
        usage: "scanlua outbox [--list | --failed | --flush | --retry ID | --drop ID] [script options]",
        options: Option.names(in: [.outbox]) + ["config", "db", "network", "trust", "max_delivery_attempts", "max_delivery_age"],
        notes: """
            Deliveries that met a refused connection, a timeout, a 408, 429 or 5xx, or a broker that was
            down wait in the outbox (the store's database: --db, the config's db, or the default store).
            A session retries them with backoff while it runs; --flush sends every queued one now, with
            the same Idempotency-Key as before. After --max-delivery-attempts (10) or --max-delivery-age
            (168 hours) a delivery is given up: failed, listed by --failed, queued again by --retry ID.
            The network allow-list (--network, the config's network, --trust) holds here too: name the
            config that has it. The config is read for its settings; its rules do not run here.
            Exit 1 while something is listed (queued, or failed with --failed) or left undelivered.
            """,
        run: run)

    static func run(_ args: inout ArgumentList, _ o: OptionValues) throws -> Int32 {
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let engine = try makeEngine(o) { $0.defaultScripts = false; $0.checksRules = false }
        let outbox: Outbox
        do { outbox = Outbox(try engine.store.existing()) } catch {
            Console.error("scanlua: \(engine.store.displayPath): \(error.message)\n")
            return ExitStatus.failure
        }
        if let id = o[.drop] {
            guard (try? outbox.drop(Int64(id))) == true else {
                Console.error("scanlua: the outbox of \(engine.store.displayPath) has no delivery \(id)\n")
                return ExitStatus.failure
            }
            Console.write("dropped \(id)\n")
            return ExitStatus.success
        }
        if let id = o[.retry] {
            guard (try? outbox.requeue(Int64(id))) == true else {
                Console.error("scanlua: the outbox of \(engine.store.displayPath) has no failed delivery \(id) (outbox --failed lists them)\n")
                return ExitStatus.failure
            }
            Console.write("queued \(id) again\n")
            return ExitStatus.success
        }
        if o[.flush] == true {
            let runner = ActionRunner(dryRun: false, trusted: engine.limits.trust)
            runner.store = engine.store
            runner.network = NetworkPolicy(list: o[.network] ?? engine.configOptions[.network], trusted: engine.limits.trust)
            if let n = o[.maxDeliveryAttempts] ?? engine.configOptions[.maxDeliveryAttempts] { runner.maxAttempts = n }
            if let h = o[.maxDeliveryAge] ?? engine.configOptions[.maxDeliveryAge] { runner.maxAge = h * 3600 }
            let (delivered, undelivered) = runner.retryDue(all: true)
            runner.close()
            Console.write("delivered \(delivered), undelivered \(undelivered)\n")
            return undelivered == 0 ? ExitStatus.success : ExitStatus.failure
        }
        let waiting: [Outbox.Entry]
        do { waiting = try o[.failed] == true ? outbox.failed() : outbox.queued() } catch {
            Console.error("scanlua: \(engine.store.displayPath): \(error.message)\n")
            return ExitStatus.failure
        }
        for e in waiting {
            Console.write("\(e.id)\t\(e.state.word)\t\(e.attempts) attempts\t\(e.kind) \(e.target)\trule \(e.rule)\t\(e.created)\t\(e.lastError ?? "")\n")
        }
        return waiting.isEmpty ? ExitStatus.success : ExitStatus.failure
    }
}
