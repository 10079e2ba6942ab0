import Foundation
import ScanCore
import ScanScript
import XCTest
@testable import ScanPipeline

/// Issue 22: the worker's rules against an in-memory Redis (no server), beside the end-to-end
/// RedisWorkerTests: one result per job, reconnecting after a lost connection, dead letters.
final class QueueWorkerTests: PipelineTestCase {
    /// The stream commands the worker sends, kept in memory; the finishing script's logic (XACK,
    /// then XADD only if that acknowledged the job) done in Swift. `dropConnection` makes the next
    /// commands fail as a restarted Redis would, until `reconnect()`.
    final class FakeRedis: RedisClient {
        let url = "redis://fake"
        var streams: [String: [(id: String, fields: [[UInt8]])]] = [:]
        /// Pending entries per stream: id -> (consumer, deliveries).
        var pending: [String: [String: (consumer: String, deliveries: Int)]] = [:]
        var delivered: [String: Int] = [:]  // per stream: how many entries XREADGROUP handed out
        var next = 1
        var dropConnection = false
        var reconnects = 0

        func reconnect() throws(RedisError) {
            reconnects += 1
            dropConnection = false
        }

        private func add(_ stream: String, _ fields: [[UInt8]]) -> String {
            let id = "\(next)-0"
            next += 1
            streams[stream, default: []].append((id, fields))
            return id
        }

        private func entry(_ e: (id: String, fields: [[UInt8]])) -> RedisReply {
            .array([.string(Array(e.id.utf8)), .array(e.fields.map { .string($0) })])
        }

        func command(_ args: [[UInt8]]) throws(RedisError) -> RedisReply {
            if dropConnection { throw RedisError(message: "\(url): Server closed the connection", connectionLost: true) }
            let a = args.map { String(decoding: $0, as: UTF8.self) }
            switch a[0] {
            case "XGROUP": return .status("OK")
            case "XADD": return .string(Array(add(a[1], Array(args.dropFirst(3))).utf8))
            case "XAUTOCLAIM": return .array([.string(Array("0-0".utf8)), .array([])])
            case "XREADGROUP":
                let stream = a[a.count - 2], consumer = a[3]
                let all = streams[stream] ?? []
                let from = delivered[stream] ?? 0
                guard from < all.count else { return .null }
                delivered[stream] = from + 1
                let e = all[from]
                pending[stream, default: [:]][e.id] = (consumer, 1)
                return .array([.array([.string(Array(stream.utf8)), .array([entry(e)])])])
            case "XPENDING": return .array([])
            case "EVAL":
                // KEYS: jobs, results (or dead letters); ARGV: group, job id, fields...
                let jobs = a[3], target = a[4], id = a[6]
                guard pending[jobs]?.removeValue(forKey: id) != nil else { return .integer(0) }
                _ = add(target, Array(args.dropFirst(7)))
                return .integer(1)
            default: return .error("ERR fake does not know \(a[0])")
            }
        }

        func results(_ stream: String) -> [[String: String]] {
            (streams[stream] ?? []).map { e in
                var out: [String: String] = [:]
                for i in stride(from: 0, to: e.fields.count - 1, by: 2) {
                    out[String(decoding: e.fields[i], as: UTF8.self)] = String(decoding: e.fields[i + 1], as: UTF8.self)
                }
                return out
            }
        }
    }

    func worker(_ redis: FakeRedis, engine: ScriptEngine, settings: SessionSettings, idleExit: Double = 0.3) -> QueueWorker {
        QueueWorker(queue: JobQueue(redis: redis), group: "scanlua", consumer: "test", claimAfter: 60, idleExit: idleExit, maxAttempts: 3) { sink in
            ScanSession(settings: settings, engine: engine, sink: sink)
        }
    }

    func testEachJobGetsOneResultAndALostConnectionIsReconnected() throws {
        let redis = FakeRedis()
        let queue = JobQueue(redis: redis)
        for name in ["qrcode.png", "ean13.png", "several.png"] { _ = try queue.enqueue([("path", Array(Fixtures.path(name).utf8))]) }
        let engine = try makeEngine("")
        let w = worker(redis, engine: engine, settings: try settings())
        // The connection breaks after the first job: the worker reconnects and goes on.
        var jobsSeen = 0
        try w.run(stop: {
            if redis.results("scanlua:results").count == 1 && jobsSeen == 0 { jobsSeen = 1; redis.dropConnection = true }
            return false
        })
        let results = redis.results("scanlua:results")
        XCTAssertEqual(results.map { ($0["source"] ?? "" as String).split(separator: "/").last.map(String.init) ?? "" },
                       ["qrcode.png", "ean13.png", "several.png"])
        XCTAssertEqual(results.first?["count"], "1")
        XCTAssertTrue(results.first?["records"]?.contains(#""text":"https://example.com/scanlua""#) == true)
        XCTAssertEqual(redis.reconnects, 1)
        XCTAssertEqual(w.finished, 3)
        XCTAssertTrue(redis.pending["scanlua:jobs"]?.isEmpty ?? true, "every job acknowledged")
    }

    func testAJobWithoutPathOrDataIsADeadLetter() throws {
        let redis = FakeRedis()
        _ = try JobQueue(redis: redis).enqueue([("note", Array("no image".utf8))])
        let w = worker(redis, engine: try makeEngine(""), settings: try settings())
        try w.run(stop: { false })
        XCTAssertEqual(redis.results("scanlua:jobs:dead").first?["error"], "the job has neither a path nor data field")
        XCTAssertEqual(redis.results("scanlua:results").count, 0)
        XCTAssertEqual(w.deadLettered, 1)
    }
}

/// Issue 22 item 10: a live source's drops show while the session runs (watch's status line and
/// the preview's /status read them after each frame; they were 0 until the end).
final class LiveDropsTests: PipelineTestCase {
    /// A camera-like source: live, and its driver drops two frames before each it delivers.
    final class DroppingCamera: FrameSource {
        let name = "/dev/fake"
        var isLive: Bool { true }
        private(set) var dropped = 0
        let image: GrayImage
        private var index = 0
        init(image: GrayImage) { self.image = image }
        func next(deadline: Date?) throws(SourceError) -> SourceItem? {
            guard index < 5 else { return nil }
            defer { index += 1 }
            dropped += 2
            return .frame(Frame(info: FrameInfo(source: name, index: index, width: image.width, height: image.height), image: image))
        }
    }

    func testDropsAreCountedWhileTheSessionRuns() throws {
        let session = ScanSession(settings: try settings(), engine: try makeEngine(""), sink: CapturingSink())
        var seen: [Int] = []
        session.onFrame = { report, _ in seen.append(report.dropped) }
        let report = session.run(DroppingCamera(image: try Fixtures.image("qrcode.png")))
        // Frames the scanner itself skipped (the decoders behind a live source) add to the driver's 10.
        XCTAssertEqual(seen.count + (report.dropped - 10), 5, "every frame delivered or counted: \(seen), \(report.dropped)")
        XCTAssertGreaterThan(seen.first ?? 0, 0, "the first frame's report already has the driver's drops")
        XCTAssertEqual(seen, seen.sorted(), "the count only grows")
    }
}
