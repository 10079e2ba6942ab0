import Foundation
import XCTest

/// Issue 14: http and mqtt actions against real servers on loopback (Servers/webhook.py and
/// mosquitto, started here and stopped at the end): exactly the payloads, none lost, none twice.
final class ForwardingTests: XCTestCase {
    var dir: URL!
    var servers: [TestServer] = []

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-forward-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        servers.forEach { $0.stop() }
        try? FileManager.default.removeItem(at: dir)
    }

    func started(_ server: TestServer) -> TestServer { servers.append(server); return server }

    func write(_ name: String, _ text: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    var db: String { dir.appendingPathComponent("store.db").path }

    /// A rule posting each symbol's text to `url`.
    func webhookRule(_ url: String) throws -> String {
        try write("post.lua", """
            require("scan").rule { name = "post", run = function(p, ctx)
              return { type = "http", url = "\(url)", body = { text = ctx.event.text } }
            end }
            """)
    }

    func events(_ texts: [String]) -> Data {
        Data(texts.map { #"{"text":"\#($0)"}"# + "\n" }.joined().utf8)
    }

    func testMQTTSubscriberReceivesExactlyThePayloadsWithQoS1() throws {
        let broker = started(try TestServer.mosquitto(in: dir))
        let sub = Process()
        sub.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        sub.arguments = ["-h", "127.0.0.1", "-p", String(broker.port), "-t", "scan/#", "-q", "1", "-v", "-C", "3", "-W", "20"]
        let out = Pipe()
        sub.standardOutput = out
        try sub.run()
        defer { if sub.isRunning { sub.terminate() } }
        Thread.sleep(forTimeInterval: 0.5)  // subscribed before the first publish
        let rule = try write("pub.lua", """
            require("scan").rule { name = "pub", run = function(p, ctx)
              return { type = "mqtt", broker = "mqtt://127.0.0.1:\(broker.port)", topic = "scan/" .. ctx.event.symbology,
                       payload = { text = ctx.event.text }, qos = 1 }
            end }
            """)
        let input = #"{"text":"A"}"# + "\n" + #"{"text":"B \"quoted\""}"# + "\n" + #"{"symbology":"ean13","text":"4719512002889"}"# + "\n"
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db, "--network", "127.0.0.1:\(broker.port)", "--script", rule],
                            stdin: Data(input.utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        let statuses = r.records.map { (($0["actions"] as? [[String: Any]])?.first?["status"] as? String) ?? "none" }
        XCTAssertEqual(statuses, ["done", "done", "done"], r.stdout)
        let received = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        sub.waitUntilExit()
        XCTAssertEqual(received, """
            scan/qrcode {"text":"A"}
            scan/qrcode {"text":"B \\"quoted\\""}
            scan/ean13 {"text":"4719512002889"}

            """)
        XCTAssertEqual(try CLI.run(["outbox", "--db", db]).status, 0, "nothing waits")
    }

    /// mqtts:// with the action's ca_file: delivered to a TLS broker whose certificate that CA
    /// signed; with another CA the connection is refused and the delivery waits in the outbox.
    func testMQTTSWithACAFile() throws {
        let certs = try makeTestCertificates(in: dir)
        let broker = started(try TestServer.mosquitto(in: dir, tls: (certs.ca, certs.cert, certs.key)))
        func rule(ca: String) throws -> String {
            try write("tls.lua", """
                require("scan").rule { name = "tls", run = function(p, ctx)
                  return { type = "mqtt", broker = "mqtts://127.0.0.1:\(broker.port)", topic = "t", payload = ctx.event.text,
                           ca_file = "\(ca)", timeout = 5 }
                end }
                """)
        }
        let good = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db, "--network", "127.0.0.1", "--script", try rule(ca: certs.ca),
                                "--text", "secure"])
        XCTAssertEqual((good.records.first?["actions"] as? [[String: Any]])?.first?["status"] as? String, "done", good.stdout + good.stderr)
        let bad = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db, "--network", "127.0.0.1", "--script", try rule(ca: certs.otherCA),
                               "--text", "unverified"])
        let action = try XCTUnwrap((bad.records.first?["actions"] as? [[String: Any]])?.first)
        XCTAssertEqual(action["status"] as? String, "queued", "\(action)")
    }

    func testABrokerThatIsDownQueuesAndTheFlushDeliversOnce() throws {
        let port = TestServer.freePort()
        let rule = try write("pub.lua", """
            require("scan").rule { name = "pub", run = function(p, ctx)
              return { type = "mqtt", broker = "mqtt://127.0.0.1:\(port)", topic = "t", payload = ctx.event.text }
            end }
            """)
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db, "--network", "127.0.0.1", "--script", rule, "--text", "late"])
        let action = try XCTUnwrap((r.records.first?["actions"] as? [[String: Any]])?.first)
        XCTAssertEqual(action["status"] as? String, "queued")
        XCTAssertEqual(action["reason"] as? String, "cannot connect to 127.0.0.1:\(port): Connection refused")
        XCTAssertEqual(r.status, 0, "the scan's status stays the scan's")
        XCTAssertTrue(r.stderr.contains("1 delivery waits in the outbox of \(db)"), r.stderr)
        XCTAssertEqual(try CLI.run(["outbox", "--db", db]).status, 1)
        XCTAssertEqual(try CLI.run(["outbox", "--db", db, "--flush", "--network", "127.0.0.1"]).stdout, "delivered 0, undelivered 1\n")
    }

    func testAWebhookDownDuringTheScanArrivesExactlyOnceAfterFlush() throws {
        let port = TestServer.freePort()
        let rule = try webhookRule("http://127.0.0.1:\(port)/hook")
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db, "--network", "127.0.0.1:\(port)", "--script", rule],
                            stdin: events(["one", "two"]))
        XCTAssertEqual(r.status, 0, r.stderr)
        for record in r.records {
            let action = try XCTUnwrap((record["actions"] as? [[String: Any]])?.first)
            XCTAssertEqual(action["status"] as? String, "queued", "\(action)")
            XCTAssertTrue((action["reason"] as? String ?? "").contains("Couldn't connect to server")
                          || (action["reason"] as? String ?? "").contains("Connection refused"), "\(action)")
        }
        let keys = r.records.compactMap { (($0["actions"] as? [[String: Any]])?.first?["idempotency_key"] as? String) }
        XCTAssertEqual(Set(keys).count, 2)
        let list = try CLI.run(["outbox", "--db", db])
        XCTAssertEqual(list.status, 1, "something is undelivered")
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 2, list.stdout)
        XCTAssertTrue(list.stdout.contains("queued\t1 attempts\thttp http://127.0.0.1:\(port)/hook\trule post"), list.stdout)
        XCTAssertTrue(r.stderr.contains("(`scanlua outbox --db \(db) --network 127.0.0.1:\(port)` lists them, with --flush sends them)"),
                      "the hint names what holds the allow-list: \(r.stderr)")

        let server = started(try TestServer.webhook(in: dir, port: port))
        // Without the allow-list nothing is sent, and nothing is given up on either.
        let bare = try CLI.run(["outbox", "--db", db, "--flush"])
        XCTAssertEqual(bare.stdout, "delivered 0, undelivered 2\n")
        XCTAssertTrue(bare.stderr.contains("not sent: 127.0.0.1:\(port) is not on this run's network allow-list"), bare.stderr)
        XCTAssertTrue(server.requests.isEmpty)
        XCTAssertTrue(try CLI.run(["outbox", "--db", db]).stdout.contains("not sent: 127.0.0.1:\(port) is not on this run's network allow-list"),
                      "the refusal is the entry's last error, not the old connection error")
        let flush = try CLI.run(["outbox", "--db", db, "--flush", "--network", "127.0.0.1:\(port)"])
        XCTAssertEqual(flush.stdout, "delivered 2, undelivered 0\n", flush.stderr)
        XCTAssertEqual(flush.status, 0)
        XCTAssertEqual(try CLI.run(["outbox", "--db", db]).status, 0)
        XCTAssertEqual(try CLI.run(["outbox", "--db", db, "--flush", "--network", "127.0.0.1:\(port)"]).stdout, "delivered 0, undelivered 0\n")
        let requests = server.requests
        XCTAssertEqual(requests.count, 2, "each exactly once, and not again on the second flush")
        XCTAssertEqual(Set(requests.compactMap { $0["key"] as? String }), Set(keys), "the same Idempotency-Key as queued")
        XCTAssertEqual(Set(requests.compactMap { $0["body"] as? String }), [#"{"text":"one"}"#, #"{"text":"two"}"#])
        XCTAssertEqual(requests.first?["type"] as? String, "application/json")

        // --dry-run queues nothing and sends nothing.
        let dry = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db, "--network", "127.0.0.1:\(port)", "--script", rule,
                               "--dry-run", "--text", "dry"])
        XCTAssertEqual((dry.records.first?["actions"] as? [[String: Any]])?.first?["status"] as? String, "dry-run")
        XCTAssertEqual(server.requests.count, 2)
    }

    /// Issue 22 item 1: a webhook that never answers in time does not stall the scan: each code
    /// waits --delivery-wait (0.2 s) and is queued, the delivery thread carries on, and the end of
    /// the session waits a bounded time (5 s) for what is in flight.
    func testAWebhookThatNeverAnswersDoesNotStallTheScan() throws {
        let server = started(try TestServer.webhook(in: dir, hangAll: 30))
        let rule = try webhookRule("http://127.0.0.1:\(server.port)/hook")
        let start = Date()
        let r = try CLI.run(["simulate", "--perform", "http", "--no-default-scripts", "--db", db, "--network", "127.0.0.1:\(server.port)",
                             "--script", rule], stdin: events(["one", "two", "three"]))
        let seconds = Date().timeIntervalSince(start)
        XCTAssertLessThan(seconds, 12, "three codes used to take 30 s (10 s each)")
        XCTAssertEqual(r.records.compactMap { ($0["actions"] as? [[String: Any]])?.first?["status"] as? String }, ["queued", "queued", "queued"])
        XCTAssertTrue(r.stderr.contains("deliveries still in flight after 5 s were left queued in the outbox"), r.stderr)
        let list = try CLI.run(["outbox", "--db", db]).stdout
        XCTAssertEqual(list.split(separator: "\n").count, 3, "all three wait, none lost")
        XCTAssertTrue(list.contains("1 attempts") && list.contains("no answer before the session ended"),
                      "what was in flight counts as an attempt: \(list)")
    }

    /// Issue 22 item 5: a 100 MB answer is read and dropped, never copied into the record or kept
    /// in memory (it once took 783 MB).
    func testAHugeResponseBodyIsNotKept() throws {
        let server = started(try TestServer.webhook(in: dir, bodyBytes: 100 << 20))
        let rule = try webhookRule("http://127.0.0.1:\(server.port)/hook")
        let r = try CLI.run(["simulate", "--perform", "http", "--no-default-scripts", "--db", db, "--network", "127.0.0.1:\(server.port)",
                             "--delivery-wait", "30", "--script", rule, "--text", "big"], timed: true)
        let action = try XCTUnwrap((r.records.first?["actions"] as? [[String: Any]])?.first)
        XCTAssertEqual(action["status"] as? String, "done")
        XCTAssertEqual(Set(action.keys), ["type", "url", "body", "rule", "status", "idempotency_key", "response_status"], "no body in the record")
        XCTAssertLessThan(r.stdout.utf8.count, 4096)
        if let kb = r.peakKilobytes { XCTAssertLessThan(kb, 150_000, "peak memory stays small") }
    }

    /// Issue 22 item 2: a watch standing idle delivers once the webhook is back (it used to wait
    /// for the next image).
    func testAnIdleWatchDeliversWhenTheWebhookComesBack() throws {
        let port = TestServer.freePort()
        let rule = try webhookRule("http://127.0.0.1:\(port)/hook")
        let inbox = dir.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLI.fixture("qrcode.png"), toPath: inbox.appendingPathComponent("a.png").path)
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["watch", "--no-default-scripts", "--quiet", "--settle", "0.2", "--db", db, "--network", "127.0.0.1:\(port)",
                       "--script", rule, "--timeout", "14", inbox.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        Thread.sleep(forTimeInterval: 2)  // the image is scanned, its delivery refused: queued
        let server = started(try TestServer.webhook(in: dir, port: port))
        let deadline = Date().addingTimeInterval(10)
        while server.requests.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        XCTAssertEqual(server.requests.compactMap { $0["body"] as? String }, [#"{"text":"https://example.com/scanlua"}"#],
                       "delivered while no new image came")
        p.terminate()
        p.waitUntilExit()
        XCTAssertEqual(try CLI.run(["outbox", "--db", db]).status, 0, "nothing waits any more")
    }

    /// An idle station restarted (systemd) sends what earlier sessions left queued, with no new image.
    func testAnIdleWatchSendsWhatEarlierSessionsLeftQueued() throws {
        let port = TestServer.freePort()
        let rule = try webhookRule("http://127.0.0.1:\(port)/hook")
        let earlier = try CLI.run(["simulate", "--perform", "http", "--no-default-scripts", "--db", db, "--network", "127.0.0.1:\(port)",
                                   "--script", rule, "--text", "left"])
        XCTAssertEqual((earlier.records.first?["actions"] as? [[String: Any]])?.first?["status"] as? String, "queued")
        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["watch", "--no-default-scripts", "--quiet", "--db", db, "--network", "127.0.0.1:\(port)", "--script", rule,
                       "--timeout", "12", empty.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        Thread.sleep(forTimeInterval: 1)
        let server = started(try TestServer.webhook(in: dir, port: port))
        let deadline = Date().addingTimeInterval(10)
        while server.requests.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        XCTAssertEqual(server.requests.compactMap { $0["body"] as? String }, [#"{"text":"left"}"#])
        p.terminate()
        p.waitUntilExit()
    }

    /// Issue 22 item 3: a server answering 503 forever: the delivery is given up after
    /// --max-delivery-attempts, listed by --failed (not by --list, not retried by sessions),
    /// queued again by --retry; the export shows each delivery as it ended.
    func testAServerFailingForeverIsGivenUpListedAndRetried() throws {
        let server = started(try TestServer.webhook(in: dir, failFirst: 1_000_000))
        let rule = try webhookRule("http://127.0.0.1:\(server.port)/hook")
        let net = "127.0.0.1:\(server.port)"
        let r = try CLI.run(["simulate", "--perform", "http", "--no-default-scripts", "--db", db, "--network", net, "--script", rule,
                             "--max-delivery-attempts", "3", "--text", "forever"])
        XCTAssertEqual((r.records.first?["actions"] as? [[String: Any]])?.first?["status"] as? String, "queued")
        for _ in 0..<2 { _ = try CLI.run(["outbox", "--db", db, "--flush", "--network", net, "--max-delivery-attempts", "3"]) }
        XCTAssertEqual(server.requests.count, 3)
        let queued = try CLI.run(["outbox", "--db", db])
        XCTAssertEqual(queued.status, 0, "nothing queued any more: \(queued.stdout)")
        let failed = try CLI.run(["outbox", "--db", db, "--failed"])
        XCTAssertEqual(failed.status, 1)
        XCTAssertTrue(failed.stdout.contains("failed\t3 attempts\thttp http://\(net)/hook\trule post"), failed.stdout)
        XCTAssertTrue(failed.stdout.contains("gave up after 3 attempts: HTTP 503"), failed.stdout)
        // A later session does not try it again.
        _ = try CLI.run(["simulate", "--perform", "http", "--no-default-scripts", "--db", db, "--network", net, "--script", rule, "--text", "other"])
        XCTAssertEqual(server.requests.filter { ($0["body"] as? String)?.contains("forever") == true }.count, 3)
        let export = try CLI.run(["export", "--db", db, "--format", "ndjson"])
        let statuses = export.stdout.split(separator: "\n").compactMap { line -> String? in
            let row = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return ((row?["actions"] as? [[String: Any]])?.first?["status"] as? String).map { "\(row?["text"] ?? ""):\($0)" }
        }
        XCTAssertEqual(statuses, ["forever:failed", "other:queued"], "the history shows how each delivery ended")
        let id = try XCTUnwrap(failed.stdout.split(separator: "\t").first.map(String.init))
        XCTAssertEqual(try CLI.run(["outbox", "--db", db, "--retry", id]).stdout, "queued \(id) again\n")
        XCTAssertTrue(try CLI.run(["outbox", "--db", db]).stdout.contains("\(id)\tqueued\t0 attempts"))
        XCTAssertEqual(try CLI.run(["outbox", "--db", db, "--retry", "999"]).status, 1)
    }

    /// 1,000 actions against a server that refuses the first 50 requests and every 7th after:
    /// on the server, every delivery accepted exactly once.
    func testAFlappingServerLosesNoneAndDuplicatesNone() throws {
        let server = started(try TestServer.webhook(in: dir, failFirst: 50, flap: 7))
        let rule = try webhookRule("http://127.0.0.1:\(server.port)/hook")
        let texts = (0..<1000).map { "code-\($0)" }
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db, "--network", "127.0.0.1:\(server.port)", "--script", rule],
                            stdin: events(texts))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.count, 1000)
        var flushes = 0
        while try CLI.run(["outbox", "--db", db]).status != 0 && flushes < 30 {
            _ = try CLI.run(["outbox", "--db", db, "--flush", "--network", "127.0.0.1:\(server.port)"])
            flushes += 1
        }
        XCTAssertEqual(try CLI.run(["outbox", "--db", db]).status, 0, "everything delivered after \(flushes) flushes")
        let accepted = server.requests.filter { $0["status"] as? Int == 200 }
        let bodies = accepted.compactMap { $0["body"] as? String }
        XCTAssertEqual(bodies.count, 1000, "none lost, none twice (\(server.requests.count) requests, \(flushes) flushes)")
        XCTAssertEqual(Set(bodies), Set(texts.map { #"{"text":"\#($0)"}"# }))
        XCTAssertEqual(Set(accepted.compactMap { $0["key"] as? String }).count, 1000)
        print("flapping server: \(server.requests.count) requests, 1000 accepted, \(server.requests.count - 1000) refused, \(flushes) flushes")
    }

    func testTheAllowListRefusesOtherHostsWithoutConnecting() throws {
        // Something listens on 127.0.0.2: it must never see a connection.
        let other = started(try TestServer.webhook(in: dir, host: "127.0.0.2"))
        let rule = try webhookRule("http://127.0.0.2:\(other.port)/steal")
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db, "--network", "127.0.0.1:8123", "--script", rule, "--text", "x"])
        let action = try XCTUnwrap((r.records.first?["actions"] as? [[String: Any]])?.first)
        XCTAssertEqual(action["status"] as? String, "failed")
        XCTAssertEqual(action["error"] as? String, "rule 'post': 127.0.0.2:\(other.port) is not on the network allow-list (the config's"
                       + " scan.options { network = { ... } }, --network, or --trust); nothing was sent")
        XCTAssertEqual(try CLI.run(["outbox", "--db", db]).status, 0, "not queued either")
        // A script cannot add hosts; the config can (as a list), and --trust allows any.
        let grab = try write("grab.lua", "require('scan').options { network = { '127.0.0.2' } }\n")
        let refused = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--script", grab, "--text", "x"])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("scan.options: 'network' can be set only by the config or --network, not by a script"),
                      refused.stderr)
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertTrue(other.requests.isEmpty, "no request reached 127.0.0.2")
        let config = try write("init.lua", "require('scan').options { network = { '127.0.0.2:\(other.port)' } }\n")
        let allowed = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--config", config, "--db", db, "--script", rule, "--text", "y"])
        XCTAssertEqual((allowed.records.first?["actions"] as? [[String: Any]])?.first?["status"] as? String, "done", allowed.stdout)
        XCTAssertEqual(other.requests.count, 1)
    }

    func testScriptsCannotRewriteTheOutboxOrTheHistory() throws {
        let rule = try write("tamper.lua", """
            local store = require "store"
            require("scan").parser { name = "tamper", parse = function(ev)
              local r = {}
              for i, sql in ipairs { "UPDATE scanlua_outbox SET target = 'http://127.0.0.2/'", "DELETE FROM scanlua_history",
                                     "INSERT INTO scanlua_outbox (key, rule, kind, target, action) VALUES ('k', 'r', 'http', 'x', '{}')",
                                     "DROP TABLE scanlua_outbox",
                                     "CREATE TEMP TRIGGER forge AFTER INSERT ON main.scanlua_history BEGIN UPDATE scanlua_history SET text = 'FORGED'; END",
                                     "CREATE TEMP TABLE scanlua_history (x)" } do
                r[i] = select(2, pcall(store.exec, sql))
              end
              r.read = #store.query("SELECT * FROM scanlua_outbox")
              return { type = "tamper", errors = r }
            end }
            """)
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db, "--script", rule, "--text", "x"])
        let p = try XCTUnwrap(r.records.first?["payload"] as? [String: Any])
        let errors = try XCTUnwrap(p["errors"] as? [String: Any])
        for i in 1...6 {
            XCTAssertTrue((errors[String(i)] as? String ?? "").contains("is scanlua's own (read it, do not write it)"), "\(i): \(errors)")
        }
        XCTAssertEqual(errors["read"] as? Int, 0, "reading is fine")
    }

    /// A header cannot carry a line break (another header, or a request of its own), and scanlua's
    /// Idempotency-Key cannot be replaced.
    func testHeadersCannotInjectLinesOrReplaceTheKey() throws {
        let server = started(try TestServer.webhook(in: dir))
        for headers in [#"{ ["X-A"] = "a\r\nIdempotency-Key: attacker" }"#, #"{ ["Idempotency-Key "] = "sp" }"#, #"{ ["X-N\r\nHost"] = "x" }"#] {
            let rule = try write("h.lua", """
                require("scan").rule { name = "h", run = function()
                  return { type = "http", url = "http://127.0.0.1:\(server.port)/h", body = "x", headers = \(headers) }
                end }
                """)
            let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db, "--network", "127.0.0.1:\(server.port)", "--script", rule, "--text", "x"])
            let action = try XCTUnwrap((r.records.first?["actions"] as? [[String: Any]])?.first)
            XCTAssertEqual(action["status"] as? String, "failed", headers)
            XCTAssertTrue((action["error"] as? String ?? "").contains("must be an HTTP token and the value one line"), "\(action)")
        }
        let own = try write("own.lua", """
            require("scan").rule { name = "own", run = function()
              return { type = "http", url = "http://127.0.0.1:\(server.port)/h", body = "x", headers = { ["idempotency-key"] = "mine" } }
            end }
            """)
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db, "--network", "127.0.0.1:\(server.port)", "--script", own, "--text", "x"])
        let key = (r.records.first?["actions"] as? [[String: Any]])?.first?["idempotency_key"] as? String
        XCTAssertEqual(server.requests.count, 1, "only the clean request was sent")
        XCTAssertEqual(server.requests.first?["key"] as? String, key, "scanlua's key, not the rule's")
    }

    /// Framing and hop-by-hop headers are libcurl's (issue 21): a script's Host or Content-Length
    /// fails the action and sends nothing; a raw listener then receives exactly one request, the
    /// clean one, with the allow-listed Host and no smuggled second request.
    func testFramingAndHopByHopHeadersCannotBeSet() throws {
        let server = started(try TestServer.rawListener(in: dir))
        let url = "http://127.0.0.1:\(server.port)/h"
        let smuggled = "x\\r\\n\\r\\nGET /smuggled HTTP/1.1\\r\\nHost: internal-admin.example\\r\\n\\r\\n"
        let attacks = [#"{ Host = "internal-admin.example" }"#, #"{ ["Content-Length"] = "1" }"#, #"{ ["transfer-encoding"] = "chunked" }"#,
                       #"{ Connection = "keep-alive" }"#, #"{ ["Proxy-Authorization"] = "Basic eA==" }"#, #"{ Expect = "100-continue" }"#,
                       #"{ TE = "trailers" }"#, #"{ Upgrade = "h2c" }"#, #"{ Trailer = "X" }"#,
                       #"{ ["Content-Type"] = "text/plain", ["content-type"] = "application/json" }"#]
        for headers in attacks {
            let rule = try write("h.lua", """
                require("scan").rule { name = "h", run = function()
                  return { type = "http", url = "\(url)", body = "\(smuggled)", headers = \(headers) }
                end }
                """)
            let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db, "--network", "127.0.0.1:\(server.port)", "--script", rule, "--text", "x"])
            let action = try XCTUnwrap((r.records.first?["actions"] as? [[String: Any]])?.first, r.stdout + r.stderr)
            XCTAssertEqual(action["status"] as? String, "failed", headers)
            let error = action["error"] as? String ?? ""
            XCTAssertTrue(error.contains("cannot be set by a script") || error.contains("is given twice"), "\(action)")
        }
        let clean = try write("clean.lua", """
            require("scan").rule { name = "clean", run = function()
              return { type = "http", url = "\(url)", body = "x", headers = { ["X-Shop"] = "till-3" } }
            end }
            """)
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db, "--network", "127.0.0.1:\(server.port)", "--script", clean, "--text", "x"])
        XCTAssertEqual((r.records.first?["actions"] as? [[String: Any]])?.first?["status"] as? String, "done", r.stdout + r.stderr)
        Thread.sleep(forTimeInterval: 1.5)  // the listener logs a connection when it closes
        let received = String(decoding: (try? Data(contentsOf: server.log)) ?? Data(), as: UTF8.self)
        XCTAssertEqual(received.components(separatedBy: "--- end of connection").count - 1, 1, "one connection: \(received)")
        XCTAssertEqual(received.components(separatedBy: "HTTP/1.1\r\n").count - 1, 1, "one request line: \(received)")
        XCTAssertTrue(received.hasPrefix("POST /h HTTP/1.1\r\n"), received)
        XCTAssertTrue(received.contains("\r\nHost: 127.0.0.1:\(server.port)\r\n"), received)
        XCTAssertTrue(received.contains("\r\nX-Shop: till-3\r\n"), received)
        XCTAssertTrue(received.contains("\r\nContent-Length: 1\r\n"), received)
        XCTAssertFalse(received.contains("internal-admin"), received)
    }

    /// Killed after the server got the request but before the answer: the delivery is still
    /// pending, and the flush sends it again with the same key (so the server can drop it).
    func testACrashBetweenSendAndMarkResendsWithTheSameKey() throws {
        let server = started(try TestServer.webhook(in: dir, hangFirst: 3))
        let rule = try webhookRule("http://127.0.0.1:\(server.port)/hook")
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["simulate", "--perform", "all", "--no-default-scripts", "--db", db, "--network", "127.0.0.1:\(server.port)", "--script", rule,
                       "--text", "crash"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // The server logs a request once it answers; wait until the request is in flight (the
        // outbox row is written before sending), then kill.
        Thread.sleep(forTimeInterval: 1.5)
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        Thread.sleep(forTimeInterval: 2)  // the hung answer completes on the server side
        XCTAssertEqual(server.requests.count, 1, "the first attempt reached the server")
        let list = try CLI.run(["outbox", "--db", db])
        XCTAssertEqual(list.status, 1, "still pending: nobody saw the answer")
        XCTAssertTrue(list.stdout.contains("queued\t0 attempts"), list.stdout)
        XCTAssertEqual(try CLI.run(["outbox", "--db", db, "--flush", "--network", "127.0.0.1:\(server.port)"]).stdout,
                       "delivered 1, undelivered 0\n")
        let keys = server.requests.compactMap { $0["key"] as? String }
        XCTAssertEqual(keys.count, 2)
        XCTAssertEqual(Set(keys).count, 1, "the same Idempotency-Key both times")
    }

    /// Issue 21: texts a spreadsheet would run as formulas get a leading ' in CSV (OWASP); the
    /// other formats and --csv-raw keep them as they are.
    func testCSVExportNeutralisesFormulas() throws {
        let texts = ["=HYPERLINK(\\\"http://evil.example\\\",\\\"x\\\")", "+1+1", "-2+3+cmd|' /C calc'!A0", "@SUM(A1:A2)",
                     "\\tTAB", "\\rCR", "x;=1+1", "x\\t=1+1", "plain", "a=1"]
        let input = texts.map { #"{"text":"\#($0)"}"# + "\n" }.joined()
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db], stdin: Data(input.utf8))
        let stored = r.records.compactMap { $0["text"] as? String }
        XCTAssertEqual(stored.count, texts.count, r.stderr)
        let csv = dir.appendingPathComponent("h.csv")
        func column(_ args: [String]) throws -> [String] {
            let export = try CLI.run(["export", "--db", db] + args)
            XCTAssertEqual(export.status, 0, export.stderr)
            try export.stdout.write(to: csv, atomically: true, encoding: .utf8)
            let script = """
                import csv, json, sys
                with open(sys.argv[1], newline='', encoding='utf-8') as f:
                    print(json.dumps([r['text'] for r in csv.DictReader(f)]))
                """
            return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try Process.output("/usr/bin/python3", ["-c", script, csv.path]).utf8)) as? [String])
        }
        let safe = try column([])
        XCTAssertEqual(safe, stored.map { ["=", "+", "-", "@", "\t", "\r"].contains($0.first.map(String.init) ?? "") ? "'" + $0 : $0 })
        XCTAssertEqual(safe.last, "a=1")
        XCTAssertEqual(safe.first?.hasPrefix("'=HYPERLINK("), true)
        XCTAssertEqual(try column(["--csv-raw"]), stored, "--csv-raw: as they are")
        // In a semicolon or tab locale the quotes keep x;=1+1 one cell.
        let raw = try CLI.run(["export", "--db", db]).stdout
        XCTAssertTrue(raw.contains(",\"x;=1+1\",") && raw.contains(",\"x\t=1+1\","), raw)
        let nd = try CLI.run(["export", "--db", db, "--format", "ndjson"])
        XCTAssertTrue(nd.stdout.contains(#""text":"+1+1""#), nd.stdout)
    }

    func testExportCSVRoundTripsThroughPythonsCSVModule() throws {
        let texts = ["plain", "comma, here", "quote \\\"q\\\" here", "line\\nbreak", "中文 and é", "a,\\\"b\\\"\\r\\nc"]
        let input = texts.map { #"{"text":"\#($0)"}"# + "\n" }.joined()
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", db], stdin: Data(input.utf8))
        XCTAssertEqual(r.records.count, texts.count, r.stderr)
        let expected = r.records.compactMap { $0["text"] as? String }
        let csv = dir.appendingPathComponent("history.csv")
        let export = try CLI.run(["export", "--db", db, "--format", "csv"])
        XCTAssertEqual(export.status, 0, export.stderr)
        try export.stdout.write(to: csv, atomically: true, encoding: .utf8)
        let script = """
            import csv, json, sys
            with open(sys.argv[1], newline='', encoding='utf-8') as f:
                rows = list(csv.DictReader(f))
            print(json.dumps([[r['text'], r['symbology'], json.loads(r['payload'])['type']] for r in rows]))
            """
        let parsed = try Process.output("/usr/bin/python3", ["-c", script, csv.path])
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(parsed.utf8)) as? [[String]])
        XCTAssertEqual(rows.map { $0[0] }, expected, "every text back, byte for byte")
        XCTAssertEqual(Set(rows.map { $0[1] }), ["qrcode"])
        XCTAssertEqual(Set(rows.map { $0[2] }), ["raw"])
        XCTAssertTrue(export.stdout.hasPrefix("time,source,frame,page,symbology,text,bytes,payload_type,payload,actions\r\n"))

        let nd = try CLI.run(["export", "--db", db, "--format", "ndjson", "--type", "raw", "--since", "2000-01-01"])
        XCTAssertEqual(nd.stdout.split(separator: "\n").count, texts.count)
        XCTAssertEqual(try CLI.run(["export", "--db", db, "--format", "json", "--type", "url"]).stdout, "[]\n")
        XCTAssertEqual(try CLI.run(["export", "--db", db, "--format", "ndjson", "--since", "2999-01-01"]).stdout, "")
        // Text with a NUL byte comes back whole (it was cut at the NUL once).
        let nulDB = dir.appendingPathComponent("nul.db").path
        _ = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--db", nulDB, "--hex", "68747470733a2f2f676f6f64002e6576696c"])
        let nul = try CLI.run(["export", "--db", nulDB, "--format", "ndjson"])
        XCTAssertTrue(nul.stdout.contains(#""text":"https://good\u0000.evil""#), nul.stdout)
        let bad = try CLI.run(["export", "--db", db, "--since", "yesterday"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("invalid value 'yesterday' for '--since'"), bad.stderr)
    }

    /// examples/forwarding: its config and rules, pointed at this test's servers.
    func testTheForwardingExamplePostsInvoicesAndPublishesProducts() throws {
        let webhook = started(try TestServer.webhook(in: dir))
        let broker = started(try TestServer.mosquitto(in: dir))
        let example = CLI.packageRoot.appendingPathComponent("examples/forwarding")
        var config = try String(contentsOf: example.appendingPathComponent("init.lua"), encoding: .utf8)
        config = config.replacingOccurrences(of: "127.0.0.1:8123", with: "127.0.0.1:\(webhook.port)")
            .replacingOccurrences(of: "127.0.0.1:1883", with: "127.0.0.1:\(broker.port)")
            .replacingOccurrences(of: "require \"forward\"", with: """
                require("forward").configure { webhook = "http://127.0.0.1:\(webhook.port)/invoices", broker = "mqtt://127.0.0.1:\(broker.port)" }
                """)
        try FileManager.default.copyItem(at: example.appendingPathComponent("forward.lua"), to: dir.appendingPathComponent("forward.lua"))
        let configPath = try write("init.lua", config)
        let sub = Process()
        sub.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        sub.arguments = ["-h", "127.0.0.1", "-p", String(broker.port), "-t", "scanlua/products/#", "-q", "1", "-v", "-C", "1", "-W", "20"]
        let out = Pipe()
        sub.standardOutput = out
        try sub.run()
        defer { if sub.isRunning { sub.terminate() } }
        Thread.sleep(forTimeInterval: 0.5)
        let images = CLI.packageRoot.appendingPathComponent("examples/images").path
        let r = try CLI.run(["scan", "--config", configPath, images], cwd: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let received = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(received, #"scanlua/products/4719512002889 {"code":"4719512002889","country":"TW","symbology":"ean13"}"# + "\n")
        let posts = webhook.requests
        XCTAssertEqual(posts.count, 1)
        XCTAssertEqual(posts.first?["path"] as? String, "/invoices")
        let invoice = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data((posts.first?["body"] as? String ?? "").utf8)) as? [String: Any])
        XCTAssertEqual(invoice["invoice_number"] as? String, "AB11223344")
        XCTAssertEqual((invoice["items"] as? [[String: Any]])?.map { $0["name"] as? String ?? "" }, ["乾電池", "口罩", "牛奶"])
        // The store the config names got the history.
        let export = try CLI.run(["export", "--config", configPath, "--format", "ndjson"], cwd: dir)
        XCTAssertEqual(export.stdout.split(separator: "\n").count, r.records.count, export.stderr)
        // Issue 22 item 7: the config is read for its settings: its rules say nothing here.
        let outbox = try CLI.run(["outbox", "--config", configPath], cwd: dir)
        XCTAssertEqual(outbox.status, 0, outbox.stdout)
        XCTAssertFalse(outbox.stderr.contains("warning"), outbox.stderr)
        XCTAssertFalse(export.stderr.contains("warning"), export.stderr)
    }
}
