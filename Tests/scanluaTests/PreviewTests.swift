import Foundation
import ScanCore
import XCTest

/// `watch --serve`: the preview page, its streams and its torch switch, seen from real clients:
/// headless Chromium for the page (Servers/preview_client.py drives it over the DevTools
/// protocol and reads the DOM), Python's urllib for /events and /stream.mjpeg.
final class PreviewTests: XCTestCase {
    private var watch: Process?
    private var stdout = Pipe()
    private var stderrLog: URL!
    private var port = 0
    private var tmp: URL!

    override func setUpWithError() throws {
        tmp = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-preview-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        stderrLog = tmp.appendingPathComponent("stderr.txt")
    }

    override func tearDownWithError() throws {
        if let watch, watch.isRunning { watch.terminate(); watch.waitUntilExit() }
        try? FileManager.default.removeItem(at: tmp)
    }

    private var base: String { "http://127.0.0.1:\(port)" }

    /// Starts `scanlua watch --serve` and waits until stderr says `until` (or 30 s).
    private func startWatch(_ args: [String], until: String) throws {
        port = TestServer.freePort()
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["watch", "--serve", "127.0.0.1:\(port)", "--quiet"] + args
        p.currentDirectoryURL = CLI.packageRoot
        FileManager.default.createFile(atPath: stderrLog.path, contents: nil)
        p.standardOutput = stdout
        p.standardError = try FileHandle(forWritingTo: stderrLog)
        try p.run()
        watch = p
        let deadline = Date().addingTimeInterval(30)
        while !stderr.contains(until) {
            guard Date() < deadline, p.isRunning else { XCTFail("watch did not say '\(until)': \(stderr)"); return }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    private var stderr: String { (try? String(contentsOf: stderrLog, encoding: .utf8)) ?? "" }

    /// Stops watch with Ctrl-C and returns its exit status and records.
    private func stopWatch() -> (status: Int32, records: [String]) {
        guard let watch else { return (-1, []) }
        watch.interrupt()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        watch.waitUntilExit()
        return (watch.terminationStatus, String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    private func client(_ args: [String]) throws -> [String] {
        let script = CLI.packageRoot.appendingPathComponent("Tests/scanluaTests/Servers/preview_client.py").path
        let r = try Process.outputAndStatus("/usr/bin/python3", [script] + args)
        XCTAssertEqual(r.status, 0, "preview_client.py \(args.joined(separator: " ")): \(r.output)")
        return r.output.split(separator: "\n").map(String.init)
    }

    private func json(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    func testThePageShowsTheCodesTheFrameAndTheCountersInChromium() throws {
        try startWatch([CLI.fixture("stream-10fps.y4m")], until: "the source ended")
        let shot = tmp.appendingPathComponent("page.png").path
        let state = json(try client(["page", base + "/", "--codes", "3", "--screenshot", shot]).last ?? "")
        let codes = (state["codes"] as? [[String: Any]] ?? []).map { "\($0["symbology"]!) \($0["text"]!) \($0["payload"]!) x\($0["count"]!)" }
        XCTAssertEqual(codes, ["qrcode code-A raw x2", "qrcode code-B raw x1"],
                       "newest first, as the DOM lists them; code-A accepted again counts up on its line (issue 24 item 5)")
        XCTAssertEqual(state["frames"] as? String, "15")
        XCTAssertEqual(state["accepted"] as? String, "3")
        XCTAssertEqual(state["dropped"] as? String, "0")
        XCTAssertEqual(state["source"] as? String, CLI.fixture("stream-10fps.y4m"))
        XCTAssertEqual(state["ended_hidden"] as? Bool, false, "the page says the source ended")
        XCTAssertEqual(state["torch_hidden"] as? Bool, true, "a y4m file has no torch: no switch")
        XCTAssertEqual(state["frame_shown"] as? Bool, true)
        XCTAssertEqual(state["frame_size"] as? [Int], [240, 180], "the frame at its own size")
        XCTAssertEqual(state["waiting_display"] as? String, "none", "no 'waiting for the first frame' beside it")
        // The screenshot: the page at 1200 pixels wide with the frame and its amber box (code-A, read
        // again in the last frame: a duplicate) and the list's green bars.
        let picture = try ImageLoader().decodeColor(Data(contentsOf: URL(fileURLWithPath: shot)), name: shot)
        XCTAssertEqual(picture.width, 1200)
        var amber = 0
        for y in 0..<picture.height { for x in 0..<picture.width {
            let c = picture[x, y]
            if c.r > 220 && c.g > 150 && c.g < 230 && c.b < 60 { amber += 1 }
        } }
        XCTAssertGreaterThan(amber, 500, "the box and label drawn on the frame")
        let (status, records) = stopWatch()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertEqual(records.count, 3)
    }

    /// Issue 24 item 5: a one-shot `chromium --headless --screenshot` shows the latest frame (the
    /// page comes with it, and its load event waits for the image); before the first frame the
    /// page shows the waiting line and no empty black box.
    func testAPageBeforeTheFirstFrameShowsNoEmptyBox() throws {
        let inbox = tmp.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try startWatch(["--no-default-scripts", inbox.path], until: "preview at")
        let empty = json(try client(["page", base + "/", "--codes", "0", "--no-frame"]).last ?? "")
        XCTAssertEqual(empty["frame_display"] as? String, "none", "the hidden box stays hidden")
        XCTAssertEqual(empty["waiting_display"] as? String, "block")
        _ = stopWatch()
    }

    func testAOneShotScreenshotShowsTheFrame() throws {
        try startWatch([CLI.fixture("stream-10fps.y4m")], until: "the source ended")
        let shot = tmp.appendingPathComponent("shot.png").path
        _ = try client(["shot", base + "/", "--out", shot])
        let picture = try ImageLoader().decodeColor(Data(contentsOf: URL(fileURLWithPath: shot)), name: shot)
        var amber = 0
        for y in 0..<picture.height { for x in 0..<picture.width {
            let c = picture[x, y]
            if c.r > 220 && c.g > 150 && c.g < 230 && c.b < 60 { amber += 1 }
        } }
        XCTAssertGreaterThan(amber, 500, "the frame, with its box and label, is in the one-shot screenshot")
        _ = stopWatch()
    }

    /// /events sends each record as the NDJSON line (the page replays the last 50 to a late
    /// client); /stream.mjpeg sends the drawn frames; /frame.jpg the latest; /status the counters.
    func testTheStreamsCarryTheRecordsAndTheDrawnFrames() throws {
        try startWatch([CLI.fixture("stream-10fps.y4m")], until: "the source ended")
        let events = try client(["events", base + "/events", "--count", "3"])
        XCTAssertEqual(json(events[0])["content_type"] as? String, "text/event-stream")
        let mjpeg = try client(["mjpeg", base + "/stream.mjpeg", "--parts", "2", "--out", tmp.path])
        XCTAssertEqual(json(mjpeg[0])["content_type"] as? String, "multipart/x-mixed-replace; boundary=scanlua-frame")
        for part in mjpeg.dropFirst() {
            XCTAssertEqual(json(part)["boundary"] as? String, "--scanlua-frame")
            XCTAssertEqual(json(part)["Content-Type"] as? String, "image/jpeg")
        }
        let part = tmp.appendingPathComponent("part-0.jpg").path
        let frame = try ImageLoader().decodeColor(Data(contentsOf: URL(fileURLWithPath: part)), name: part)
        XCTAssertEqual([frame.width, frame.height], [240, 180])
        let status = json(try client(["get", base + "/status"]).last ?? "")
        XCTAssertEqual(status["frames"] as? Int, 15)
        XCTAssertEqual(status["accepted"] as? Int, 3)
        XCTAssertEqual(status["ended"] as? Bool, true)
        XCTAssertTrue(status["torch"] is NSNull)
        XCTAssertEqual(try client(["post", base + "/torch?on=1"]).first, "403", "a page elsewhere cannot add the header")
        let torch = try client(["post", base + "/torch?on=1", "--header", "X-Scanlua: torch"])
        XCTAssertEqual(torch.first, "409")
        XCTAssertEqual(json(torch.last ?? "")["error"] as? String, "\(CLI.fixture("stream-10fps.y4m")) has no torch")
        XCTAssertEqual(try client(["get", base + "/nothing-here"]).first, "404")
        XCTAssertEqual(try client(["post", base + "/status"]).first, "405")
        // A name that is not this loopback server's (a rebound DNS name) gets nothing.
        XCTAssertEqual(try client(["get", base + "/status", "--header", "Host: evil.example"]).first, "403")
        XCTAssertEqual(try client(["get", base + "/status", "--header", "Host: localhost:\(port)"]).first, "200")
        // A page left open from an earlier run reconnects with an id this run never gave: it gets every record.
        let stale = try client(["events", base + "/events", "--count", "3", "--header", "Last-Event-ID: 1000"])
        XCTAssertEqual(Array(stale.dropFirst()), Array(events.dropFirst()))
        let (code, records) = stopWatch()
        XCTAssertEqual(code, 0)
        XCTAssertEqual(Array(events.dropFirst()), records, "the same JSON as the NDJSON records")
    }

    /// A code's text is shown as text: markup in a payload never becomes part of the page.
    func testMarkupInACodeIsShownAsText() throws {
        let hostile = #"<img src=x onerror="document.title='pwned'"><b>bold</b>"#
        let inbox = tmp.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        _ = try Process.outputAndStatus("/usr/bin/qrencode", ["-o", inbox.appendingPathComponent("hostile.png").path, hostile])
        try startWatch(["--no-default-scripts", inbox.path], until: "preview at")
        let state = json(try client(["page", base + "/", "--codes", "1"]).last ?? "")
        let code = (state["codes"] as? [[String: Any]])?.first ?? [:]
        XCTAssertEqual(code["text"] as? String, hostile)
        XCTAssertTrue((code["html"] as? String ?? "").contains("&lt;img src=x"), "escaped in the DOM: \(code)")
        XCTAssertFalse((code["html"] as? String ?? "").contains("<b>"))
        XCTAssertEqual(state["title"] as? String, "scanlua preview", "no script of the payload ran")
        XCTAssertEqual(state["ended_hidden"] as? Bool, true, "a watched folder goes on")
        _ = stopWatch()
    }

    /// The page is up before a pipe sends its first bytes (the source opens after the server).
    func testThePageIsUpBeforeAPipeSendsAnything() throws {
        port = TestServer.freePort()
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["watch", "--serve", "127.0.0.1:\(port)", "--quiet", "--source", "y4m", "-"]
        let input = Pipe()
        p.standardInput = input
        p.standardOutput = stdout
        FileManager.default.createFile(atPath: stderrLog.path, contents: nil)
        p.standardError = try FileHandle(forWritingTo: stderrLog)
        try p.run()
        watch = p
        let deadline = Date().addingTimeInterval(20)
        while !stderr.contains("preview at") && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let status = json(try client(["get", base + "/status"]).last ?? "")
        XCTAssertEqual(status["frames"] as? Int, 0, "nothing sent yet, and the page answers")
        input.fileHandleForWriting.write(try Data(contentsOf: URL(fileURLWithPath: CLI.fixture("stream-10fps.y4m"))))
        try input.fileHandleForWriting.close()
        while !stderr.contains("the source ended") && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertEqual(json(try client(["get", base + "/status"]).last ?? "")["frames"] as? Int, 15)
        let (code, records) = stopWatch()
        XCTAssertEqual(code, 0)
        XCTAssertEqual(records.count, 3)
    }

    /// Issue 21: 64 clients trickling a request one byte at a time hold no slot the page needs
    /// (8 connections per address; a request must be complete within 5 s, whatever trickles),
    /// and no other page may frame the preview (X-Frame-Options, CSP frame-ancestors).
    func testSlowClientsCannotHoldThePageAndNoPageFramesIt() throws {
        try startWatch([CLI.fixture("stream-10fps.y4m")], until: "the source ended")
        let script = CLI.packageRoot.appendingPathComponent("Tests/scanluaTests/Servers/slow_clients.py").path
        let out = try Process.outputAndStatus("/usr/bin/python3", [script, String(port), "64"])
        XCTAssertEqual(out.status, 0, out.output)
        let r = json(out.output.split(separator: "\n").last.map(String.init) ?? "")
        XCTAssertEqual(r["status_code"] as? Int, 200, out.output)
        XCTAssertLessThan(r["status_seconds"] as? Double ?? 99, 1.0, "/status answered within a second")
        XCTAssertEqual(r["closed"] as? Bool, true, "the server ends a request that never completes")
        XCTAssertLessThan(r["closed_after"] as? Double ?? 99, 7.0)
        XCTAssertEqual(r["x_frame_options"] as? String, "DENY")
        let csp = r["csp"] as? String ?? ""
        XCTAssertTrue(csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'self'") && csp.contains("script-src 'sha256-"), csp)
        // 64 streams held open from 8 addresses take at most 48 slots: /status still answers.
        let streams = try Process.outputAndStatus("/usr/bin/python3", [script, String(port), "8", "streams"])
        XCTAssertEqual(streams.status, 0, streams.output)
        let s = json(streams.output.split(separator: "\n").last.map(String.init) ?? "")
        XCTAssertEqual(s["status_code"] as? Int, 200, streams.output)
        XCTAssertLessThan(s["status_seconds"] as? Double ?? 99, 1.0, "/status answered within a second beside 64 streams")
    }

    func testABadOrBusyAddressIsAnError() throws {
        for value in ["nowhere", "0", "65536", "host:abc", "example.com:80"] {
            let bad = try CLI.run(["watch", "--serve", value, CLI.fixture("stream-10fps.y4m")])
            XCTAssertEqual(bad.status, 2, "a usage error: \(value)")
            XCTAssertTrue(bad.stderr.hasPrefix("Error: invalid value '\(value)' for '--serve': expected HOST:PORT (an IP address or localhost, a port 1-65535) such as 127.0.0.1:8080\n"), bad.stderr)
            XCTAssertEqual(bad.stdout, "")
        }
        try startWatch([CLI.fixture("stream-10fps.y4m")], until: "preview at")
        let busy = try CLI.run(["watch", "--serve", "127.0.0.1:\(port)", CLI.fixture("stream-10fps.y4m")])
        XCTAssertEqual(busy.status, 1)
        XCTAssertEqual(busy.stderr, "scanlua: --serve: cannot listen on 127.0.0.1:\(port): Address already in use\n")
        _ = stopWatch()
    }
}
