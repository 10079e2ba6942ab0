import Foundation
import XCTest

final class ScanCommandTests: XCTestCase {
    func testExamplesGiveTheRightRecords() throws {
        let r = try CLI.run(["scan", "examples/images"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let records = r.records
        XCTAssertEqual(records.map { $0["source"] as? String }, [
            "examples/images/einvoice-pair.jpg", "examples/images/einvoice-pair.jpg",
            "examples/images/product-ean13.png", "examples/images/url.png",
        ])
        let invoiceTexts = Set(records.prefix(2).compactMap { $0["text"] as? String })
        XCTAssertTrue(invoiceTexts.contains("**口罩:1:210:牛奶:1:25"))
        XCTAssertEqual(records[2]["symbology"] as? String, "ean13")
        XCTAssertEqual(records[2]["text"] as? String, "4719512002889")
        XCTAssertEqual(records[3]["text"] as? String, "http://bank.example@evil.example/login")
        XCTAssertEqual(records[3]["bytes"] as? String, Data("http://bank.example@evil.example/login".utf8).base64EncodedString())
        XCTAssertEqual(records[3]["charset"] as? String, "utf-8")
        let bbox = try XCTUnwrap(records[3]["bbox"] as? [String: Int])
        XCTAssertEqual(Set(bbox.keys), ["x", "y", "width", "height"])
        XCTAssertEqual((records[3]["points"] as? [[Int]])?.count, 4)
        XCTAssertEqual(records[3]["orientation"] as? String, "up")
        XCTAssertNotNil(records[3]["quality"] as? Int)

        // The shipped handlers: the pair is one invoice with its items, the product has its
        // country, the URL its warnings.
        let left = try XCTUnwrap(records.prefix(2).first { ($0["text"] as? String)?.hasPrefix("AB") == true })
        let invoice = try XCTUnwrap(left["payload"] as? [String: Any])
        XCTAssertEqual(invoice["type"] as? String, "tw-einvoice")
        XCTAssertEqual(invoice["invoice_number"] as? String, "AB11223344")
        XCTAssertEqual(invoice["total_amount"] as? Int, 340)
        XCTAssertEqual((invoice["items"] as? [[String: Any]])?.compactMap { $0["name"] as? String }, ["乾電池", "口罩", "牛奶"])
        XCTAssertEqual(invoice["complete"] as? Bool, true)
        let right = try XCTUnwrap(records.prefix(2).first { ($0["text"] as? String)?.hasPrefix("**") == true })
        XCTAssertEqual((right["payload"] as? [String: Any])?["merged_into"] as? String, "AB11223344")
        XCTAssertEqual((records[2]["payload"] as? [String: Any])?["country"] as? String, "TW")
        XCTAssertEqual((records[3]["payload"] as? [String: Any])?["warnings"] as? [String], ["insecure-http", "userinfo-before-host"])
    }

    func testBadFilesGiveErrorRecordsAndGoodFilesStillDecode() throws {
        // An MP4's first bytes: recognised and named, not taken for a HEIF image.
        let video = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: video) }
        try Data([0, 0, 0, 0x20] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2avc1mp41".utf8) + [0, 0, 0, 8] + Array("free".utf8))
            .write(to: URL(fileURLWithPath: video))
        let r = try CLI.run(["scan", CLI.fixture("truncated.jpg"), CLI.fixture("qrcode.png"), CLI.fixture("text-named.jpg"),
                             CLI.fixture("huge-header.png"), "/nonexistent.png", video])
        XCTAssertEqual(r.status, 1)
        let records = r.records
        XCTAssertEqual(records.count, 6)
        XCTAssertEqual(records[0]["error"] as? String, "corrupt JPEG: premature end of JPEG data (file truncated)")
        XCTAssertEqual(records[1]["text"] as? String, "https://example.com/scanlua")
        XCTAssertEqual(records[2]["error"] as? String, "not an image or document: no signature of JPEG, PNG, PNM, TIFF, WebP, HEIF/AVIF, GIF, BMP, PDF")
        XCTAssertEqual(records[3]["error"] as? String,
                       "image is 200000x200000 = 40000000000 pixels, over the limit of 50000000 (see --max-pixels)")
        XCTAssertEqual(records[4]["source"] as? String, "/nonexistent.png")
        XCTAssertEqual(records[4]["error"] as? String, "cannot read file: No such file or directory")
        XCTAssertEqual(records[5]["error"] as? String,
                       "unsupported format MP4/MOV video (scanlua reads JPEG, PNG, PNM, TIFF, WebP, HEIF/AVIF, GIF, BMP, PDF)")
    }

    func testExitCodesFollowZbarimg() throws {
        XCTAssertEqual(try CLI.run(["scan", CLI.fixture("qrcode.png")]).status, 0)
        XCTAssertEqual(try CLI.run(["scan", CLI.fixture("qrcode.png"), CLI.fixture("blank.png")]).status, 4)
        XCTAssertEqual(try CLI.run(["scan", CLI.fixture("blank.png"), CLI.fixture("truncated.png")]).status, 1)
        XCTAssertEqual(try CLI.run(["scan"]).status, 2)
        XCTAssertEqual(try CLI.run(["scan", "--bogus", "x.png"]).status, 2)
    }

    /// As zbarimg does, text mode says which image had nothing, and with several inputs each
    /// code's line names its file (as grep does); NDJSON stays quiet (exit 4 says it) unless
    /// --empty-records asks for a record. A scan of several inputs ends with a summary, unless -q.
    func testTextModeSaysWhenNothingWasFound() throws {
        let blank = CLI.fixture("blank.png"), qr = CLI.fixture("qrcode.png")
        let text = try CLI.run(["scan", "-q", "--format", "text", blank, qr])
        XCTAssertEqual(text.status, 4)
        XCTAssertEqual(text.stderr, "scanlua: \(blank): no barcode or QR code found\n")
        XCTAssertEqual(text.stdout, "\(qr): QR-Code:https://example.com/scanlua\n  https://example.com/scanlua\n")
        let one = try CLI.run(["scan", "--format", "text", qr])
        XCTAssertEqual(one.stdout, "QR-Code:https://example.com/scanlua\n  https://example.com/scanlua\n", "one input: no name")
        XCTAssertEqual(one.stderr, "", "one input: no summary")
        let nd = try CLI.run(["scan", blank])
        XCTAssertEqual(nd.status, 4)
        XCTAssertEqual(nd.stderr, "")
    }

    /// Issue 24 item 2: with --empty-records every input is one line or more (codes, images with
    /// none, unreadable files), and the summary's counts are those lines by kind.
    func testEveryInputIsAccountedFor() throws {
        let blank = CLI.fixture("blank.png"), bad = CLI.fixture("truncated.png")
        let inputs = [CLI.fixture("several.png"), blank, CLI.fixture("qrcode.png"), bad]
        let r = try CLI.run(["scan", "--no-default-scripts", "--empty-records"] + inputs)
        XCTAssertEqual(r.status, 1, "an unreadable input")
        let records = r.records
        XCTAssertEqual(Set(records.map { $0["source"] as! String }), Set(inputs), "each input has its line")
        XCTAssertTrue(records.allSatisfy { $0["frame"] as? Int == 0 }, "every record has its frame")
        let empty = records.filter { $0["symbols"] != nil }
        XCTAssertEqual(empty.map { $0["source"] as! String }, [blank])
        XCTAssertEqual(empty.first?["symbols"] as? Int, 0)
        let codes = records.filter { $0["symbology"] != nil }.count, errors = records.filter { $0["error"] != nil }.count
        XCTAssertEqual(errors, 1)
        let summary = try XCTUnwrap(r.stderr.split(separator: "\n").last.map(String.init))
        XCTAssertTrue(summary.hasPrefix("scanlua: scanned 4 images in "), summary)
        XCTAssertTrue(summary.hasSuffix(": \(codes) codes, 1 image without a code, 1 unreadable input"), summary)
        // The same from the config, and the text format's line on stderr.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("c.lua").path
        try #"require("scan").options { empty_records = true }"#.write(toFile: config, atomically: true, encoding: .utf8)
        let fromConfig = try CLI.run(["scan", "-q", "--no-default-scripts", "--config", config, blank])
        XCTAssertEqual(fromConfig.stdout, #"{"source":"\#(blank)","frame":0,"symbols":0}"# + "\n")
        XCTAssertEqual(fromConfig.stderr, "")
        XCTAssertEqual(fromConfig.status, 4)
        // An image whose codes were all read before (--duplicates once) has its line too.
        let qr = CLI.fixture("qrcode.png")
        let copy = dir.appendingPathComponent("copy.png").path
        try FileManager.default.copyItem(atPath: qr, toPath: copy)
        let once = try CLI.run(["scan", "--no-default-scripts", "--empty-records", "--duplicates", "once", qr, copy])
        XCTAssertEqual(once.records.count, 2, once.stdout)
        XCTAssertEqual(once.records.last?["repeated"] as? Int, 1)
        XCTAssertEqual(once.records.last?["symbols"] as? Int, 0)
        XCTAssertTrue(once.stderr.hasSuffix(": 1 code, 0 images without a code, 1 image with only codes read before, 0 unreadable inputs\n"), once.stderr)
    }

    /// A payload with a NUL byte does not cut the text output short (it was written with fputs).
    func testTextModeWritesBinaryPayloadsWhole() throws {
        let r = try CLI.run(["scan", "-q", "--no-default-scripts", "--format", "text", CLI.fixture("qr-binary.png"), CLI.fixture("qrcode.png")])
        // The payload holds every byte 0...255: what follows its NUL is there, and the next line too.
        XCTAssertTrue(r.stdout.contains("0123456789:;<=>?@ABC"), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("\n\(CLI.fixture("qrcode.png")): QR-Code:https://example.com/scanlua\n"), r.stdout)
    }

    func testARegionOutsideTheImageIsAnErrorNamingItsSize() throws {
        let r = try CLI.run(["scan", "--roi", "5000,5000,100,100", CLI.fixture("qrcode.png"), CLI.fixture("ean13.png")])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.records.first?["error"] as? String, "--roi 5000,5000,100,100 lies outside the 132x132 image")
        XCTAssertEqual(r.records.count, 2, "each image its own record")
        let inside = try CLI.run(["scan", "--roi", "0.0,0.0,0.5,0.5", CLI.fixture("qrcode.png")])
        XCTAssertNotEqual(inside.status, 1, "a fraction is always inside")
    }

    func testAGIFInAFolderIsReadLikeTheRest() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-gif-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(atPath: CLI.fixture("qrcode.gif"), toPath: dir.appendingPathComponent("photo.gif").path)
        try FileManager.default.copyItem(atPath: CLI.fixture("qrcode.png"), toPath: dir.appendingPathComponent("code.png").path)
        let r = try CLI.run(["scan", "--raw", "--quiet", dir.path])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stdout, "https://example.com/scanlua\nhttps://example.com/scanlua\n")
        XCTAssertEqual(r.stderr, "")
    }

    /// Under a pseudo-terminal (script(1)), a scan of many images shows a progress line, and
    /// every record starts on a cleared line: none is glued to the progress text.
    func testProgressLineUnderATerminalIsClearedBeforeEachRecord() throws {
        let command = "'\(CLI.binary.path)' scan --raw --no-default-scripts '\(CLI.packageRoot.path)/Tests/ScanCoreTests/Fixtures'"
        let output = try Process.output("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"])
        XCTAssertTrue(output.range(of: #"\d+/\d+ images  [0-9.]+/s  \d+:\d\d left"#, options: .regularExpression) != nil, output)
        XCTAssertNil(output.range(of: "left(?!\r\u{1B}\\[K)", options: .regularExpression), "a progress line is always cleared before what follows")
        XCTAssertTrue(output.contains("https://example.com/scanlua\r\n"))
        // Not a terminal (a pipe): no progress line at all.
        let piped = try CLI.run(["scan", "--raw", "--no-default-scripts", CLI.packageRoot.path + "/Tests/ScanCoreTests/Fixtures"])
        XCTAssertFalse(piped.stderr.contains("left"), piped.stderr)
    }

    func testRawAndTextFormats() throws {
        let raw = try CLI.run(["scan", "--raw", CLI.fixture("qr-big5.png"), CLI.fixture("ean13.png")])
        XCTAssertEqual(raw.stdout, "**口罩:1:210:牛奶:1:25\n4719512002889\n")
        let text = try CLI.run(["scan", "--format", "text", CLI.fixture("qrcode.png"), CLI.fixture("ean13.png"), CLI.fixture("truncated.jpg")])
        XCTAssertEqual(text.stdout, """
            \(CLI.fixture("qrcode.png")): QR-Code:https://example.com/scanlua
              https://example.com/scanlua
            \(CLI.fixture("ean13.png")): EAN-13:4719512002889
              GTIN 04719512002889, from the GS1 TW range

            """)
        XCTAssertTrue(text.stderr.hasPrefix("scanlua: \(CLI.fixture("truncated.jpg")): corrupt JPEG: premature end of JPEG data (file truncated)\n"),
                      text.stderr)
        XCTAssertEqual(text.status, 1)
        XCTAssertEqual(try CLI.run(["scan", "--format=text", "--no-default-scripts", CLI.fixture("qrcode.png")]).stdout,
                       "QR-Code:https://example.com/scanlua\n")
    }

    func testStdin() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: CLI.fixture("qr-sjis.png")))
        let r = try CLI.run(["scan", "-"], stdin: data)
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.records.first?["source"] as? String, "-")
        XCTAssertEqual(r.records.first?["text"] as? String, "こんにちは、世界。東京都")
        XCTAssertEqual(r.records.first?["charset"] as? String, "shift_jis")
    }

    func testSymbologiesRestrictsAndRejectsUnknownNames() throws {
        let r = try CLI.run(["scan", "--symbologies", "ean13,code128", CLI.fixture("several.png")])
        XCTAssertEqual(Set(r.records.compactMap { $0["symbology"] as? String }), ["ean13", "code128"])
        let bad = try CLI.run(["scan", "--symbologies", "qrcode,dotcode", CLI.fixture("several.png")])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.hasPrefix("Error: unknown symbology 'dotcode'; known: qrcode,ean13,"), bad.stderr)
        XCTAssertTrue(bad.stderr.contains("Usage: scanlua scan"), bad.stderr)
    }

    func testMaxPixels() throws {
        let r = try CLI.run(["scan", "--max-pixels", "1000", CLI.fixture("qrcode.png")])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.records.first?["error"] as? String,
                       "image is 132x132 = 17424 pixels, over the limit of 1000 (see --max-pixels)")
        let missing = try CLI.run(["scan", "--max-pixels"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.hasPrefix("Error: missing value for '--max-pixels'\nUsage: scanlua scan"), missing.stderr)
    }

    func testDirectoriesAreWalkedSortedAndFilteredByExtension() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-dir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("b/c"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fm = FileManager.default
        try fm.copyItem(atPath: CLI.fixture("ean13.png"), toPath: dir.appendingPathComponent("b/c/z.png").path)
        try fm.copyItem(atPath: CLI.fixture("qrcode.png"), toPath: dir.appendingPathComponent("a.PNG").path)
        try fm.copyItem(atPath: CLI.fixture("code128.png"), toPath: dir.appendingPathComponent("b/m.png").path)
        try Data("notes".utf8).write(to: dir.appendingPathComponent("b/readme.txt"))
        try fm.copyItem(atPath: CLI.fixture("qrcode.png"), toPath: dir.appendingPathComponent(".hidden.png").path)
        let r = try CLI.run(["scan", "--raw", dir.path])
        // Sorted by path: a.PNG, b/c/z.png, b/m.png.
        XCTAssertEqual(r.stdout, "https://example.com/scanlua\n4719512002889\nscanlua-Code128 ok\n")
        XCTAssertEqual(r.status, 0)
    }

    func testManyInputsKeepTheirOrder() throws {
        let names = ["ean13.png", "qrcode.png", "code39.png", "ean8.png", "i25.png", "code93.png", "codabar.png", "upca.png"]
        let args = ["scan", "--raw"] + (names + names).map(CLI.fixture)
        let r = try CLI.run(args)
        let once = ["4719512002889", "https://example.com/scanlua", "10404UZ176908720122", "96385074",
                    "12345678901231", "CODE93-SCANLUA", "A40156B", "036000291452"]
        XCTAssertEqual(r.stdout, (once + once).map { $0 + "\n" }.joined())
    }

    func testFullDiskIsAClearError() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full") }
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["scan", CLI.fixture("qrcode.png")]
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        let err = Pipe()
        p.standardError = err
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 1)
        XCTAssertEqual(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                       "scanlua: cannot write output: No space left on device\n")
    }
}
