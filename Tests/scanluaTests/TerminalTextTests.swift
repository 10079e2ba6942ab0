import Foundation
import XCTest

/// Issue 61, attack 8: a QR code's payload, a handler's summary or a file's name cannot write
/// escape sequences to the terminal in `--format text` and stderr messages; `--raw` and NDJSON
/// keep the bytes exact.
final class TerminalTextTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-term-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// A QR code of `payload`'s bytes (qrencode, 8-bit mode) named `name`.
    private func qr(_ payload: [UInt8], _ name: String) throws -> String {
        let bytes = dir.appendingPathComponent("payload.bin")
        try Data(payload).write(to: bytes)
        let path = dir.appendingPathComponent(name).path
        let (out, status) = try Process.outputAndStatus("/usr/bin/qrencode", ["-8", "-r", bytes.path, "-o", path])
        XCTAssertEqual(status, 0, out)
        return path
    }

    private func qr(_ payload: String, _ name: String) throws -> String { try qr(Array(payload.utf8), name) }

    /// What a terminal would act on: ESC, BEL, CR, C1 CSI (U+009B), a bidi override (U+202E).
    private func assertInert(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for bad in ["\u{1B}", "\u{07}", "\r", "\u{9B}", "\u{202E}"] {
            XCTAssertFalse(text.contains(bad), "\(what) holds \(bad.unicodeScalars.first!.value): \(text.debugDescription)", file: file, line: line)
        }
    }

    func testPayloadsSummariesAndFileNamesAreShownEscaped() throws {
        let hostile = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[31mRED\r\u{1B}[A"
        let path = try qr(hostile, "odd\u{1B}[31m.png")
        // A bidi override in UTF-8 text, and a C1 CSI byte (a binary payload's bytes are shown as U+0000-U+00FF).
        let bidi = try qr("invoice \u{202E}fdp.exe", "bidi.png")
        let csi = try qr([0x9B] + Array("31mRED".utf8), "csi.png")
        let text = try CLI.run(["scan", "--no-default-scripts", "--format", "text", path, bidi, csi])
        assertInert(text.stdout, "stdout")
        assertInert(text.stderr, "stderr")
        XCTAssertTrue(text.stdout.contains(#"odd\e[31m.png: QR-Code:\e]0;pwned\a\e[2J\e[31mRED\r\e[A"#), text.stdout)
        XCTAssertTrue(text.stdout.contains(#"bidi.png: QR-Code:invoice \u202efdp.exe"#), text.stdout)
        XCTAssertTrue(text.stdout.contains(#"csi.png: QR-Code:\x9b31mRED"#), text.stdout)
        // --raw is byte-exact, as is NDJSON's text.
        let raw = try CLI.run(["scan", "--no-default-scripts", "--raw", path])
        XCTAssertEqual(raw.stdout, hostile + "\n")
        XCTAssertEqual(try CLI.run(["scan", "--no-default-scripts", path]).records.first?["text"] as? String, hostile)

        // The shipped URL handler's summary repeats the URL: escaped too.
        let url = try qr("https://shop.example/\u{1B}[2J\u{1B}[1;1Hpay-here", "url.png")
        let summary = try CLI.run(["scan", "--format", "text", url])
        assertInert(summary.stdout, "summary")
        XCTAssertTrue(summary.stdout.contains(#"\e[2J\e[1;1Hpay-here"#), summary.stdout)

        // A file that cannot be read: its name in the stderr message is escaped.
        let broken = dir.appendingPathComponent("bad\u{1B}]0;x\u{07}.png").path
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: broken))
        let err = try CLI.run(["scan", "--format", "text", broken])
        assertInert(err.stderr, "error message")
        XCTAssertTrue(err.stderr.contains(#"bad\e]0;x\a.png: not an image or document"#), err.stderr)
    }

    /// Issue 61, attack 11: a file whose name is not UTF-8 is scanned like any other, from a folder,
    /// from the command line and from a watched folder: `source` shows its other bytes as \xHH,
    /// `source_bytes` has the name exactly (base64), text output the escaped name.
    func testAFileNamedInBytesThatAreNotUTF8IsScanned() throws {
        let png = try Data(contentsOf: URL(fileURLWithPath: CLI.fixture("qrcode.png")))
        let raw = Array(dir.path.utf8) + Array("/bad".utf8) + [0xFF, 0xFE] + Array(".png".utf8)
        let file = (raw + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { fopen($0.baseAddress!, "w") } }
        let f = try XCTUnwrap(file)
        _ = png.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
        let shown = dir.path + "/bad\\xff\\xfe.png"
        let folder = try CLI.run(["scan", "--no-default-scripts", dir.path])
        XCTAssertEqual(folder.status, 0, folder.stderr)
        XCTAssertEqual(folder.records.first?["source"] as? String, shown)
        XCTAssertEqual(folder.records.first?["source_bytes"] as? String, Data(raw).base64EncodedString())
        XCTAssertEqual(folder.records.first?["text"] as? String, "https://example.com/scanlua")
        // Named on the command line (through a shell: Process takes only UTF-8 arguments).
        let (out, status) = try Process.outputAndStatus("/bin/sh", ["-c", #"exec "$0" scan --no-default-scripts --format text "$(printf '%s/bad\377\376.png' "$1")""#,
                                                                   CLI.binary.path, dir.path])
        XCTAssertEqual(status, 0, out)
        XCTAssertTrue(out.contains(#"QR-Code:https://example.com/scanlua"#), out)
        let watch = try CLI.run(["watch", "--no-default-scripts", "--settle", "0", "--max-frames", "1", "--timeout", "30", dir.path])
        XCTAssertEqual(watch.records.first?["source"] as? String, shown, watch.stderr)
    }
}
