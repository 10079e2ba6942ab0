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
        usage: "scanlua outbox [--list | --flush | --drop ID] [script options]",
        options: Option.names(in: [.outbox]) + ["config", "db", "network", "trust"],
        notes: """
            Deliveries that met a refused connection, a timeout, a 408, 429 or 5xx, or a broker that was
            down wait in the outbox (the store's database: --db, the config's db, or the default store).
            A session retries them with backoff while it runs; --flush sends every pending one now, with
            the same Idempotency-Key as before. The network allow-list (--network, the config's network,
            --trust) holds here too. Exit 1 while something is undelivered (pending or failed).
            """,
        run: run)

    static func run(_ args: inout ArgumentList, _ o: OptionValues) throws -> Int32 {
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let engine = try makeEngine(o) { $0.defaultScripts = false }
        let outbox: Outbox
        do { outbox = Outbox(try engine.store.existing()) } catch {
            Console.error("scanlua: \(engine.store.displayPath): \(error.message)\n")
            return ExitStatus.failure
        }
        if let id = o.int("drop") {
            guard (try? outbox.drop(Int64(id))) == true else {
                Console.error("scanlua: the outbox of \(engine.store.displayPath) has no delivery \(id)\n")
                return ExitStatus.failure
            }
            Console.write("dropped \(id)\n")
            return ExitStatus.success
        }
        if o.bool("flush") == true {
            let runner = ActionRunner(dryRun: false, trusted: engine.limits.trust)
            runner.store = engine.store
            runner.network = NetworkPolicy(list: o.string("network") ?? engine.configOptions.string("network"), trusted: engine.limits.trust)
            let (delivered, undelivered) = runner.retryDue(all: true)
            runner.close()
            Console.write("delivered \(delivered), undelivered \(undelivered)\n")
            return undelivered == 0 ? ExitStatus.success : ExitStatus.failure
        }
        let waiting: [Outbox.Entry]
        do { waiting = try outbox.undelivered() } catch {
            Console.error("scanlua: \(engine.store.displayPath): \(error.message)\n")
            return ExitStatus.failure
        }
        for e in waiting {
            Console.write("\(e.id)\t\(e.state.rawValue)\t\(e.attempts) attempts\t\(e.kind) \(e.target)\trule \(e.rule)\t\(e.created)\t\(e.lastError ?? "")\n")
        }
        return waiting.isEmpty ? ExitStatus.success : ExitStatus.failure
    }
}
