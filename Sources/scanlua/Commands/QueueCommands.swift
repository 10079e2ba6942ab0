import Foundation
import ScanCore
import ScanPipeline

/// `scanlua enqueue`, `scanlua worker` and `scanlua results`: scanning through a Redis Streams
/// work queue (``JobQueue``, ``QueueWorker``).
enum QueueCommands {
    /// The queue of --redis and --stream. `waiting`: a Redis that cannot be reached yet is tried
    /// again with backoff (a worker started before its Redis, or during a restart), saying so once.
    static func queue(_ o: OptionValues, waiting: Bool = false) throws -> JobQueue {
        guard let url = o[.redis] else { throw UsageError("missing --redis URL (redis://host:port)") }
        var backoff = 1.0, said = false
        while true {
            do throws(RedisError) { return JobQueue(redis: try RedisConnection(url: url), stream: o[.jobsStream] ?? "scanlua:jobs") } catch {
                guard waiting, error.connectionLost, Signals.received == nil else { throw QueueFailure(message: error.message) }
                if !said { Console.error("scanlua: \(error.message); waiting for it (retrying with backoff up to 30 s)\n"); said = true }
                let until = Date().addingTimeInterval(backoff)
                while Date() < until && Signals.received == nil { Thread.sleep(forTimeInterval: 0.1) }
                backoff = min(30, backoff * 2)
            }
        }
    }

    struct QueueFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    static let enqueue = Command(
        name: "enqueue",
        abstract: "Add one job per image to a Redis stream, for scanlua worker.",
        usage: "scanlua enqueue --redis URL [--stream NAME] [--inline] PATH...",
        arguments: """
            ARGUMENTS:
              PATH                    Images and directories, expanded as scan does (one job per image file).
            """,
        options: ["redis", "jobs_stream", "inline"],
        notes: """
            Prints the number of jobs added. Without --inline a job holds the path: workers must see
            the same files.
            """,
        run: { args, o in
            guard !args.positionals.isEmpty else { throw UsageError("missing PATH: name images or directories") }
            let q = try queue(o)
            var added = 0
            for input in Input.expand(args.positionals) {
                guard case .file(let path) = input else {
                    Console.error("scanlua: \(input.name): not queued (\(input == .stdin ? "stdin is not a file" : "cannot be read"))\n")
                    continue
                }
                var fields: [(String, [UInt8])]
                if o[.inline] == true {
                    guard let data = FileManager.default.contents(atPath: path) else {
                        Console.error("scanlua: \(path): cannot read it\n")
                        continue
                    }
                    fields = [("name", Array(path.utf8)), ("data", Array(data))]
                } else {
                    // Absolute: a worker started in another directory reads the same file.
                    fields = [("path", Array(URL(fileURLWithPath: path).standardizedFileURL.path.utf8))]
                }
                do throws(RedisError) { _ = try q.enqueue(fields) } catch { throw QueueFailure(message: error.message) }
                added += 1
            }
            Console.write("enqueued \(added)\n")
            return ExitStatus.success
        })

    static let worker = Command(
        name: "worker",
        abstract: "Scan the jobs of a Redis stream in a consumer group; results to the stream's results stream.",
        usage: "scanlua worker --redis URL [queue options] [decoding options] [script options]",
        options: ["redis", "jobs_stream", "group", "consumer", "claim_after", "idle_exit", "max_attempts", "worker_root"]
            + Option.names(in: [.decoding, .scripts]),
        notes: """
            Each job's records and its acknowledgement are written in one atomic step: every job gets
            exactly one result, even when a worker is killed at any point (its jobs are reclaimed by
            another worker after --claim-after). A Redis that is down at start or restarts is waited for
            and reconnected to with backoff (1, 2, 4 ... 30 s). One scan session serves the worker's
            life: scan.on_start before the first job, scan.on_stop at the end with the totals; each
            result's count is its job's records. Exit 0 after --idle-exit, 128+N on signal N.
            """,
        run: { args, o in
            if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
            let engine = try makeEngine(o)
            let q = try queue(o, waiting: true)
            if let signal = Signals.received { return 128 + signal }
            let settings = try makeSession(o, engine: engine, defaults: OptionValues([("duplicates", .string("all"))])).settings
            // Anyone who can add to the stream names the files this worker reads: confine them.
            let root = o[.workerRoot] ?? engine.configOptions[.workerRoot]
            if let root {
                guard let real = physicalPath(root), FileManager.default.fileExists(atPath: real + "/.") else {
                    throw UsageError("--root \(root): not a folder")
                }
            } else {
                Console.error("scanlua: worker: no --root: a job may name any file this worker can read\n")
            }
            let host = ProcessInfo.processInfo.hostName
            let worker = QueueWorker(queue: q, group: o[.group] ?? "scanlua", consumer: o[.consumer] ?? "\(host)-\(getpid())",
                                     claimAfter: o[.claimAfter] ?? 60, idleExit: o[.idleExit],
                                     maxAttempts: o[.maxAttempts] ?? 3, root: root.flatMap(physicalPath)) { sink in
                ScanSession(settings: settings, engine: engine, sink: sink)
            }
            do throws(RedisError) { try worker.run(stop: { Signals.received != nil }) } catch {
                Console.error("scanlua: worker: \(error.message)\n")
                return ExitStatus.failure
            }
            Console.error("scanlua: worker: \(worker.finished) jobs done, \(worker.deadLettered) to the dead letters\n")
            if let signal = Signals.received { return 128 + signal }
            return ExitStatus.success
        })

    static let results = Command(
        name: "results",
        abstract: "Print the records workers wrote to a jobs stream's results, as NDJSON.",
        usage: "scanlua results --redis URL [--stream NAME] [--after ID] [--follow]",
        options: ["redis", "jobs_stream", "after", "follow"],
        notes: """
            Each record line as scan prints it, job after job in the order they were finished. The last
            line on stderr names the last result's ID: --after ID prints only what came after it.
            """,
        run: { args, o in
            if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
            let follow = o[.follow] == true
            // Following, a Redis that is down or restarts is waited for, as a worker waits.
            let q = try queue(o, waiting: follow)
            var last = o[.after] ?? "-"
            defer { if last != "-" && last != o[.after] { Console.error("scanlua: results up to \(last) (--after \(last) continues from there)\n") } }
            var backoff = 1.0
            func lost(_ error: RedisError) throws {
                guard follow, error.connectionLost, Signals.received == nil else { throw QueueFailure(message: error.message) }
                Console.error("scanlua: results: \(error.message); reconnecting in \(Int(backoff)) s\n")
                let until = Date().addingTimeInterval(backoff)
                while Date() < until && Signals.received == nil { Thread.sleep(forTimeInterval: 0.1) }
                backoff = min(30, backoff * 2)
                if (try? q.redis.reconnect()) != nil { backoff = 1 }  // still down: the next call says so again
            }
            while Signals.received == nil {
                let entries: [JobQueue.Entry]
                do throws(RedisError) { entries = try q.results(after: last) } catch { try lost(error); continue }
                for e in entries {
                    if let records = e.text("records"), !records.isEmpty { Console.write(records + "\n") }
                    last = e.id
                }
                if Console.flush() != nil { return ExitStatus.failure }
                if entries.isEmpty {
                    guard o[.follow] == true, Signals.received == nil else { break }
                    // A blocking read (XREAD BLOCK): new results are printed as they come.
                    do throws(RedisError) { _ = try q.waitForResults(after: last, milliseconds: 1000) } catch { try lost(error) }
                }
            }
            return Signals.received.map { 128 + $0 } ?? ExitStatus.success
        })
}
