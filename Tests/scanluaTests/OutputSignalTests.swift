import Foundation
import XCTest

/// Issue 12, G: output reaches pipes as it is made, a closed stdout or a full disk is a message
/// and exit 1, SIGINT/SIGTERM end cleanly with the records already made, JSON keys stay unique.
final class OutputSignalTests: XCTestCase {
    /// Runs the binary through /bin/sh (for pipes and /dev/full); returns status and stderr.
    func shell(_ command: String) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        p.currentDirectoryURL = CLI.packageRoot
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    var fixtures: String { ["qrcode.png", "ean13.png", "code128.png", "several.png"].map(CLI.fixture).joined(separator: " ") }

    func testAClosedPipeIsAMessageAndExitOne() throws {
        // The writer's output goes into a pipe whose reading end is closed.
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["scan"] + (0..<5).flatMap { _ in ["qrcode.png", "ean13.png", "several.png"].map(CLI.fixture) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try out.fileHandleForReading.close()  // nobody reads: every write gets EPIPE
        try p.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationReason, .exit, "not killed by SIGPIPE: the session ends cleanly")
        XCTAssertEqual(p.terminationStatus, 141, "128 + SIGPIPE, what a shell shows for `yes | head`")
        XCTAssertEqual(message, "", "quiet, as Unix tools end when their reader has gone")
    }

    /// Issue 24 item 7: `scanlua export | head -1` prints one line and no message; the shell sees
    /// 141 under pipefail, as for any Unix tool cut short by its reader.
    func testExportIntoHeadEndsQuietly() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-pipe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("h.db").path
        let images = (0..<400).flatMap { _ in ["qrcode.png", "ean13.png"].map(CLI.fixture) }
        XCTAssertEqual(try CLI.run(["scan", "-q", "--no-default-scripts", "--db", db] + images).status, 0)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", "set -o pipefail; '\(CLI.binary.path)' export --db '\(db)' --format ndjson | head -1"]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 141)
        XCTAssertEqual(lines.count, 1)
        XCTAssertEqual(message, "")
    }

    func testAFullDiskIsAMessageAndExitOne() throws {
        let r = try shell("'\(CLI.binary.path)' scan \(fixtures) > /dev/full")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("scanlua: cannot write output: No space left on device"), r.stderr)
    }

    func testSIGINTAndSIGTERMKeepTheRecordsAlreadyMade() throws {
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            let p = Process()
            p.executableURL = CLI.binary
            // 2 frames a second: some records are out before the signal, the rest never read.
            p.arguments = ["watch", "--quiet", "--no-default-scripts", "--duplicates", "all", "--max-fps", "2",
                           CLI.fixture("stream-10fps.y4m")]
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            try p.run()
            let reader = ReadAll(out.fileHandleForReading)
            Thread.sleep(forTimeInterval: 2.2)
            kill(p.processIdentifier, signal)
            let data = reader.wait()
            p.waitUntilExit()
            XCTAssertEqual(p.terminationReason, .exit, "the handler ended it, not the signal")
            XCTAssertEqual(p.terminationStatus, status)
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
            XCTAssertGreaterThanOrEqual(lines.count, 3, "records made before the signal were written")
            XCTAssertLessThan(lines.count, 15, "it stopped reading")
            for line in lines { XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(line.utf8)), "whole records only") }
        }
    }

    /// SIGINT in the middle of imports: every row the store committed has its record, and every
    /// record of an accepted symbol has its row (no import without a record, none rolled back
    /// behind a record's back).
    func testSIGINTLeavesTheStoreAndTheRecordsAgreeing() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-sigstore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let rule = dir.appendingPathComponent("import.lua").path
        try """
            local scan = require "scan"
            local store = require "store"
            store.migrate { [1] = "CREATE TABLE seen (frame INTEGER, text TEXT)" }
            scan.rule { name = "import", run = function(p, ctx)
              store.exec("INSERT INTO seen (frame, text) VALUES (?, ?)", { ctx.event.frame, ctx.event.text })
            end }
            """.write(toFile: rule, atomically: true, encoding: .utf8)
        let db = dir.appendingPathComponent("seen.db").path
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["watch", "--quiet", "--no-default-scripts", "--duplicates", "all", "--max-fps", "4",
                       "--script", rule, "--db", db, CLI.fixture("stream-10fps.y4m")]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let reader = ReadAll(out.fileHandleForReading)
        Thread.sleep(forTimeInterval: 1.7)
        kill(p.processIdentifier, SIGINT)
        let data = reader.wait()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 130)
        let records = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        XCTAssertGreaterThanOrEqual(records.count, 2, "some frames were imported before the signal")
        let recorded = records.map { "\($0["frame"] as? Int ?? 0) \($0["text"] as? String ?? "")" }.sorted()
        let rows = try Process.output("/usr/bin/python3", ["-c", "import sqlite3, sys\nfor f, t in sqlite3.connect(sys.argv[1])"
                                                           + ".execute('SELECT frame, text FROM seen'): print(f, t)", db])
            .split(separator: "\n").map(String.init).sorted()
        XCTAssertEqual(rows, recorded, "committed rows and records are the same symbols")
    }

    func testNumberAndStringKeysThatReadAlikeStayDistinct() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let s = dir.appendingPathComponent("keys.lua").path
        try """
            local scan = require "scan"
            scan.parser { name = "k", parse = function(ev) return { [1.5] = "num", ["1.5"] = "str", [true] = "b", ["true"] = "s" } end }
            """.write(toFile: s, atomically: true, encoding: .utf8)
        let r = try CLI.run(["simulate", "--no-default-scripts", "--script", s, "--text", "x"])
        XCTAssertTrue(r.stdout.contains(#""payload":{"type":"k","1.5":"str","[1.5]":"num","[true]":"b","true":"s"}"#), r.stdout)
    }
}
