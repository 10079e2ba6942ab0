import Foundation
import XCTest

/// `scanlua watch` on generated streams: frame by frame, what each session setting accepts.
/// The stream (scripts/make-fixtures) is 15 frames at 10 fps: A A A+B B A - A A A A A A A A A.
final class WatchCommandTests: XCTestCase {
    let y4m = CLI.fixture("stream-10fps.y4m")
    let mjpeg = CLI.fixture("stream-10fps.mjpeg")

    /// "frame:text" for each record.
    func accepted(_ args: [String], stdin: Data? = nil) throws -> (status: Int32, codes: [String], stderr: String) {
        let r = try CLI.run(["watch", "--no-default-scripts", "--quiet"] + args, stdin: stdin)
        return (r.status, r.records.map { "\($0["frame"] as? Int ?? 0):\(($0["text"] as? String ?? "?").dropFirst(5))" }, r.stderr)
    }

    /// A video file scanlua does not read is a clear failure that says which ffmpeg command does
    /// the job, guessed or named with --source mjpeg (which once ended silently with exit 4).
    func testAnMP4SaysHowToDecodeItWithFFmpeg() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data([0, 0, 0, 0x18] + Array("ftypmp42".utf8) + [UInt8](repeating: 7, count: 500)).write(to: URL(fileURLWithPath: path))
        let hint = "for other video (MP4, MKV, AVI, ...) let ffmpeg decode it: ffmpeg -loglevel error -i \(path) -f yuv4mpegpipe -pix_fmt gray - | scanlua watch -"
        let guessed = try CLI.run(["watch", "--quiet", path])
        XCTAssertEqual(guessed.status, 1)
        XCTAssertEqual(guessed.stderr, "scanlua: \(path): neither a YUV4MPEG2 nor an MJPEG stream; \(hint)\n")
        let named = try CLI.run(["watch", "--quiet", "--source", "mjpeg", path])
        XCTAssertEqual(named.status, 1)
        XCTAssertEqual(named.stderr, "scanlua: \(path): no JPEG frame in 512 bytes: not an MJPEG stream; \(hint)\n")
    }

    func testDuplicatePoliciesFrameByFrame() throws {
        let all = try accepted(["--duplicates", "all", y4m])
        XCTAssertEqual(all.codes, ["0:A", "1:A", "2:A", "2:B", "3:B", "4:A", "6:A", "7:A", "8:A", "9:A", "10:A", "11:A", "12:A", "13:A", "14:A"])
        XCTAssertEqual(try accepted(["--duplicates", "once", y4m]).codes, ["0:A", "2:B"])
        // Frame 2 is read left to right (A, then B): A repeats A, B is new, frame 3's B repeats it.
        XCTAssertEqual(try accepted(["--duplicates", "consecutive", y4m]).codes, ["0:A", "2:B", "4:A"])
        // The default: interval, 1 second; at 10 fps, A comes back at frame 10.
        XCTAssertEqual(try accepted([y4m]).codes, ["0:A", "2:B", "10:A"])
        XCTAssertEqual(try accepted(["--interval", "0.5", y4m]).codes, ["0:A", "2:B", "6:A", "11:A"])
    }

    func testVideoFramesRunZBarOnlyWhereZXingFoundNothing() throws {
        // Video frames use the fallback order (the next frame has another chance); thorough runs both.
        let r = try CLI.run(["watch", "--no-default-scripts", "--quiet", "--duplicates", "all", "--max-frames", "3", y4m])
        XCTAssertEqual(Set(r.records.compactMap { $0["decoder"] as? String }), ["zxing"], r.stdout)
        let t = try CLI.run(["watch", "--no-default-scripts", "--quiet", "--duplicates", "all", "--max-frames", "3",
                             "--effort", "thorough", y4m])
        XCTAssertEqual(Set(t.records.compactMap { $0["decoder"] as? String }), ["zbar+zxing"], t.stdout)
    }

    func testMJPEGStreamGivesTheSameFrames() throws {
        let r = try accepted(["--duplicates", "all", mjpeg])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.codes, ["0:A", "1:A", "2:A", "2:B", "3:B", "4:A", "6:A", "7:A", "8:A", "9:A", "10:A", "11:A", "12:A", "13:A", "14:A"])
    }

    func testStdinStreamsAreSniffed() throws {
        let y = try accepted(["--duplicates", "once", "-"], stdin: try Data(contentsOf: URL(fileURLWithPath: y4m)))
        XCTAssertEqual(y.codes, ["0:A", "2:B"])
        let m = try accepted(["--duplicates", "once", "-"], stdin: try Data(contentsOf: URL(fileURLWithPath: mjpeg)))
        XCTAssertEqual(m.codes, ["0:A", "2:B"])
        let bad = try accepted(["-"], stdin: Data("hello".utf8))
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("stdin is neither a YUV4MPEG2 nor an MJPEG stream"), bad.stderr)
    }

    /// A y4m header, a bad frame header, then zeros (issue 61, attack 9): the stream's error, exit 1,
    /// never a crash (stdin used to be relayed through a pipe whose writer trapped on EPIPE).
    func testAMalformedStreamOnStdinIsAnErrorNotACrash() throws {
        // Under a pipe's 64 KiB, so this test's own write ends before scanlua stops reading (the
        // attack's 300 KB would make the writer, not scanlua, meet the closed pipe).
        var crash = Data("YUV4MPEG2 W64 H48 F2:1 Cmono\nFRAMEX\n".utf8)
        crash.append(Data(count: 60_000))
        for _ in 0..<6 {
            let r = try CLI.run(["watch", "--no-default-scripts", "-"], stdin: crash)
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("-: bad frame header at byte 3108"), r.stderr)  // after the first frame (FRAMEX takes 3072 bytes)
            XCTAssertFalse(r.stderr.contains("Fatal error"), r.stderr)
        }
    }

    func testOnceROIAndLimits() throws {
        let once = try accepted(["--once", y4m])
        XCTAssertEqual(once.codes, ["0:A"])
        XCTAssertEqual(once.status, 0)
        // B sits in the right half of the frame, A in the left.
        XCTAssertEqual(try accepted(["--duplicates", "all", "--roi", "0.5,0,0.5,1", y4m]).codes, ["2:B", "3:B"])
        let roi = try CLI.run(["watch", "--no-default-scripts", "--quiet", "--once", "--roi", "120,0,120,180", y4m])
        let points = try XCTUnwrap(roi.records.first?["points"] as? [[Int]])
        XCTAssertTrue(points.allSatisfy { $0[0] >= 150 }, "points in frame coordinates: \(points)")
        XCTAssertEqual(try accepted(["--duplicates", "all", "--max-frames", "2", y4m]).codes, ["0:A", "1:A"])
        let none = try accepted(["--duplicates", "all", "--roi", "0,0,20,20", y4m])
        XCTAssertEqual(none.status, 4, "nothing found")
    }

    /// Issue 22 item 9: a producer that pauses after one frame (a motion-triggered camera, a
    /// --once station) gets that frame's record at once: the readers read what the frame needs.
    func testAPausedProducersLastFrameIsNotHeldBack() throws {
        let y4mBytes = try Data(contentsOf: URL(fileURLWithPath: y4m))
        let header = y4mBytes.prefix { $0 != 0x0A }.count + 1
        let frameBytes = 6 + 240 * 180 * 3 / 2  // "FRAME\n" and a 4:2:0 frame of the 240x180 fixture
        let mjpegBytes = try Data(contentsOf: URL(fileURLWithPath: mjpeg))
        let eoi = try XCTUnwrap((0..<mjpegBytes.count - 1).first { mjpegBytes[$0] == 0xFF && mjpegBytes[$0 + 1] == 0xD9 })
        for (kind, first) in [("y4m", y4mBytes.prefix(header + frameBytes)), ("mjpeg", mjpegBytes.prefix(eoi + 2))] {
            let p = Process()
            p.executableURL = CLI.binary
            p.arguments = ["watch", "--no-default-scripts", "--quiet", "--once", "--source", kind, "-"]
            let input = Pipe(), out = Pipe()
            p.standardInput = input
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            try p.run()
            let started = Date()
            input.fileHandleForWriting.write(first)  // one frame, then nothing: the producer pauses
            let writer = input.fileHandleForWriting
            DispatchQueue.global().asyncAfter(deadline: .now() + 6) { try? writer.close() }  // the test never hangs
            var line = Data()
            while !line.contains(0x0A) {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line += chunk
            }
            let seconds = Date().timeIntervalSince(started)
            try? input.fileHandleForWriting.close()
            p.waitUntilExit()
            XCTAssertTrue(String(decoding: line, as: UTF8.self).contains(#""text":"code-A""#), "\(kind): \(String(decoding: line, as: UTF8.self))")
            XCTAssertLessThan(seconds, 4, "\(kind): the first frame's record came while the producer was paused")
        }
    }

    func testBrokenStreamsAreErrorsAfterTheGoodFrames() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cut = dir.appendingPathComponent("cut.y4m")
        let data = try Data(contentsOf: URL(fileURLWithPath: y4m))
        try data.prefix(44 + 3 * (6 + 64800) + 1000).write(to: cut)
        let r = try accepted(["--duplicates", "all", cut.path])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.codes, ["0:A", "1:A", "2:A", "2:B"])
        XCTAssertTrue(r.stderr.contains("cut.y4m: stream ends inside frame 3"), r.stderr)
        let tenBit = dir.appendingPathComponent("10bit.y4m")
        try Data("YUV4MPEG2 W8 H8 F10:1 C420p10\n".utf8).write(to: tenBit)
        let t = try accepted([tenBit.path])
        XCTAssertTrue(t.stderr.contains("colour space C420p10 is not supported (8-bit 420, 422, 444 and mono are)"), t.stderr)
    }

    func testWatchedDirectoryScansNewFilesOnce() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-inbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(atPath: CLI.fixture("ean13.png"), toPath: dir.appendingPathComponent("old.png").path)
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["watch", "--no-default-scripts", "--quiet", "--duplicates", "all", "--timeout", "4", "--new-only", dir.path]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        Thread.sleep(forTimeInterval: 1)
        try FileManager.default.copyItem(atPath: CLI.fixture("qrcode.png"), toPath: dir.appendingPathComponent("new.png").path)
        try Data("not an image".utf8).write(to: dir.appendingPathComponent("broken.png"))
        try Data("ignored".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        // A file moved in after it was written elsewhere.
        let staged = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-staged-\(UUID().uuidString).png")
        try FileManager.default.copyItem(atPath: CLI.fixture("code128.png"), toPath: staged.path)
        try FileManager.default.moveItem(at: staged, to: dir.appendingPathComponent("moved.png"))
        p.waitUntilExit()
        let records = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let seen = records.map { (($0["source"] as? String ?? "") as NSString).lastPathComponent + "=" + ($0["text"] as? String ?? $0["error"] as? String ?? "") }
        XCTAssertEqual(seen.sorted(), ["moved.png=scanlua-Code128 ok", "new.png=https://example.com/scanlua"])
        // Files that are no image, whatever their name, are read by content and named on stderr
        // (records with --empty-records): nothing is passed over without a word.
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        for name in ["broken.png", "notes.txt"] {
            XCTAssertTrue(said.contains("\(name): skipped: no signature of JPEG, PNG, PNM"), said)
        }
    }

    /// Issue 24 item 1: a watched folder waits for a whole file and scans each content once, and
    /// the same bytes scanned again are the same delivery. A writer that closes and reopens the
    /// file per chunk, a touch, a copy moved over the file with the same bytes, then new bytes
    /// moved over it, then a restarted watch: two records, two requests at a real webhook.
    func testAWatchedFolderScansWholeFilesOncePerContentAndDeliversOnce() throws {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("scanlua-settle-\(UUID().uuidString)")
        let inbox = dir.appendingPathComponent("inbox")
        try fm.createDirectory(at: inbox, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        let webhook = try TestServer.webhook(in: dir)
        defer { webhook.stop() }
        let rule = dir.appendingPathComponent("post.lua").path
        try """
            require("scan").rule { name = "post", run = function(p, ctx)
              return { type = "http", url = "http://127.0.0.1:\(webhook.port)/hook", body = { text = ctx.event.text } }
            end }
            """.write(toFile: rule, atomically: true, encoding: .utf8)
        let args = ["watch", "--no-default-scripts", "--quiet", "--duplicates", "all", "--settle", "0.6", "--script", rule,
                    "--db", dir.appendingPathComponent("store.db").path, "--network", "127.0.0.1:\(webhook.port)"]
        func start(_ seconds: Int) throws -> (Process, Pipe) {
            let p = Process()
            p.executableURL = CLI.binary
            p.arguments = args + ["--timeout", String(seconds), inbox.path]
            let out = Pipe()
            p.standardOutput = out
            p.standardError = Pipe()
            try p.run()
            return (p, out)
        }
        func records(_ out: Pipe) -> [String] {
            String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").compactMap {
                guard let r = try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] else { return nil }
                let action = (r["actions"] as? [[String: Any]])?.first
                return "\(r["text"] as? String ?? r["error"] as? String ?? "?") \(action?["status"] as? String ?? "-")"
                    + ((action?["note"] as? String).map { " (\($0))" } ?? "")
            }
        }
        let (first, out) = try start(9)
        Thread.sleep(forTimeInterval: 1)
        // The chunked writer: 200-byte pieces 50 ms apart, each written by its own open and close.
        let target = inbox.appendingPathComponent("a.png")
        let ean = try Data(contentsOf: URL(fileURLWithPath: CLI.fixture("ean13.png")))
        fm.createFile(atPath: target.path, contents: nil)
        for start in stride(from: 0, to: ean.count, by: 200) {
            let h = try FileHandle(forWritingTo: target)
            try h.seekToEnd()
            try h.write(contentsOf: ean[start..<min(ean.count, start + 200)])
            try h.close()
            Thread.sleep(forTimeInterval: 0.05)
        }
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(spawnAndWait(["/usr/bin/touch", target.path]), 0)
        Thread.sleep(forTimeInterval: 1)
        let staged = inbox.appendingPathComponent("staged.png")
        XCTAssertEqual(spawnAndWait(["/bin/cp", target.path, staged.path]), 0)
        XCTAssertEqual(spawnAndWait(["/bin/mv", staged.path, target.path]), 0)
        Thread.sleep(forTimeInterval: 1.2)
        XCTAssertEqual(spawnAndWait(["/bin/cp", CLI.fixture("qrcode.png"), staged.path]), 0)
        XCTAssertEqual(spawnAndWait(["/bin/mv", staged.path, target.path]), 0)
        first.waitUntilExit()
        XCTAssertEqual(records(out), ["4719512002889 done", "https://example.com/scanlua done"])
        // A restarted watch scans what is there again: the same bytes, the same delivery.
        let (second, again) = try start(3)
        second.waitUntilExit()
        XCTAssertEqual(records(again), ["https://example.com/scanlua done (delivered before)"])
        // Other decoders give other corners: still the same code in the same bytes, the same delivery.
        let zbar = try CLI.run(["scan", "--no-default-scripts", "--decoders", "zbar"] + Array(args.dropFirst(7)) + [target.path])
        XCTAssertEqual((zbar.records.first?["actions"] as? [[String: Any]])?.first?["note"] as? String, "delivered before", zbar.stdout)
        let posted = webhook.requests.compactMap { (($0["body"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any])?["text"] as? String }
        XCTAssertEqual(posted, ["4719512002889", "https://example.com/scanlua"])
    }

    /// A FIFO named like an image in a watched folder is an error record, not a watch that hangs
    /// waiting for a writer; the folder's other images are scanned, each read once.
    func testAFIFOInAWatchedFolderIsAnErrorNotAHang() throws {
        let fm = FileManager.default
        let inbox = fm.temporaryDirectory.appendingPathComponent("scanlua-fifo-\(UUID().uuidString)")
        try fm.createDirectory(at: inbox, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: inbox) }
        XCTAssertEqual(spawnAndWait(["/usr/bin/mkfifo", inbox.appendingPathComponent("a-pipe.png").path]), 0)
        try fm.copyItem(atPath: CLI.fixture("qrcode.png"), toPath: inbox.appendingPathComponent("b.png").path)
        let r = try CLI.run(["watch", "--no-default-scripts", "--quiet", "--duplicates", "all", "--timeout", "3", inbox.path])
        let seen = r.records.map { (($0["source"] as? String ?? "") as NSString).lastPathComponent + "=" + ($0["text"] as? String ?? $0["error"] as? String ?? "") }
        XCTAssertEqual(seen, ["a-pipe.png=cannot read file: not a regular file (a FIFO)", "b.png=https://example.com/scanlua"], r.stderr)
    }

    /// A file still being written when the watch starts waits its settle time like a new one.
    func testAFileBeingWrittenWhenTheWatchStartsIsReadOnceComplete() throws {
        let fm = FileManager.default
        let inbox = fm.temporaryDirectory.appendingPathComponent("scanlua-settle-start-\(UUID().uuidString)")
        try fm.createDirectory(at: inbox, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: inbox) }
        let photo = try Data(contentsOf: CLI.packageRoot.appendingPathComponent("examples/images/einvoice-pair.jpg"))
        let target = inbox.appendingPathComponent("c.jpg")
        fm.createFile(atPath: target.path, contents: photo.prefix(2000))
        let writer = Thread {
            for start in stride(from: 2000, to: photo.count, by: 4000) {
                Thread.sleep(forTimeInterval: 0.15)
                if let h = try? FileHandle(forWritingTo: target) {
                    _ = try? h.seekToEnd()
                    try? h.write(contentsOf: photo[start..<min(photo.count, start + 4000)])
                    try? h.close()
                }
            }
        }
        writer.start()
        let r = try CLI.run(["watch", "--no-default-scripts", "--quiet", "--duplicates", "all", "--settle", "0.5", "--timeout", "5", inbox.path])
        XCTAssertEqual(r.records.filter { $0["error"] != nil }.count, 0, "no half-written read: \(r.stdout)")
        XCTAssertEqual(r.records.compactMap { $0["symbology"] as? String }, ["qrcode", "qrcode"], r.stdout)
    }

    /// A consume folder as users know it: what is there at the start is scanned first, then new
    /// files in it and in every folder below it, folders made while watching included.
    func testWatchedFolderScansWhatIsThereAndItsSubfolders() throws {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("scanlua-consume-\(UUID().uuidString)")
        try fm.createDirectory(at: dir.appendingPathComponent("2026/12"), withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        try fm.copyItem(atPath: CLI.fixture("ean13.png"), toPath: dir.appendingPathComponent("old.png").path)
        try fm.copyItem(atPath: CLI.fixture("ean8.png"), toPath: dir.appendingPathComponent("2026/12/deep.png").path)
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["watch", "--no-default-scripts", "--quiet", "--duplicates", "all", "--timeout", "4", dir.path]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = Pipe()
        try p.run()
        Thread.sleep(forTimeInterval: 1)
        try fm.copyItem(atPath: CLI.fixture("qrcode.png"), toPath: dir.appendingPathComponent("2026/12/new.png").path)
        try fm.createDirectory(at: dir.appendingPathComponent("later"), withIntermediateDirectories: true)
        Thread.sleep(forTimeInterval: 0.3)
        try fm.copyItem(atPath: CLI.fixture("code128.png"), toPath: dir.appendingPathComponent("later/made.png").path)
        p.waitUntilExit()
        let records = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let seen = records.map { ($0["source"] as? String ?? "").replacingOccurrences(of: dir.path + "/", with: "") + "=" + ($0["text"] as? String ?? "") }
        XCTAssertEqual(Array(seen.prefix(2)), ["2026/12/deep.png=96385074", "old.png=4719512002889"], "what was there, first, sorted")
        XCTAssertEqual(Set(seen.dropFirst(2)), ["2026/12/new.png=https://example.com/scanlua", "later/made.png=scanlua-Code128 ok"])
        XCTAssertEqual(seen.count, 4, "each once")
    }

    /// The watch status line under a pseudo-terminal is cleared before each record (it was
    /// printed as `frames 1 66.5 fps codes 0 dropped 0 QR-Code:CODE-A`).
    func testTheStatusLineIsNeverGluedToARecord() throws {
        let command = "'\(CLI.binary.path)' watch --no-default-scripts --format text --duplicates all --max-fps 4 --max-frames 8 '\(CLI.fixture("stream-10fps.y4m"))'"
        let output = try Process.output("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"])
        XCTAssertTrue(output.contains(" fps  codes "), output)
        XCTAssertNil(output.range(of: #"dropped \d+[^\r]"#, options: .regularExpression), "a status line is always cleared or ended before what follows: \(output)")
    }

    func testCameraErrorsAPersonUnderstands() throws {
        let missing = try CLI.run(["watch", "/dev/video99"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("/dev/video99: no such camera"), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("`scanlua devices` lists the cameras there are"), missing.stderr)
        let notCamera = try CLI.run(["watch", "--source", "camera", "/dev/null"])
        XCTAssertEqual(notCamera.status, 1)
        XCTAssertTrue(notCamera.stderr.contains("/dev/null: not a camera: not a V4L2 device"), notCamera.stderr)

        // Permission denied, as a user outside the device's group sees it.
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") else {
            throw XCTSkip("needs root and runuser to act as another user")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-cam-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fake = dir.appendingPathComponent("video0")
        try Data().write(to: fake)
        chmod(fake.path, 0o600)
        chmod(dir.path, 0o755)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
        p.arguments = ["-u", "nobody", "--", CLI.binary.path, "watch", "--no-default-scripts", "--source", "camera", fake.path]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = Pipe()
        try p.run()
        p.waitUntilExit()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(p.terminationStatus, 1, text)
        XCTAssertTrue(text.contains("\(fake.path): permission denied: cameras are for members of the 'root' group; run `sudo usermod -aG root $USER`"), text)
    }

    func testSessionHooksSeeEveryFrame() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-hooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("hooks.lua").path
        try """
            local scan = require "scan"
            local frames, symbols, started = 0, 0, false
            scan.on_start(function() started = true end)
            scan.on_frame(function(f) frames = frames + 1; symbols = symbols + #f.symbols; assert(f.width == 240) end)
            scan.on_stop(function(s)
              print(string.format("started=%s frames=%d symbols=%d session=%d/%d/%d", tostring(started), frames, symbols,
                s.frames, s.accepted, s.dropped))
            end)
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let r = try CLI.run(["watch", "--no-default-scripts", "--quiet", "--script", script, y4m])
        XCTAssertTrue(r.stderr.contains("started=true frames=15 symbols=15 session=15/3/0"), r.stderr)
    }
}

extension WatchCommandTests {
    func testSessionSettingsFromTheConfigAndFlagsWin() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-wcfg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("init.lua").path
        try "require('scan').options { duplicates = 'once', roi = '0.5,0,0.5,1' }\n".write(toFile: config, atomically: true, encoding: .utf8)
        XCTAssertEqual(try accepted(["--config", config, y4m]).codes, ["2:B"])
        XCTAssertEqual(try accepted(["--config", config, "--duplicates", "all", y4m]).codes, ["2:B", "3:B"])
        let bad = dir.appendingPathComponent("bad.lua").path
        try "require('scan').options { duplicates = 'sometimes' }\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try CLI.run(["watch", "--config", bad, y4m])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains(#"scan.options: invalid value "sometimes" for 'duplicates': expected once, interval, consecutive or all"#), r.stderr)
    }
}
