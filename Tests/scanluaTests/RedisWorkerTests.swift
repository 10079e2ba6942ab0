import Foundation
import XCTest

/// Issue 15: a Redis Streams work queue that loses no job. redis-server runs on a loopback
/// port with persistence off, started here and stopped at the end.
final class RedisWorkerTests: XCTestCase {
    var dir: URL!
    var redis: TestServer!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        redis = try TestServer.redis(in: dir)
    }

    override func tearDownWithError() throws {
        redis?.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    var url: String { "redis://127.0.0.1:\(redis.port)" }

    func worker(_ name: String, _ extra: [String] = []) throws -> Process {
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["worker", "--redis", url, "--consumer", name, "--claim-after", "1", "--idle-exit", "4", "--no-default-scripts"] + extra
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// 120 jobs, three workers, one killed with SIGKILL mid-run, a fourth that reclaims its job:
    /// every job has exactly one result, the records are those of one `scan`, and the poisoned job
    /// is in the dead-letter stream.
    func testNoJobIsLostOrDoneTwiceWhenAWorkerIsKilled() throws {
        let images = dir.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        let fixtures = ["qrcode.png", "ean13.png", "code128.png", "code39.png", "qr-utf8.png", "ean8.png"]
        for i in 0..<120 {
            try FileManager.default.copyItem(atPath: CLI.fixture(fixtures[i % fixtures.count]),
                                             toPath: images.appendingPathComponent(String(format: "job-%03d.png", i)).path)
        }
        let enqueue = try CLI.run(["enqueue", "--redis", url, images.path])
        XCTAssertEqual(enqueue.stdout, "enqueued 120\n", enqueue.stderr)
        _ = try redis.redisCLI(["XADD", "scanlua:jobs", "*", "bogus", "1"])  // neither path nor data

        let workers = try ["w1", "w2", "w3"].map { try worker($0) }
        Thread.sleep(forTimeInterval: 0.8)
        kill(workers[0].processIdentifier, SIGKILL)
        let fourth = try worker("w4")
        for p in workers + [fourth] { p.waitUntilExit() }
        XCTAssertEqual(workers[0].terminationReason, .uncaughtSignal)
        for p in workers.dropFirst() + [fourth] { XCTAssertEqual(p.terminationStatus, 0) }

        // One result per job, none twice.
        let jobs = try redis.redisCLI(["--raw", "XRANGE", "scanlua:results", "-", "+"]).split(separator: "\n")
        var jobIDs: [String] = []
        for (i, line) in jobs.enumerated() where line == "job" && i + 1 < jobs.count { jobIDs.append(String(jobs[i + 1])) }
        XCTAssertEqual(jobIDs.count, 120, "one result per job")
        XCTAssertEqual(Set(jobIDs).count, 120, "no job twice")
        XCTAssertEqual(try redis.redisCLI(["XLEN", "scanlua:jobs:dead"]), "1\n", "the poisoned job is a dead letter")
        XCTAssertTrue(try redis.redisCLI(["--raw", "XRANGE", "scanlua:jobs:dead", "-", "+"])
            .contains("the job has neither a path nor data field"))
        XCTAssertTrue(try redis.redisCLI(["XPENDING", "scanlua:jobs", "scanlua"]).hasPrefix("0\n"), "nothing left pending")

        // The records are those of one scan of the same images.
        let results = try CLI.run(["results", "--redis", url])
        let scan = try CLI.run(["scan", "--no-default-scripts", images.path])
        // (zbar's quality count may differ from run to run: compare what was read, and where.)
        func reads(_ r: CLI.Result) -> [String] {
            r.records.map { "\($0["source"] ?? "") \($0["symbology"] ?? "") \($0["text"] ?? "") \($0["points"] ?? "")" }.sorted()
        }
        let (got, want) = (reads(results), reads(scan))
        XCTAssertEqual(got.count, want.count)
        XCTAssertTrue(got == want, "\(zip(got, want).filter { $0 != $1 }.count) records differ from those of scan")
    }

    /// A job whose consumers keep dying (here: one that read it and vanished) is handed out again;
    /// past --max-attempts it goes to the dead letters with its error instead of a third try.
    func testAJobHandedOutTooOftenIsADeadLetter() throws {
        XCTAssertEqual(try CLI.run(["enqueue", "--redis", url, CLI.fixture("qrcode.png")]).stdout, "enqueued 1\n")
        _ = try redis.redisCLI(["XGROUP", "CREATE", "scanlua:jobs", "scanlua", "0", "MKSTREAM"])
        _ = try redis.redisCLI(["XREADGROUP", "GROUP", "scanlua", "ghost", "COUNT", "1", "STREAMS", "scanlua:jobs", ">"])
        Thread.sleep(forTimeInterval: 1.2)  // the ghost's claim is older than --claim-after
        let p = try worker("heir", ["--max-attempts", "1", "--idle-exit", "1"])
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        XCTAssertEqual(try redis.redisCLI(["XLEN", "scanlua:results"]), "0\n", "no result for it")
        let dead = try redis.redisCLI(["--raw", "XRANGE", "scanlua:jobs:dead", "-", "+"])
        XCTAssertTrue(dead.contains("delivered 2 times without a result (the workers that took it died)"), dead)
        XCTAssertTrue(dead.contains(CLI.fixture("qrcode.png")), "the job's fields go with it")
        XCTAssertTrue(try redis.redisCLI(["XPENDING", "scanlua:jobs", "scanlua"]).hasPrefix("0\n"))
    }

    func testInlineJobsCarryTheImageAndBadURLsAreErrors() throws {
        let enqueue = try CLI.run(["enqueue", "--redis", url, "--inline", CLI.fixture("qrcode.png")])
        XCTAssertEqual(enqueue.stdout, "enqueued 1\n")
        let p = try worker("solo", ["--idle-exit", "1"])
        p.waitUntilExit()
        let r = try CLI.run(["results", "--redis", url])
        XCTAssertEqual(r.records.count, 1)
        XCTAssertEqual(r.records.first?["text"] as? String, "https://example.com/scanlua")
        XCTAssertEqual(r.records.first?["source"] as? String, CLI.fixture("qrcode.png"))
        let down = try CLI.run(["enqueue", "--redis", "redis://127.0.0.1:\(TestServer.freePort())", CLI.fixture("qrcode.png")])
        XCTAssertEqual(down.status, 1)
        XCTAssertTrue(down.stderr.contains("cannot connect: Connection refused"), down.stderr)
        XCTAssertEqual(try CLI.run(["worker"]).status, 2, "--redis is required")
    }

    /// Issue 22 item 8: a worker started while Redis is down waits for it, and one whose Redis
    /// restarts reconnects and goes on; `scan.on_start`/`on_stop` run once for its whole life.
    func testAWorkerWaitsForRedisAndSurvivesItsRestart() throws {
        redis.stop()
        let port = redis.port
        let hooks = dir.appendingPathComponent("hooks.lua").path
        try """
            local scan = require "scan"
            scan.on_start(function() io.stderr:write("HOOK start\\n") end)
            scan.on_stop(function(s) io.stderr:write("HOOK stop " .. s.frames .. "\\n") end)
            """.write(toFile: hooks, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["worker", "--redis", url, "--consumer", "w", "--claim-after", "1", "--idle-exit", "6", "--no-default-scripts",
                       "--trust", "--script", hooks]
        let err = Pipe()
        p.standardOutput = FileHandle.nullDevice
        p.standardError = err
        try p.run()
        Thread.sleep(forTimeInterval: 1.5)
        redis = try TestServer.redis(in: dir, port: port)  // Redis comes up after the worker
        XCTAssertEqual(try CLI.run(["enqueue", "--redis", url, CLI.fixture("qrcode.png")]).status, 0)
        var deadline = Date().addingTimeInterval(10)
        while try redis.redisCLI(["XLEN", "scanlua:results"]) != "1\n" && Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        XCTAssertEqual(try redis.redisCLI(["XLEN", "scanlua:results"]), "1\n", "the job of a worker that waited for Redis")
        redis.stop()  // a restart: no persistence, so the stream starts over
        Thread.sleep(forTimeInterval: 1)
        redis = try TestServer.redis(in: dir, port: port)
        XCTAssertEqual(try CLI.run(["enqueue", "--redis", url, CLI.fixture("ean13.png")]).status, 0)
        deadline = Date().addingTimeInterval(15)
        while try redis.redisCLI(["XLEN", "scanlua:results"]) != "1\n" && Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        XCTAssertTrue(try redis.redisCLI(["--raw", "XRANGE", "scanlua:results", "-", "+"]).contains("4719512002889"), "the job after the restart")
        p.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(p.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("waiting for it"), stderr)
        XCTAssertTrue(stderr.contains("reconnected to \(url)"), stderr)
        XCTAssertEqual(stderr.components(separatedBy: "HOOK start").count - 1, 1, stderr)
        XCTAssertTrue(stderr.contains("HOOK stop 2\n"), "on_stop once, with both jobs' frames: \(stderr)")
    }

    /// Issue 22 item 8: a relative path is enqueued as an absolute one (a worker started elsewhere
    /// reads the same file); each jobs stream has its own results stream; `results --after ID`
    /// prints only what came after, and says where it ended.
    func testStreamsKeepTheirResultsPathsAreAbsoluteAndResultsHaveACursor() throws {
        let images = CLI.packageRoot.appendingPathComponent("Tests/ScanCoreTests/Fixtures")
        let enqueue = try CLI.run(["enqueue", "--redis", url, "--stream", "t2", "qrcode.png", "ean13.png"], cwd: images)
        XCTAssertEqual(enqueue.stdout, "enqueued 2\n", enqueue.stderr)
        let paths = try redis.redisCLI(["--raw", "XRANGE", "t2", "-", "+"]).split(separator: "\n").filter { $0.hasPrefix("/") }.map(String.init)
        XCTAssertEqual(paths, [images.appendingPathComponent("qrcode.png").path, images.appendingPathComponent("ean13.png").path])
        let p = try worker("elsewhere", ["--stream", "t2", "--idle-exit", "1"])  // the worker's directory is not images/
        p.waitUntilExit()
        XCTAssertEqual(try redis.redisCLI(["XLEN", "scanlua:results"]), "0\n", "another queue's results stay apart")
        let all = try CLI.run(["results", "--redis", url, "--stream", "t2"])
        XCTAssertEqual(all.records.compactMap { $0["text"] as? String }.sorted(), ["4719512002889", "https://example.com/scanlua"])
        XCTAssertEqual(try CLI.run(["results", "--redis", url]).stdout, "", "the default stream has no results")
        // Each entry: its id, then its fields (job first).
        let lines = try redis.redisCLI(["--raw", "XRANGE", "t2:results", "-", "+"]).split(separator: "\n")
        let ids = lines.indices.dropLast().filter { lines[$0 + 1] == "job" }.map { lines[$0] }
        XCTAssertEqual(ids.count, 2)
        XCTAssertTrue(all.stderr.contains("scanlua: results up to \(ids[1]) (--after \(ids[1]) continues from there)"), all.stderr)
        let after = try CLI.run(["results", "--redis", url, "--stream", "t2", "--after", String(ids[0])])
        XCTAssertEqual(after.records.count, 1)
        XCTAssertEqual(try CLI.run(["results", "--redis", url, "--stream", "t2", "--after", String(ids[1])]).stdout, "")
    }

    /// `results --follow` waits with XREAD BLOCK and prints a result as soon as it is written.
    func testResultsFollowPrintsNewResultsAsTheyCome() throws {
        let follow = Process()
        follow.executableURL = CLI.binary
        follow.arguments = ["results", "--redis", url, "--follow"]
        let out = Pipe()
        follow.standardOutput = out
        follow.standardError = FileHandle.nullDevice
        try follow.run()
        defer { if follow.isRunning { follow.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 12) { if follow.isRunning { follow.terminate() } }  // never hangs
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try CLI.run(["enqueue", "--redis", url, CLI.fixture("qrcode.png")]).status, 0)
        let p = try worker("one", ["--idle-exit", "1"])
        p.waitUntilExit()
        var line = Data()
        let deadline = Date().addingTimeInterval(8)
        let reader = out.fileHandleForReading
        while !line.contains(0x0A) && Date() < deadline {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        XCTAssertTrue(String(decoding: line, as: UTF8.self).contains("https://example.com/scanlua"), String(decoding: line, as: UTF8.self))
        follow.terminate()
        follow.waitUntilExit()
    }

    /// Issue 21: `--root DIR` confines job paths (realpath: links and .. that lead out are out);
    /// others get an error result and nothing is read. Directories and FIFOs are "not a regular
    /// file" (a FIFO once blocked the worker). Without --root the worker says what that allows.
    func testRootConfinesJobPathsAndOddFilesAreNamed() throws {
        let root = dir.appendingPathComponent("inbox"), fm = FileManager.default
        try fm.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: CLI.fixture("qrcode.png"), toPath: root.appendingPathComponent("code.png").path)
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("etc").path, withDestinationPath: "/etc")
        XCTAssertEqual(mkfifo(root.appendingPathComponent("pipe").path, 0o600), 0)
        let jobs = [root.appendingPathComponent("code.png").path, "/etc/hostname", root.appendingPathComponent("etc/hostname").path,
                    root.path + "/sub/../../escape.png", root.appendingPathComponent("pipe").path, root.appendingPathComponent("sub").path]
        for j in jobs { _ = try redis.redisCLI(["XADD", "scanlua:jobs", "*", "path", j]) }
        let run = try CLI.run(["worker", "--redis", url, "--root", root.path, "--idle-exit", "1", "--no-default-scripts"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stderr.contains("no --root"), run.stderr)
        let r = try CLI.run(["results", "--redis", url])
        let bySource = Dictionary(r.records.map { (($0["source"] as? String) ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(bySource[jobs[0]]?["text"] as? String, "https://example.com/scanlua")
        for outside in jobs[1...3] {
            XCTAssertTrue((bySource[outside]?["error"] as? String ?? "").contains("outside the worker's --root"), "\(outside): \(r.stdout)")
        }
        XCTAssertTrue((bySource[jobs[4]]?["error"] as? String ?? "").contains("not a regular file (a FIFO)"), r.stdout)
        XCTAssertTrue((bySource[jobs[5]]?["error"] as? String ?? "").contains("not a regular file (a directory)"), r.stdout)
        XCTAssertFalse(r.stdout.contains(ProcessInfo.processInfo.hostName + "\""), "nothing of /etc/hostname was read")

        _ = try redis.redisCLI(["XADD", "scanlua:jobs", "*", "path", "/dev/zero"])
        let open = try CLI.run(["worker", "--redis", url, "--idle-exit", "1", "--no-default-scripts"])
        XCTAssertTrue(open.stderr.contains("no --root: a job may name any file this worker can read"), open.stderr)
        let zero = try CLI.run(["results", "--redis", url]).records.first { ($0["source"] as? String) == "/dev/zero" }
        XCTAssertTrue((zero?["error"] as? String ?? "").contains("not a regular file (a device)"), "\(zero ?? [:])")
        XCTAssertEqual(try CLI.run(["worker", "--redis", url, "--root", dir.appendingPathComponent("nowhere").path]).status, 2)
    }

    /// The root is checked on the file as opened: a link to a file outside, swapped in and out
    /// while jobs wait, never gets that file read (it was read in 26 of 300 jobs when the path was
    /// checked and then opened again).
    func testASwappedInLinkCannotLeadOutOfTheRoot() throws {
        let root = dir.appendingPathComponent("inbox"), fm = FileManager.default
        try fm.createDirectory(at: root, withIntermediateDirectories: true)
        let target = root.appendingPathComponent("x.png").path
        let inside = root.appendingPathComponent("inside.png").path, secret = CLI.fixture("qr-dark.png")
        try fm.copyItem(atPath: CLI.fixture("qrcode.png"), toPath: inside)
        for _ in 0..<150 { _ = try redis.redisCLI(["XADD", "scanlua:jobs", "*", "path", target]) }
        let stop = Flag()
        let swapper = Thread {
            var i = 0
            while !stop.isSet {
                let tmp = root.appendingPathComponent("swap.tmp").path
                unlink(tmp)
                if i % 2 == 0 { _ = symlink(secret, tmp) } else { _ = link(inside, tmp) }
                rename(tmp, target)
                i += 1
            }
        }
        swapper.start()
        defer { stop.set() }
        let run = try CLI.run(["worker", "--redis", url, "--root", root.path, "--idle-exit", "1", "--no-default-scripts"])
        stop.set()
        XCTAssertEqual(run.status, 0, run.stderr)
        let r = try CLI.run(["results", "--redis", url])
        XCTAssertEqual(r.records.count, 150, r.stderr)
        XCTAssertFalse(r.stdout.contains("scanlua dark photo"), "the file outside the root was read")
        XCTAssertTrue(r.stdout.contains("https://example.com/scanlua"), "the file inside was read")
    }
}
