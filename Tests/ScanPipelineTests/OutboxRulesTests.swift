import Foundation
import ScanCore
import ScanStore
import XCTest
@testable import ScanPipeline

/// Issue 22: the outbox's rules against a fake transport (no server): one delivery path for the
/// first attempt and the retries, backoff, give-up rules and delivered-before.
final class OutboxRulesTests: XCTestCase {
    /// Answers with the outcomes it is given, in order, and keeps what it was asked to send.
    final class FakeTransport: Transport {
        var outcomes: [Forwarder.Outcome]
        var sent: [(String, String)] = []
        init(_ outcomes: [Forwarder.Outcome]) { self.outcomes = outcomes }
        func send(_ request: Forwarder.Request, key: String) -> Forwarder.Outcome {
            sent.append((request.target, key))
            return outcomes.isEmpty ? .delivered(status: 200) : outcomes.removeFirst()
        }
        func close() {}
    }

    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func runner(_ transport: FakeTransport, maxAttempts: Int = 3) -> ActionRunner {
        let r = ActionRunner(dryRun: false, trusted: false)
        r.store = Store(path: dir.appendingPathComponent("o.db").path)
        r.network = NetworkPolicy(patterns: ["hooks.example"], trusted: false)
        r.maxAttempts = maxAttempts
        r.forwarder = transport
        return r
    }

    let action = JSON.object([("type", .string("http")), ("url", .string("http://hooks.example/in")), ("body", .string("x")),
                              ("rule", .string("post"))])

    func status(_ fields: [JSON]) -> String {
        if case .string(let s)? = fields.first?["status"] { return s }
        return "?"
    }

    func testRetriesBackOffThenGiveUpAndDeliveredBeforeIsNotSentAgain() throws {
        let fake = FakeTransport([.retry("HTTP 503", status: 503), .retry("HTTP 503", status: 503), .retry("HTTP 503", status: 503)])
        let r = runner(fake)
        XCTAssertEqual(status(r.carryOut([action], event: "scan-1")), "queued")
        // Not due yet: the backoff (1 s after the first attempt) holds.
        XCTAssertEqual(r.retryDue().delivered, 0)
        XCTAssertEqual(fake.sent.count, 1)
        // Due later: the second attempt, then the third gives up (maxAttempts 3).
        _ = r.retryDue(now: Date().addingTimeInterval(10))
        _ = r.retryDue(now: Date().addingTimeInterval(100))
        XCTAssertEqual(fake.sent.count, 3)
        XCTAssertEqual(Set(fake.sent.map(\.1)).count, 1, "one idempotency key for every attempt")
        let outbox = Outbox(try r.store.db())
        XCTAssertEqual(try outbox.queued().count, 0)
        let failed = try outbox.failed()
        XCTAssertEqual(failed.map(\.lastError), ["gave up after 3 attempts: HTTP 503"])
        _ = r.retryDue(now: Date().addingTimeInterval(1000))
        XCTAssertEqual(fake.sent.count, 3, "a failed delivery is not retried")
        XCTAssertTrue(try outbox.requeue(failed[0].id))
        XCTAssertEqual(r.retryDue(now: Date().addingTimeInterval(2000)).delivered, 1, "queued again, then delivered")
        // The same scan again: delivered before, nothing sent.
        XCTAssertEqual(r.carryOut([action], event: "scan-1").first?["note"], .string("delivered before"))
        XCTAssertEqual(fake.sent.count, 4)
    }

    func testADeliveryOlderThanTheMaxAgeIsGivenUp() throws {
        let fake = FakeTransport([.retry("HTTP 503", status: 503), .retry("HTTP 503", status: 503)])
        let r = runner(fake, maxAttempts: 100)
        r.maxAge = 3600
        XCTAssertEqual(status(r.carryOut([action], event: "scan-3")), "queued")
        _ = r.retryDue(now: Date().addingTimeInterval(7200))
        let failed = try Outbox(try r.store.db()).failed()
        XCTAssertEqual(failed.map(\.lastError), ["gave up: older than 1 hours: HTTP 503"])
        // Queued again, its age starts over.
        XCTAssertTrue(try Outbox(try r.store.db()).requeue(failed[0].id))
        XCTAssertEqual(r.retryDue().delivered, 1)
    }

    func testAHostOffTheAllowListIsNeitherContactedNorCounted() throws {
        let fake = FakeTransport([.retry("refused", status: nil)])
        let r = runner(fake)
        XCTAssertEqual(status(r.carryOut([action], event: "scan-2")), "queued")
        r.network = NetworkPolicy(patterns: ["other.example"], trusted: false)
        _ = r.retryDue(all: true)
        XCTAssertEqual(fake.sent.count, 1, "not contacted")
        let entry = try XCTUnwrap(try Outbox(try r.store.db()).queued().first)
        XCTAssertEqual(entry.attempts, 1, "not counted as an attempt")
        XCTAssertEqual(entry.lastError, "not sent: hooks.example:80 is not on this run's network allow-list (--network, the config's network, or --trust)")
    }
}
