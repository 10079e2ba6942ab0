import Foundation
import XCTest

/// Issue 60 item 3: opening a source that sends nothing (a silent pipe, a FIFO whose writer
/// says nothing, a tty with no scanner) honours --timeout, and SIGINT ends a blocked open
/// cleanly (it used to crash in a forced try on EINTR).
final class SilentSourceTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-silent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Starts `scanlua` with `args` and a stdin pipe that stays open; `first` is written to it.
    private func start(_ args: [String], first: Data = Data()) throws -> (Process, Pipe, Pipe, Pipe) {
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = args
        let input = Pipe(), out = Pipe(), err = Pipe()
        p.standardInput = input
        p.standardOutput = out
        p.standardError = err
        try p.run()
        if !first.isEmpty { input.fileHandleForWriting.write(first) }
        return (p, input, out, err)
    }

    private func finish(_ p: Process, _ err: Pipe, within seconds: Double, from started: Date) -> String {
        let text = ReadAll(err.fileHandleForReading)
        p.waitUntilExit()
        let said = String(decoding: text.wait(), as: UTF8.self)
        XCTAssertLessThan(Date().timeIntervalSince(started), seconds, said)
        return said
    }

    func testASilentPipeOrFIFOOrTTYEndsAtTheTimeout() throws {
        // stdin held open, nothing written.
        var started = Date()
        var (p, input, _, err) = try start(["watch", "--no-default-scripts", "--timeout", "2", "-"])
        var said = finish(p, err, within: 8, from: started)
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 1.5)
        XCTAssertEqual(p.terminationStatus, 1)
        XCTAssertTrue(said.contains("-: nothing arrived before --timeout"), said)
        try input.fileHandleForWriting.close()
        // A FIFO whose writer is there and silent.
        let fifo = dir.appendingPathComponent("cam.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let writer = open(fifo, O_RDWR)  // holds the FIFO open without a reader's wait
        defer { close(writer) }
        started = Date()
        (p, input, _, err) = try start(["watch", "--no-default-scripts", "--timeout", "2", fifo])
        said = finish(p, err, within: 8, from: started)
        XCTAssertEqual(p.terminationStatus, 1)
        XCTAssertTrue(said.contains("\(fifo): nothing arrived before --timeout"), said)
        // A pseudo-terminal with nothing on it (a serial scanner that is not scanning).
        var master: Int32 = 0, slave: Int32 = 0
        var name = [CChar](repeating: 0, count: 128)
        XCTAssertEqual(openpty(&master, &slave, &name, nil, nil), 0)
        defer { close(master); close(slave) }
        started = Date()
        (p, input, _, err) = try start(["watch", "--no-default-scripts", "--timeout", "2", String(cString: name)])
        said = finish(p, err, within: 8, from: started)
        XCTAssertEqual(p.terminationStatus, 1)
        XCTAssertTrue(said.contains("nothing arrived before --timeout"), said)
    }

    /// A y4m header, one frame, then silence with the pipe held open: the session ends at
    /// --timeout with the frame's record.
    func testAStreamThatGoesSilentEndsAtTheTimeoutWithItsRecords() throws {
        let y4m = try Data(contentsOf: URL(fileURLWithPath: CLI.fixture("stream-10fps.y4m")))
        let frame = 6 + 240 * 180 * 3 / 2  // the fixture's first frame (240x180, 4:2:0)
        let header = y4m.prefix(while: { $0 != 0x0A }).count + 1
        let started = Date()
        let (p, input, out, err) = try start(["watch", "--no-default-scripts", "--timeout", "3", "-"], first: y4m.prefix(header + frame))
        let records = ReadAll(out.fileHandleForReading)
        let said = finish(p, err, within: 10, from: started)
        try input.fileHandleForWriting.close()
        XCTAssertEqual(p.terminationStatus, 0, said)
        XCTAssertTrue(String(decoding: records.wait(), as: UTF8.self).contains(#""text":"code-A""#))
    }

    func testSIGINTDuringABlockedOpenEndsWith130() throws {
        let fifo = dir.appendingPathComponent("scanner.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let writer = open(fifo, O_RDWR)
        defer { close(writer) }
        let started = Date()
        let (p, input, _, err) = try start(["watch", "--no-default-scripts", fifo])
        Thread.sleep(forTimeInterval: 1)  // the open is waiting for bytes: the only way to be in it
        kill(p.processIdentifier, SIGINT)
        let said = finish(p, err, within: 6, from: started)
        try input.fileHandleForWriting.close()
        XCTAssertEqual(p.terminationStatus, 130, said)
        XCTAssertFalse(said.contains("Fatal error"), said)
    }
}
