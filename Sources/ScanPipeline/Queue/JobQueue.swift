import Foundation
import ScanCore

/// What the queue needs of Redis: ``RedisConnection``, or a fake in the worker's unit tests.
package protocol RedisClient: AnyObject {
    var url: String { get }
    /// Sends one command (binary-safe arguments); a lost connection throws with `connectionLost`.
    func command(_ args: [[UInt8]]) throws(RedisError) -> RedisReply
    /// Opens the connection again after it was lost.
    func reconnect() throws(RedisError)
}

extension RedisClient {
    package func command(_ args: [String]) throws(RedisError) -> RedisReply { try command(args.map { Array($0.utf8) }) }
}

/// A Redis Streams work queue of images: `scanlua enqueue` adds jobs, `scanlua worker` processes
/// them in a consumer group, `scanlua results` reads what they made.
///
/// A job is a stream entry with `path` (a file the workers can read) or `name` and `data` (the
/// image's bytes, for workers on other hosts). A worker writes the job's records to the results
/// stream and acknowledges the job in one atomic step (a Lua script: XACK, and XADD only if the
/// XACK acknowledged it), so a job has exactly one result even when a worker dies at any point,
/// or a slow worker finishes a job another one reclaimed meanwhile.
package struct JobQueue {
    package let redis: any RedisClient
    /// The jobs stream (`--stream`, default `scanlua:jobs`).
    package let stream: String
    /// The results stream of these jobs: `scanlua:results` for the default jobs stream, else the
    /// jobs stream's name and `:results` (two queues never share their results).
    package var results: String { stream == "scanlua:jobs" ? "scanlua:results" : stream + ":results" }
    /// Where jobs that failed `maxAttempts` times go, with their error.
    package var deadLetters: String { stream + ":dead" }

    package init(redis: any RedisClient, stream: String = "scanlua:jobs") {
        self.redis = redis
        self.stream = stream
    }

    /// Adds one job; returns its id.
    package func enqueue(_ fields: [(String, [UInt8])]) throws(RedisError) -> String {
        let reply = try redis.command([Array("XADD".utf8), Array(stream.utf8), Array("*".utf8)] + fields.flatMap { [Array($0.0.utf8), $0.1] })
        if case .error(let e) = reply { throw RedisError(message: "XADD \(stream): \(e)") }
        return reply.text ?? ""
    }

    /// One stream entry: id and fields.
    package struct Entry: Sendable {
        package var id: String
        package var fields: [String: [UInt8]]
        package func text(_ k: String) -> String? { fields[k].map { String(decoding: $0, as: UTF8.self) } }
    }

    static func entries(_ reply: RedisReply) -> [Entry] {
        reply.items.compactMap { e in
            let parts = e.items
            guard parts.count == 2, let id = parts[0].text else { return nil }
            var fields: [String: [UInt8]] = [:]
            let flat = parts[1].items
            for i in stride(from: 0, to: flat.count - 1, by: 2) {
                if let k = flat[i].text, case .string(let v) = flat[i + 1] { fields[k] = v }
            }
            return Entry(id: id, fields: fields)
        }
    }

    /// The results stream from `after` (exclusive; "-" for the start), at most `count` entries.
    /// Waits up to `milliseconds` for a result after `after` (XREAD BLOCK); returns whether one came.
    package func waitForResults(after: String, milliseconds: Int) throws(RedisError) -> Bool {
        let reply = try redis.command(["XREAD", "COUNT", "1", "BLOCK", String(milliseconds), "STREAMS", results, after == "-" ? "0-0" : after])
        if case .error(let e) = reply { throw RedisError(message: "XREAD \(results): \(e)") }
        return reply != .null && !reply.items.isEmpty
    }

    package func results(after: String, count: Int = 1000) throws(RedisError) -> [Entry] {
        let start = after == "-" ? "-" : "(" + after
        let reply = try redis.command(["XRANGE", results, start, "+", "COUNT", String(count)])
        if case .error(let e) = reply { throw RedisError(message: "XRANGE \(results): \(e)") }
        return Self.entries(reply)
    }
}

/// Collects a job's records as NDJSON lines.
final class CollectingSink: RecordSink {
    var lines: [String] = []
    func write(_ record: ScanRecord) {
        var out: [UInt8] = []
        record.write(to: &out)
        lines.append(String(decoding: out, as: UTF8.self))
    }
}

/// `scanlua worker`: reads jobs with XREADGROUP, reclaims those of dead consumers with
/// XAUTOCLAIM after `claimAfter` seconds idle, scans each through `session`, and writes its
/// result atomically with the acknowledgement.
package final class QueueWorker {
    let queue: JobQueue
    let group: String
    let consumer: String
    let claimAfter: Double
    let idleExit: Double?
    let maxAttempts: Int
    /// The folder (a real path) job paths must lie in, when set (`--root`).
    let root: String?
    let makeSession: (RecordSink) -> ScanSession

    /// Jobs this worker finished (result written), and sent to the dead letters.
    package private(set) var finished = 0
    package private(set) var deadLettered = 0

    /// Acknowledges the job and adds its result only if the acknowledgement took: KEYS jobs,
    /// results; ARGV group, job id, then the result's field/value pairs.
    static let finishScript = """
        if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 1 then
          redis.call('XADD', KEYS[2], '*', unpack(ARGV, 3))
          return 1
        end
        return 0
        """

    package init(queue: JobQueue, group: String, consumer: String, claimAfter: Double, idleExit: Double?, maxAttempts: Int,
                root: String? = nil, makeSession: @escaping (RecordSink) -> ScanSession) {
        self.root = root
        (self.queue, self.group, self.consumer, self.claimAfter) = (queue, group, consumer, claimAfter)
        (self.idleExit, self.maxAttempts, self.makeSession) = (idleExit, maxAttempts, makeSession)
    }

    /// Runs until `idleExit` seconds pass with no job, or a signal. A Redis that restarts or goes
    /// away is reconnected to with backoff (1, 2, 4 ... 30 s), said once on stderr; a job whose
    /// result could not be written stays pending and is done again (one result still: the
    /// result is written with its acknowledgement). Throws on other Redis errors.
    /// One scan session serves the worker's whole life: `scan.on_start` runs once before the first
    /// job, `scan.on_stop` once at the end with the totals, broker connections stay open.
    package func run(stop: () -> Bool) throws(RedisError) {
        let sink = CollectingSink()
        let session = makeSession(sink)
        defer { session.end() }
        var backoff = 1.0
        while !stop() {
            do throws(RedisError) {
                try serve(stop: stop, session: session, sink: sink)
                return
            } catch where error.connectionLost {
                Console.error("scanlua: worker \(consumer): \(error.message); reconnecting in \(Int(backoff)) s\n")
                let until = Date().addingTimeInterval(backoff)
                while Date() < until && !stop() { Thread.sleep(forTimeInterval: 0.1) }
                backoff = min(30, backoff * 2)
                do throws(RedisError) {
                    try queue.redis.reconnect()
                    Console.error("scanlua: worker \(consumer): reconnected to \(queue.redis.url)\n")
                    backoff = 1
                } catch where error.connectionLost { continue }
            }
        }
    }

    private func serve(stop: () -> Bool, session: ScanSession, sink: CollectingSink) throws(RedisError) {
        let redis = queue.redis
        let created = try redis.command(["XGROUP", "CREATE", queue.stream, group, "0", "MKSTREAM"])
        if case .error(let e) = created, !e.hasPrefix("BUSYGROUP") { throw RedisError(message: "XGROUP CREATE: \(e)") }
        var idleSince = Date()
        while !stop() {
            // Jobs of consumers that died (pending longer than claimAfter) come first.
            let claimed = try redis.command(["XAUTOCLAIM", queue.stream, group, consumer, String(Int(claimAfter * 1000)), "0-0", "COUNT", "1"])
            if case .error(let e) = claimed { throw RedisError(message: "XAUTOCLAIM: \(e)") }
            var jobs = JobQueue.entries(claimed.items.count > 1 ? claimed.items[1] : .null)
            let reclaimed = !jobs.isEmpty
            if jobs.isEmpty {
                let read = try redis.command(["XREADGROUP", "GROUP", group, consumer, "COUNT", "1", "BLOCK", "500", "STREAMS", queue.stream, ">"])
                if case .error(let e) = read { throw RedisError(message: "XREADGROUP: \(e)") }
                jobs = read.items.flatMap { JobQueue.entries($0.items.count > 1 ? $0.items[1] : .null) }
            }
            if jobs.isEmpty {
                if let idleExit, Date().timeIntervalSince(idleSince) >= idleExit { return }
                continue
            }
            for job in jobs { try process(job, reclaimed: reclaimed, session: session, sink: sink) }
            idleSince = Date()
        }
    }

    private func process(_ job: JobQueue.Entry, reclaimed: Bool, session: ScanSession, sink: CollectingSink) throws(RedisError) {
        let redis = queue.redis
        // How often the group handed this job out: a job that keeps killing its workers stops here.
        // A job read new (XREADGROUP >) is on its first delivery: only a reclaimed one needs asking.
        var deliveries = 1
        if reclaimed {
            let pending = try redis.command(["XPENDING", queue.stream, group, job.id, job.id, "1"])
            deliveries = pending.items.first?.items.dropFirst(3).first.flatMap { if case .integer(let n) = $0 { return n }; return nil } ?? 1
        }
        let input: Input
        if let path = job.text("path") {
            // The file as opened (one descriptor, its real path checked): a link or .. inside the
            // root that leads out is outside, even one swapped in while the job waits.
            if let root {
                // Named outside (existing or not: no answer tells what exists out there)?
                let parent = (path as NSString).deletingLastPathComponent
                let named = physicalPath(path) ?? physicalPath(parent.isEmpty ? "." : parent).map { $0 + "/" + (path as NSString).lastPathComponent }
                let outside = named.map { !($0 + "/").hasPrefix(root.hasSuffix("/") ? root : root + "/") } ?? true
                switch outside ? .failure(FileReadFailure(reason: "outside the worker's --root \(root)")) : readRegularFile(path, within: root) {
                case .success(let bytes): input = .data(Data(bytes), name: path)
                case .failure(let f): input = .missing(path, reason: f.reason)
                }
            } else {
                input = .file(path)
            }
        } else if let data = job.fields["data"] {
            input = .data(Data(data), name: job.text("name") ?? "job-\(job.id)")
        } else {
            try deadLetter(job, "the job has neither a path nor data field")
            return
        }
        if deliveries > maxAttempts {
            try deadLetter(job, "delivered \(deliveries) times without a result (the workers that took it died)")
            return
        }
        sink.lines.removeAll()
        session.run(FileListSource(inputs: [input], name: job.text("path") ?? job.text("name") ?? job.id), continuing: true)
        let records = sink.lines.joined(separator: "\n")
        let reply = try redis.command([Array("EVAL".utf8), Array(Self.finishScript.utf8), Array("2".utf8), Array(queue.stream.utf8),
                                       Array(queue.results.utf8), Array(group.utf8), Array(job.id.utf8),
                                       Array("job".utf8), Array(job.id.utf8), Array("source".utf8), Array((job.text("path") ?? job.text("name") ?? "").utf8),
                                       Array("worker".utf8), Array(consumer.utf8), Array("count".utf8), Array(String(sink.lines.count).utf8),
                                       Array("records".utf8), Array(records.utf8)])
        if case .error(let e) = reply { throw RedisError(message: "finishing job \(job.id): \(e)") }
        if reply == .integer(1) { finished += 1 }
    }

    private func deadLetter(_ job: JobQueue.Entry, _ error: String) throws(RedisError) {
        let fields = job.fields.sorted { $0.key < $1.key }.flatMap { [Array($0.key.utf8), $0.value] }
        let reply = try queue.redis.command([Array("EVAL".utf8), Array(Self.finishScript.utf8), Array("2".utf8), Array(queue.stream.utf8),
                                             Array(queue.deadLetters.utf8), Array(group.utf8), Array(job.id.utf8),
                                             Array("job".utf8), Array(job.id.utf8), Array("error".utf8), Array(error.utf8)] + fields)
        if case .error(let e) = reply { throw RedisError(message: "dead-lettering job \(job.id): \(e)") }
        if reply == .integer(1) { deadLettered += 1 }
        Console.error("scanlua: worker \(consumer): job \(job.id) to \(queue.deadLetters): \(error)\n")
    }
}
