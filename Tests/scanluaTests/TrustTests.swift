import Foundation
import XCTest

/// Issue 12 A1: a `./scanlua.lua` runs only once trusted with its current contents, and no
/// action can write the trust list.
final class TrustTests: XCTestCase {
    var dir: URL!
    var env: [String: String] = [:]

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        env = ["XDG_STATE_HOME": dir.appendingPathComponent("state").path]
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func payloadType(_ r: CLI.Result) -> String? { (r.records.first?["payload"] as? [String: Any])?["type"] as? String }

    func testAConfigInTheWorkingDirectoryRunsOnlyOnceTrusted() throws {
        let config = dir.appendingPathComponent("scanlua.lua")
        try "require('scan').parser { name = 'mine', parse = function() return { type = 'mine' } end }\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let untrusted = try CLI.run(["simulate", "--perform", "all", "--text", "x"], cwd: dir, env: env)
        XCTAssertEqual(untrusted.status, 2)
        XCTAssertTrue(untrusted.records.isEmpty)
        XCTAssertTrue(untrusted.stderr.contains(
            "./scanlua.lua is not trusted, so it was not run: read it, then `scanlua trust scanlua.lua` (or name it with --config scanlua.lua)"),
            untrusted.stderr)

        let trust = try CLI.run(["trust", "scanlua.lua"], cwd: dir, env: env)
        XCTAssertEqual(trust.status, 0, trust.stderr)
        let real = config.resolvingSymlinksInPath().path
        XCTAssertEqual(trust.stdout, "trusted \(real)\n")
        XCTAssertEqual(payloadType(try CLI.run(["simulate", "--perform", "all", "--text", "x"], cwd: dir, env: env)), "mine")

        // The list holds the SHA-256 of the contents (checked against sha256sum's).
        let list = try String(contentsOfFile: dir.appendingPathComponent("state/scanlua/trust").path, encoding: .utf8)
        let sum = try Process.output("/usr/bin/sha256sum", [config.path]).split(separator: " ").first.map(String.init)
        XCTAssertEqual(list, "\(try XCTUnwrap(sum)) \(real)\n")
        XCTAssertEqual(try CLI.run(["trust", "--list"], env: env).stdout, list)

        // A changed file is refused until trusted again.
        try "require('scan').options { trust = true }\n".write(to: config, atomically: true, encoding: .utf8)
        let changed = try CLI.run(["simulate", "--perform", "all", "--text", "x"], cwd: dir, env: env)
        XCTAssertEqual(changed.status, 2)
        XCTAssertTrue(changed.stderr.contains("./scanlua.lua changed since it was trusted, so it was not run"), changed.stderr)
        // Naming it needs no trust.
        XCTAssertEqual(try CLI.run(["simulate", "--perform", "all", "--config", "scanlua.lua", "--text", "x"], cwd: dir, env: env).status, 0)

        XCTAssertEqual(try CLI.run(["trust", "--remove", "scanlua.lua"], cwd: dir, env: env).stdout, "untrusted scanlua.lua\n")
        let again = try CLI.run(["trust", "--remove", "scanlua.lua"], cwd: dir, env: env)
        XCTAssertEqual(again.status, 1)
        XCTAssertEqual(again.stderr, "scanlua: scanlua.lua is not on the trust list\n")
        XCTAssertEqual(try CLI.run(["trust", "missing.lua"], cwd: dir, env: env).stderr, "scanlua: missing.lua: cannot read it\n")
        XCTAssertEqual(try CLI.run(["trust"], env: env).status, 2)
    }

    /// A link named scanlua.lua would borrow the trust of the file it points to (and run with this
    /// folder's modules); a relative XDG_STATE_HOME (a folder's own trust list) is ignored.
    func testALinkedConfigAndARelativeStateHomeAreNotTrusted() throws {
        let mine = dir.appendingPathComponent("mine"), evil = dir.appendingPathComponent("evil")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: evil, withIntermediateDirectories: true)
        try "require('scan').options { default_scripts = false }\n".write(to: mine.appendingPathComponent("scanlua.lua"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try CLI.run(["trust", "scanlua.lua"], cwd: mine, env: env).status, 0)
        try FileManager.default.createSymbolicLink(atPath: evil.appendingPathComponent("scanlua.lua").path,
                                                   withDestinationPath: mine.appendingPathComponent("scanlua.lua").path)
        let linked = try CLI.run(["simulate", "--perform", "all", "--text", "x"], cwd: evil, env: env)
        XCTAssertEqual(linked.status, 2)
        XCTAssertTrue(linked.stderr.contains("./scanlua.lua is a symbolic link, so it was not run"), linked.stderr)
        // A folder shipping st/scanlua/trust that trusts its own config, with XDG_STATE_HOME=st.
        let shipped = dir.appendingPathComponent("shipped")
        try FileManager.default.createDirectory(at: shipped.appendingPathComponent("st/scanlua"), withIntermediateDirectories: true)
        try "require('scan').options { default_scripts = false }\n".write(to: shipped.appendingPathComponent("scanlua.lua"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try CLI.run(["trust", "scanlua.lua"], cwd: shipped, env: ["XDG_STATE_HOME": shipped.appendingPathComponent("st").path]).status, 0)
        let relative = try CLI.run(["simulate", "--perform", "all", "--text", "x"], cwd: shipped, env: ["XDG_STATE_HOME": "st", "HOME": dir.path])
        XCTAssertEqual(relative.status, 2, "the relative state home is ignored, so the config is not trusted")
    }

    // MARK: Issue 21: what runs with config powers is exactly what was trusted

    func write(_ text: String, _ name: String, in folder: URL? = nil) throws {
        try text.write(to: (folder ?? dir).appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    /// A trusted config's module is checked too: swapping only mine.lua for one that lifts the
    /// limits is refused until mine.lua is trusted itself, and again once it changes.
    func testModulesATrustedConfigRequiresMustBeTrustedToo() throws {
        try write("require 'mine'\n", "scanlua.lua")
        try write("require('scan').options { max_failures = 3 }\n", "mine.lua")
        XCTAssertEqual(try CLI.run(["trust", "scanlua.lua"], cwd: dir, env: env).status, 0)
        let untrusted = try CLI.run(["simulate", "--perform", "all", "--text", "x"], cwd: dir, env: env)
        XCTAssertEqual(untrusted.status, 2)
        XCTAssertTrue(untrusted.stderr.contains("mine.lua, required by the trusted ./scanlua.lua, is not trusted, so it was not run"),
                      untrusted.stderr)
        XCTAssertEqual(try CLI.run(["trust", "mine.lua"], cwd: dir, env: env).status, 0)
        XCTAssertEqual(try CLI.run(["simulate", "--perform", "all", "--text", "x"], cwd: dir, env: env).status, 0)
        // The attack: only the module changes, to give trust and lift the limits.
        try write("require('scan').options { trust = true, network = {'*'}, instruction_limit = 0 }\n", "mine.lua")
        try write("local f = io.popen('echo ESCAPED') print(f:read('a'))\n", "evil.lua")
        let swapped = try CLI.run(["simulate", "--perform", "all", "--script", "evil.lua", "--text", "x"], cwd: dir, env: env)
        XCTAssertEqual(swapped.status, 2)
        XCTAssertTrue(swapped.stderr.contains("mine.lua, required by the trusted ./scanlua.lua, changed since it was trusted"), swapped.stderr)
        XCTAssertFalse(swapped.stdout.contains("ESCAPED") || swapped.stderr.contains("ESCAPED\n"), swapped.stderr)
    }

    /// A module the trusted config's handlers require only when a code comes (after loading) is
    /// checked too: planted untrusted, it does not run, and the error is on the record.
    func testAModuleRequiredAtEventTimeMustBeTrustedToo() throws {
        try write("""
            local scan = require "scan"
            scan.options { trust = true }
            scan.parser { name = "lazy", parse = function(ev) return require("lazyhelper").parse(ev) end }
            """, "scanlua.lua")
        XCTAssertEqual(try CLI.run(["trust", "scanlua.lua"], cwd: dir, env: env).status, 0)
        let marker = dir.appendingPathComponent("pwned").path
        try write("os.execute('id > \(marker)') return { parse = function() return { type = 'pwned' } end }\n", "lazyhelper.lua")
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--text", "lazy"], cwd: dir, env: env)
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "the planted module ran")
        XCTAssertNotEqual(payloadType(r), "pwned")
        XCTAssertTrue(r.stdout.contains("lazyhelper.lua, required by the trusted ./scanlua.lua, is not trusted"), r.stdout)
        // Trusted, it runs.
        XCTAssertEqual(try CLI.run(["trust", "lazyhelper.lua"], cwd: dir, env: env).status, 0)
        _ = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--text", "lazy"], cwd: dir, env: env)
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker))
    }

    /// A default.lua (or handlers/url.lua) planted next to a trusted config does not replace the
    /// shipped library: the shipped URL parser still claims a URL, and the planted files never run.
    func testAPlantedDefaultLibraryIsNotRun() throws {
        try write("require('scan').options { max_failures = 4 }\n", "scanlua.lua")
        XCTAssertEqual(try CLI.run(["trust", "scanlua.lua"], cwd: dir, env: env).status, 0)
        try write("print('PLANTED default')\n", "default.lua")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("handlers"), withIntermediateDirectories: true)
        try write("print('PLANTED url')\n", "handlers/url.lua")
        let r = try CLI.run(["simulate", "--perform", "all", "--text", "https://example.com/a"], cwd: dir, env: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stdout.contains("PLANTED") || r.stderr.contains("PLANTED"), r.stdout + r.stderr)
        XCTAssertEqual(payloadType(r), "url")
    }

    /// The trust check and the load are one read: renaming a good and an evil file over
    /// scanlua.lua in a loop, 0 of 200 runs run the evil one (each runs the good one or refuses).
    func testTheRenameRaceNeverRunsTheEvilFile() throws {
        let good = "print('GOOD')\n", evil = "print('EVIL')\n"
        try write(good, "scanlua.lua")
        XCTAssertEqual(try CLI.run(["trust", "scanlua.lua"], cwd: dir, env: env).status, 0)
        let stop = Flag()
        let config = dir.appendingPathComponent("scanlua.lua").path
        let swapper = Thread { [dir] in
            var i = 0
            while !stop.isSet {
                let tmp = dir!.appendingPathComponent("swap-\(i % 2).tmp").path
                FileManager.default.createFile(atPath: tmp, contents: Data((i % 2 == 0 ? evil : good).utf8))
                rename(tmp, config)
                i += 1
            }
        }
        swapper.start()
        defer { stop.set() }
        var goodRuns = 0, refused = 0
        for _ in 0..<200 {
            let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--text", "x"], cwd: dir, env: env)
            XCTAssertFalse(r.stdout.contains("EVIL") || r.stderr.contains("EVIL"), "the evil file ran: \(r.stderr)")
            if r.stderr.contains("GOOD") { goodRuns += 1 } else if r.status == 2 { refused += 1 }
        }
        stop.set()
        XCTAssertEqual(goodRuns + refused, 200)
        XCTAssertGreaterThan(goodRuns, 0, "the good file ran at least once")
    }

    func testNoActionWritesTheTrustList() throws {
        // The trust list under the working directory (a scan run from $HOME): append is refused.
        let state = dir.appendingPathComponent("state/scanlua")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let rule = dir.appendingPathComponent("rule.lua").path
        try """
            require('scan').rule { name = "pwn", on = "raw",
              run = function() return { { type = "append", path = "state/scanlua/trust", line = "0000 /tmp/evil.lua" } } end }
            """.write(toFile: rule, atomically: true, encoding: .utf8)
        let r = try CLI.run(["simulate", "--perform", "all", "--no-default-scripts", "--script", rule, "--text", "x"], cwd: dir, env: env)
        let action = try XCTUnwrap((r.records.first?["actions"] as? [[String: Any]])?.first)
        XCTAssertEqual(action["status"] as? String, "failed", "\(action)")
        XCTAssertEqual(action["error"] as? String, "state/scanlua/trust: an action cannot write a script, a config or a database")
        XCTAssertFalse(FileManager.default.fileExists(atPath: state.appendingPathComponent("trust").path))
    }
}

/// A flag set from one thread and read from another.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}

extension Process {
    /// A program's stdout (for reference tools such as sha256sum).
    static func output(_ executable: String, _ arguments: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// A program's stdout and stderr together, and its exit status.
    static func outputAndStatus(_ executable: String, _ arguments: [String]) throws -> (output: String, status: Int32) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), p.terminationStatus)
    }
}
