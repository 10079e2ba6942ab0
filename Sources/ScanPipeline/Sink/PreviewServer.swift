import Foundation
import ScanCore

/// `watch --serve HOST:PORT`: a live preview page in the browser. It shows the latest frame with
/// each code outlined and labelled, the latest codes with their payloads, the session's counters
/// and, for a camera that has one, the torch switch.
///
/// Endpoints: `/` (the page, no external assets), `/events` (Server-Sent Events: one `data:` line
/// per accepted code, the NDJSON record; `event: status` with the counters), `/frame.jpg` (the
/// latest frame with its outlines), `/stream.mjpeg` (those frames as multipart MJPEG), `/status`
/// (the counters as JSON) and `POST /torch?on=1|0`.
///
/// Frames are drawn and encoded only when a client asks, once per frame: with no one watching
/// the preview costs the session nothing but keeping its latest frame.
package final class PreviewServer: FrameObserver, @unchecked Sendable {
    /// Where the page is: `http://127.0.0.1:8080/`.
    package let url: String
    /// Codes the page and `/events` replay to a client that connects late.
    static let backlog = 50

    private let source: String
    private let loader: ImageLoader
    private var torch: ((Bool) throws -> Void)?
    private var torchOn: Bool?
    private var server: HTTPServer?
    /// The Host headers a loopback server answers (a page elsewhere that rebinds its DNS name to
    /// 127.0.0.1 sends its own name); nil when bound to another address.
    private let allowedHosts: Set<String>?

    private let lock = NSCondition()
    private var latest: ObservedFrame?
    private var frameID = 0
    /// The latest frame drawn (nil jpeg: it could not be), and the frame being drawn now.
    private var rendered: (id: Int, jpeg: [UInt8]?)?
    private var rendering: Int?
    private var records: [(id: Int, json: [UInt8])] = []
    private var lastRecordID = 0
    private var report = SessionReport()
    private var recentFrames: [Date] = []
    private var statusVersion = 0
    private var ended = false
    private var stopping = false

    package struct StartError: Error, CustomStringConvertible { package let description: String }

    /// Why `listen` is not an address to serve on, or nil.
    package static func check(_ listen: String) -> String? {
        guard let (host, port) = parse(listen), HTTPServer.address(host: host, port: port) != nil else {
            return "invalid value '\(listen)' for '--serve': expected HOST:PORT (an IP address or localhost, a port 1-65535) such as 127.0.0.1:8080"
        }
        return nil
    }

    /// Listens on `listen` (`HOST:PORT`, `:PORT` or `PORT`; the host defaults to 127.0.0.1), before
    /// the source is opened: the page says it waits for the first frame.
    package init(listen: String, source: String, loader: ImageLoader) throws(StartError) {
        guard let (host, port) = Self.parse(listen), let address = HTTPServer.address(host: host, port: port) else {
            throw StartError(description: Self.check(listen)!)
        }
        self.source = source
        self.loader = loader
        url = "http://\(HTTPServer.describe(address))/"
        let loopback = url.hasPrefix("http://127.") || url.hasPrefix("http://[::1]")
        allowedHosts = loopback ? ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", HTTPServer.describe(address)] : nil
        let headers = [("X-Frame-Options", "DENY"), ("Content-Security-Policy", PreviewPage.contentSecurityPolicy),
                       ("X-Content-Type-Options", "nosniff")]
        do { server = try HTTPServer(address: address, headers: headers) { [unowned self] in self.reply(to: $0) } } catch {
            throw StartError(description: "--serve: \(error)")
        }
    }

    /// The camera's torch switch, once the source is open (nil: it has none).
    package func setTorch(_ torch: ((Bool) throws -> Void)?) {
        lock.lock()
        self.torch = torch
        torchOn = torch == nil ? nil : false
        statusVersion += 1
        lock.broadcast()
        lock.unlock()
    }

    static func parse(_ text: String) -> (String, UInt16)? {
        let host: Substring, port: Substring
        if let colon = text.lastIndex(of: ":"), !text.hasSuffix("]") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        } else {
            host = ""
            port = text[...]
        }
        guard let p = UInt16(port), p > 0 else { return nil }
        return (host.isEmpty ? "127.0.0.1" : String(host), p)
    }

    /// Whether anyone on the network can reach the page (a host other than loopback).
    package var isPublic: Bool { allowedHosts == nil }

    /// Stops serving: streamed replies end, then the server's threads.
    package func stop() {
        lock.lock()
        stopping = true
        lock.broadcast()
        lock.unlock()
        server?.stop()
        server = nil
    }

    // MARK: the session's side

    package func frameDone(_ frame: ObservedFrame) {
        var json: [[UInt8]] = []
        for r in frame.records {
            var line: [UInt8] = []
            r.write(to: &line)
            json.append(line)
        }
        lock.lock()
        defer { lock.unlock() }
        latest = frame
        frameID += 1
        report = frame.report
        let now = Date()
        recentFrames.append(now)
        recentFrames.removeAll { now.timeIntervalSince($0) > 2 }
        for line in json {
            lastRecordID += 1
            records.append((lastRecordID, line))
        }
        if records.count > Self.backlog { records.removeFirst(records.count - Self.backlog) }
        statusVersion += 1
        lock.broadcast()
    }

    package func inputFailed(_ record: ScanRecord) {
        lock.lock()
        report.failedInputs += 1
        statusVersion += 1
        lock.broadcast()
        lock.unlock()
    }

    package func sessionEnded(_ report: SessionReport) {
        lock.lock()
        self.report = report
        ended = true
        statusVersion += 1
        lock.broadcast()
        lock.unlock()
    }

    // MARK: the server's side (its own threads)

    private func reply(to request: HTTPServer.Request) -> HTTPServer.Reply {
        if let allowedHosts, !allowedHosts.contains(request.header("Host") ?? "") {
            return .whole(status: 403, type: "text/plain", body: Array("this preview answers only to \(url)\n".utf8))
        }
        // HEAD is GET without the body (libmicrohttpd leaves it out).
        let method = request.method == "HEAD" ? "GET" : request.method
        switch (method, request.path) {
        case ("GET", "/"), ("GET", "/index.html"):
            lock.lock()
            let id = latest == nil ? 0 : frameID
            lock.unlock()
            return .whole(status: 200, type: "text/html; charset=utf-8", body: Array(PreviewPage.page(frameID: id).utf8))
        case ("GET", "/status"):
            lock.lock()
            defer { lock.unlock() }
            return .whole(status: 200, type: "application/json", body: statusJSON())
        case ("GET", "/events"):
            return .stream(type: "text/event-stream", next: eventStream(after: request.header("Last-Event-ID").flatMap(Int.init) ?? 0))
        case ("GET", "/frame.jpg"):
            guard let frame = currentJPEG() else { return .whole(status: 404, type: "text/plain", body: Array("no frame yet\n".utf8)) }
            guard let jpeg = frame.jpeg else {
                return .whole(status: 503, type: "text/plain", body: Array("the latest frame cannot be drawn (see scanlua's stderr)\n".utf8))
            }
            return .whole(status: 200, type: "image/jpeg", body: jpeg)
        case ("GET", "/stream.mjpeg"):
            return .stream(type: "multipart/x-mixed-replace; boundary=scanlua-frame", next: mjpegStream())
        case ("POST", "/torch"):
            // A page elsewhere may POST here without asking; it cannot add this header without asking.
            guard request.header("X-Scanlua") == "torch" else {
                return .whole(status: 403, type: "text/plain", body: Array("POST /torch needs the header X-Scanlua: torch\n".utf8))
            }
            return switchTorch(request.query("on"))
        case (_, "/torch"):
            return .whole(status: 405, type: "text/plain", body: Array("POST /torch?on=1 or ?on=0\n".utf8))
        case (_, "/"), (_, "/index.html"), (_, "/status"), (_, "/events"), (_, "/frame.jpg"), (_, "/stream.mjpeg"):
            return .whole(status: 405, type: "text/plain", body: Array("\(request.path) takes GET\n".utf8))
        default:
            return .whole(status: 404, type: "text/plain", body: Array("not found: \(request.path)\n".utf8))
        }
    }

    /// The counters as JSON; the caller holds the lock.
    private func statusJSON() -> [UInt8] {
        let fps = recentFrames.count > 1 && !ended
            ? Double(recentFrames.count - 1) / max(0.001, recentFrames.last!.timeIntervalSince(recentFrames.first!)) : 0
        let status: JSON = .object([
            ("source", .string(source)), ("frames", .int(report.frames)), ("accepted", .int(report.accepted)),
            ("dropped", .int(report.dropped)), ("failed", .int(report.failedInputs)), ("fps", .double((fps * 10).rounded() / 10)),
            ("frame_id", .int(frameID)), ("torch", torchOn.map(JSON.bool) ?? .null), ("ended", .bool(ended)),
        ])
        return Array(status.serialized.utf8)
    }

    /// `/events`: the backlog after `lastID`, then each new record as it comes; the counters at
    /// most five times a second; a comment every second so a closed page is noticed.
    private func eventStream(after lastID: Int) -> () -> [UInt8]? {
        // An id this session never gave is a page left open from an earlier run: it gets everything.
        lock.lock()
        var sent = lastID > lastRecordID || lastID < 0 ? 0 : lastID
        lock.unlock()
        var sentStatus = -1
        var statusAt = Date.distantPast
        var first = true
        return { [unowned self] in
            lock.lock()
            defer { lock.unlock() }
            var out: [UInt8] = []
            if first { out += Array("retry: 1000\n\n".utf8); first = false }
            let deadline = Date().addingTimeInterval(1)
            while !stopping {
                for r in records where r.id > sent {
                    out += Array("id: \(r.id)\ndata: ".utf8) + r.json + Array("\n\n".utf8)
                    sent = r.id
                }
                if sentStatus != statusVersion, Date().timeIntervalSince(statusAt) >= 0.2 {
                    out += Array("event: status\ndata: ".utf8) + statusJSON() + Array("\n\n".utf8)
                    sentStatus = statusVersion
                    statusAt = Date()
                }
                if !out.isEmpty { return out }
                let wake = sentStatus != statusVersion ? min(deadline, statusAt.addingTimeInterval(0.2)) : deadline
                if !lock.wait(until: wake) && Date() >= deadline { return Array(": keepalive\n\n".utf8) }
            }
            return nil
        }
    }

    /// `/stream.mjpeg`: each new frame as one part; the last one again every two seconds.
    private func mjpegStream() -> () -> [UInt8]? {
        var sent = 0
        return { [unowned self] in
            lock.lock()
            let deadline = Date().addingTimeInterval(2)
            while !stopping && frameID == sent && lock.wait(until: deadline) {}
            let stop = stopping
            lock.unlock()
            guard !stop else { return nil }
            // Nothing yet, or a frame that cannot be drawn: a line the client skips, and a wait for the next frame.
            guard let frame = currentJPEG() else { return Array("\r\n".utf8) }
            sent = frame.id
            guard let jpeg = frame.jpeg else { return Array("\r\n".utf8) }
            return Array("--scanlua-frame\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n".utf8)
                + jpeg + Array("\r\n".utf8)
        }
    }

    /// The latest frame drawn and encoded, once per frame however many clients ask (the others
    /// wait for it); a frame that cannot be drawn is said once on stderr and has no JPEG.
    private func currentJPEG() -> (id: Int, jpeg: [UInt8]?)? {
        lock.lock()
        defer { lock.unlock() }
        while true {
            guard let frame = latest else { return nil }
            let id = frameID
            if let cached = rendered, cached.id == id { return cached }
            if rendering == id { lock.wait(); continue }
            rendering = id
            lock.unlock()
            var jpeg: [UInt8]?
            do {
                // A still that can no longer be decoded in color (rewritten meanwhile) is drawn gray.
                var picture = (try? frame.picture(loader: loader)) ?? frame.image.map(RGBImage.init)
                if picture != nil { Annotation.draw(frame.annotations, on: &picture!) }
                if let picture { jpeg = [UInt8](try ImageEncoder.jpeg(picture, quality: 80)) }
                else { Console.error("scanlua: --serve: \(frame.info.source): the frame can no longer be read to draw it\n") }
            } catch {
                Console.error("scanlua: --serve: \(error)\n")
            }
            lock.lock()
            rendering = nil
            if (rendered?.id ?? -1) < id { rendered = (id, jpeg) }
            lock.broadcast()
            return (id, jpeg)
        }
    }

    private func switchTorch(_ value: String?) -> HTTPServer.Reply {
        func error(_ status: Int, _ message: String) -> HTTPServer.Reply {
            .whole(status: status, type: "application/json", body: Array(JSON.object([("error", .string(message))]).serialized.utf8))
        }
        guard let torch else { return error(409, "\(source) has no torch") }
        guard let value, value == "1" || value == "0" else { return error(400, "expected on=1 or on=0") }
        do { try torch(value == "1") } catch let e { return error(500, "\(e)") }
        lock.lock()
        defer { lock.unlock() }
        torchOn = value == "1"
        statusVersion += 1
        lock.broadcast()
        return .whole(status: 200, type: "application/json", body: statusJSON())
    }
}
