import Foundation
import XCTest

/// zbar and zxing-cpp end to end through the built binary: one record per physical code with the
/// payload each fixture was made with (scripts/make-fixtures, "formats only zxing-cpp reads"),
/// ECI, GS1, add-ons, structured append, --decoders, --effort, the scale pyramid, bad input.
final class DecodingCommandTests: XCTestCase {
    private func b64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
    private func b64(_ text: String) -> String { b64(Array(text.utf8)) }

    private func scan(_ files: [String], _ options: [String] = []) throws -> CLI.Result {
        try CLI.run(["scan", "--no-default-scripts"] + options + files)
    }

    /// The one record of a fixture.
    private func only(_ name: String, _ options: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let r = try scan([CLI.fixture(name)], options)
        XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)", file: file, line: line)
        XCTAssertEqual(r.records.count, 1, "\(name): \(r.stdout)", file: file, line: line)
        return try XCTUnwrap(r.records.first, name, file: file, line: line)
    }

    private func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-decoding-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    /// ImageMagick's `convert` in `dir`.
    private func convert(_ args: [String], in dir: URL) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["convert"] + args
        p.currentDirectoryURL = dir
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "convert \(args)")
    }

    // MARK: - Formats

    func testEveryFormatFixtureIsOneRecordWithItsPayload() throws {
        let expected: [(file: String, symbology: String, text: String, decoder: String)] = [
            ("datamatrix.png", "datamatrix", "scanlua DataMatrix 12345", "zxing"),
            ("pdf417.png", "pdf417", "scanlua PDF417 payload", "zxing"),
            ("micropdf417.png", "micropdf417", "MicroPDF 42", "zxing"),
            ("aztec.png", "aztec", "scanlua Aztec", "zxing"),
            ("microqr.png", "microqr", "MQR123", "zxing"),
            ("rmqr.png", "rmqr", "scanlua rMQR", "zxing"),
            ("maxicode.png", "maxicode", "scanlua MaxiCode", "zxing"),
            ("databar-limited.png", "databar-limited", "0115012345678907", "zxing"),
            // zint's check digit: 0950110153001 -> GTIN 09501101530010. zbar reads it as `databar`.
            ("databar-stacked.png", "databar-stacked", "0109501101530010", "zbar+zxing"),
            ("databar-exp-stacked.png", "databar-exp-stacked", "0198898765432106320201234515991231", "zbar+zxing"),
            ("telepen.png", "telepen", "Telepen 1", "zxing"),
            // Code 32 12345678 + check digit 8 (zbar reads its Code 39 letters 3PRM8N: one record).
            ("code32.png", "code32", "A123456788", "zbar+zxing"),
            // PZN 1234562 + check digit 6, as Code 39 carries it.
            ("pzn.png", "pzn", "-12345626", "zbar+zxing"),
            // ITF-14 1540014128876 + check digit 3.
            ("itf14.png", "i25", "15400141288763", "zbar+zxing"),
        ]
        // balanced: zbar where zxing-cpp found nothing or only EAN/UPC and Code 128 codes (none
        // here), and for linear codes beside other codes: its readings of the same bytes merge
        // (zbar's Code 39 letters of the Code 32 are other bytes at that place: left out);
        // thorough: both on every image, their readings of one code merged (`decoder` above).
        let zbarBeside: Set = ["databar-stacked.png", "databar-exp-stacked.png", "pzn.png", "itf14.png"]
        for effort in ["balanced", "thorough"] {
            let r = try scan(expected.map { CLI.fixture("zxing/" + $0.file) }, ["--effort", effort])
            XCTAssertEqual(r.status, 0, r.stderr)
            let records = r.records
            XCTAssertEqual(records.map { (($0["source"] as? String ?? "") as NSString).lastPathComponent }, expected.map(\.file),
                           "\(effort): one record per fixture: \(records.map { "\($0["symbology"] ?? "?"):\($0["text"] ?? "?")" })")
            for (rec, e) in zip(records, expected) {
                XCTAssertEqual(rec["symbology"] as? String, e.symbology, e.file)
                XCTAssertEqual(rec["text"] as? String, e.text, e.file)
                XCTAssertEqual(rec["bytes"] as? String, b64(e.text), e.file)
                XCTAssertEqual(rec["charset"] as? String, "utf-8", e.file)
                XCTAssertEqual(rec["decoder"] as? String, effort == "thorough" || zbarBeside.contains(e.file) ? e.decoder : "zxing", "\(effort) \(e.file)")
                XCTAssertNil(rec["eci"], e.file)
                XCTAssertNil(rec["sequence"], e.file)
                XCTAssertNil(rec["error"], e.file)
            }
        }
    }

    /// A dark photo's code (levels 6 to 23): zxing-cpp reads it on its retry, not with `--effort
    /// fast` (no retries); zbar reads it as it is, and both readings are one record.
    func testDarkCodesAreReadByTheRetries() throws {
        let dark = CLI.fixture("qr-dark.png")
        let retried = try only("qr-dark.png", ["--decoders", "zxing"])
        XCTAssertEqual(retried["text"] as? String, "scanlua dark photo")
        XCTAssertEqual(retried["decoder"] as? String, "zxing")
        let fast = try scan([dark], ["--decoders", "zxing", "--effort", "fast"])
        XCTAssertEqual(fast.status, 4, "no retries with --effort fast")
        XCTAssertEqual(fast.stdout, "")
        XCTAssertEqual(try only("qr-dark.png")["decoder"] as? String, "zbar+zxing")
    }

    /// A QR code wrapped round a can: zxing-cpp finds it and fails its checksum, zbar finds
    /// nothing; after the retries, the grid fitted to its function patterns reads it (QRGridFit).
    /// Not with `--effort fast` (no retries). Its corners are the fitted grid's, inside the image.
    func testACurvedQRCodeIsReadOnAFittedGrid() throws {
        let curved = CLI.fixture("qr-curved.png")
        // No time budget: a debug build on a busy machine may spend balanced's 2 s before the fit.
        let r = try scan([curved], ["--time-budget", "0"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.count, 1)
        let rec = try XCTUnwrap(r.records.first)
        XCTAssertEqual(rec["text"] as? String, "https://scanlua.example/curved/4")
        XCTAssertEqual(rec["decoder"] as? String, "zxing")
        let points = try XCTUnwrap(rec["points"] as? [[Int]])
        XCTAssertEqual(points.count, 4)
        XCTAssertTrue(points.allSatisfy { $0[0] >= 0 && $0[0] < 164 && $0[1] >= 0 && $0[1] < 164 }, "\(points)")
        let fast = try scan([curved], ["--effort", "fast"])
        XCTAssertEqual(fast.status, 4, "no retries with --effort fast")
    }

    func testALinearReadingInsideAQRCodeIsLeftOut() throws {
        // zxing-cpp 3.1.1 alone returns this QR code and Codabar C$3D read down one of its module columns.
        let r = try scan([CLI.fixture("qr-codabar-inside.jpg")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.map { $0["symbology"] as? String }, ["qrcode"])
        XCTAssertEqual(r.records.first?["text"] as? String,
                       "nE_hc4elIW/fxbt-kx6Epd1jnv4CS7oqal8D2J=glo:&QOz_s2rExE_yUslxe-04iwmHrrhss3i9LHarvBVCE-s?kpM8aItJ=C_8Ct9-K2AL:E_8GfVytjBaRag2.9/.F=E2Nkm-N3oV1=7a_OS/hwPXK9/w&9dF:7KOVFRLMyc-&1jam/IqzlPZfCA6")
        // A linear code beside a QR code stays.
        let several = try scan([CLI.fixture("several.png")])
        XCTAssertEqual(Set(several.records.compactMap { $0["symbology"] as? String }), ["qrcode", "ean13", "code128"])
    }

    func testALinearCodeBesideAMatrixCodeIsRead() throws {
        // A Code 128 4 pixels right of a PDF417: zxing-cpp 3.1.1 reads only the PDF417 (no quiet
        // zone); zbar, asked for linear codes beside it, reads the Code 128.
        let r = try scan([CLI.fixture("pdf417-code128-tight.jpg")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.map { "\($0["symbology"] as? String ?? "")/\($0["decoder"] as? String ?? ""):\($0["text"] as? String ?? "")" }.sorted(),
                       ["code128/zbar:1Z4778591895885363", "pdf417/zxing:SHIP TO SCANLUA 42 MAIN STREET TAIPEI 1Z4778591895885363 WEIGHT 2 KG"])
    }

    func testPiecesOfATurnedITF14AreLeftOut() throws {
        // zxing-cpp 3.1.1 alone reads 90565112185531 and, along the turned code's edges, 905651 and 5112185531.
        let r = try scan([CLI.fixture("itf14-turned.png")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.compactMap { $0["text"] as? String }, ["90565112185531"])
    }

    func testAnM1MicroQRCodeNeedsItsQuietZone() throws {
        // zxing-cpp 3.1.1 alone reads this curved QR code's finder pattern as M1 Micro QR "3600".
        let finder = try scan([CLI.fixture("qr-finder-as-m1.png")])
        XCTAssertEqual(finder.status, 4, finder.stdout)
        XCTAssertEqual(finder.records.count, 0)
        let m1 = try only("zxing/microqr-m1.png")
        XCTAssertEqual(m1["text"] as? String, "31415")
        XCTAssertEqual(m1["version"] as? String, "M1")
        // A shadow over its quiet zone is one swing, not a QR code's modules.
        XCTAssertEqual(try only("zxing/microqr-m1-shadow.png")["text"] as? String, "2718")
    }

    func testSymbologyIdentifiersAndDecoders() throws {
        let dm = try only("zxing/datamatrix.png")
        XCTAssertEqual(dm["symbology_id"] as? String, "]d1")
        XCTAssertEqual(dm["decoder"] as? String, "zxing")
        XCTAssertEqual(dm["version"] as? String, "20x20")
        XCTAssertEqual(dm["bbox"] as? [String: Int], ["x": 72, "y": 72, "width": 120, "height": 120])

        let qr = try only("qrcode.png")
        XCTAssertEqual(qr["symbology"] as? String, "qrcode")
        XCTAssertEqual(qr["text"] as? String, "https://example.com/scanlua")
        XCTAssertEqual(qr["symbology_id"] as? String, "]Q1")
        XCTAssertEqual(qr["decoder"] as? String, "zxing", "balanced: zbar only where zxing-cpp found nothing or only EAN/UPC and Code 128")
        XCTAssertEqual(try only("qrcode.png", ["--effort", "fast"])["decoder"] as? String, "zxing", "fast: zbar only where zxing-cpp found nothing")
        XCTAssertEqual(try only("qrcode.png", ["--effort", "thorough"])["decoder"] as? String, "zbar+zxing")
        XCTAssertEqual(try only("ean8.png")["decoder"] as? String, "zbar+zxing", "an EAN is read by both")
        XCTAssertEqual(try only("ean8.png", ["--effort", "fast"])["decoder"] as? String, "zxing")
        XCTAssertEqual(try only("code128.png")["decoder"] as? String, "zbar+zxing", "a Code 128 is read by both")
        XCTAssertEqual(qr["ec_level"] as? String, "L")
        XCTAssertEqual(qr["version"] as? String, "2")
        XCTAssertEqual(qr["inverted"] as? Bool ?? false, false)
        XCTAssertEqual(qr["mirrored"] as? Bool ?? false, false)

        let pdf = try only("zxing/pdf417.png")
        XCTAssertEqual(pdf["symbology_id"] as? String, "]L2")
        XCTAssertEqual(pdf["decoder"] as? String, "zxing")

        XCTAssertEqual(try only("zxing/microqr.png")["version"] as? String, "M2")
        XCTAssertEqual(try only("zxing/rmqr.png")["version"] as? String, "R11x43")
        XCTAssertEqual(try only("zxing/aztec.png")["symbology_id"] as? String, "]z0")
    }

    /// A photo of a shipping label (scripts/make-fixtures): balanced's small pass at 1/4 reads the
    /// big Code 128 and takes it for the answer, but the small one's modules are under a pixel
    /// there. The region that looks like a linear code and holds no code read is read at full
    /// size by itself, so both come out, in the image's coordinates, as zxing-cpp alone reads them.
    func testARegionTheSmallPassLeftUnreadIsReadAtFullSize() throws {
        let r = try scan([CLI.fixture("shipping-label-photo.jpg")], ["--time-budget", "0"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.map { "\($0["symbology"] ?? "?") \(($0["text"] as? String)?.prefix(12) ?? "?")" }.sorted(),
                       ["code128 1Z0000495100", "code128 42015238", "maxicode [)>\u{1E}01\u{1D}96152"])
        let postal = try XCTUnwrap(r.records.first { $0["text"] as? String == "42015238" })
        let bbox = try XCTUnwrap(postal["bbox"] as? [String: Int])
        XCTAssertEqual(bbox["x"]!, 1540, accuracy: 40, "\(bbox)")
        XCTAssertTrue((790...900).contains(bbox["y"]!), "its bars span y 797...889: \(bbox)")
        XCTAssertEqual(bbox["width"]!, 330, accuracy: 40, "\(bbox)")
        let fast = try scan([CLI.fixture("shipping-label-photo.jpg")], ["--effort", "fast", "--time-budget", "0"])
        XCTAssertEqual(fast.records.map { "\($0["text"] ?? "?")" }, ["1Z00004951000000"], "fast reads one scale only")
    }

    /// A MaxiCode in a photo (turned, slanted, blurred): zxing-cpp alone reads MaxiCode only from
    /// pure images; the MaxiCode reader finds its bullseye and samples its grid (not with `fast`).
    func testAMaxiCodeInAPhotoIsRead() throws {
        let r = try scan([CLI.fixture("maxicode-photo.jpg")], ["--time-budget", "0"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.count, 1)
        let record = try XCTUnwrap(r.records.first)
        XCTAssertEqual(record["symbology"] as? String, "maxicode")
        XCTAssertEqual(record["text"] as? String, "[)>\u{1E}01\u{1D}96152382802\u{1D}840\u{1D}001\u{1D}841706672\u{1D}840\u{1D}001\u{1D}1Z12345675\u{1D}UPSN\u{1D}12345E\u{1D}089\u{1D}\u{1D}1/1\u{1D}10.1\u{1D}Y\u{1D}\u{1D}\u{1D}UT\u{1E}\u{04}")
        XCTAssertEqual(record["decoder"] as? String, "zxing")
        let bbox = try XCTUnwrap(record["bbox"] as? [String: Int])
        XCTAssertEqual(Double(bbox["x"]! + bbox["width"]! / 2), 785, accuracy: 10, "\(bbox)")
        XCTAssertEqual(Double(bbox["y"]! + bbox["height"]! / 2), 582, accuracy: 10, "\(bbox)")
        let only = try scan([CLI.fixture("maxicode-photo.jpg")], ["--symbologies", "maxicode", "--time-budget", "0"])
        XCTAssertEqual(only.records.map { $0["symbology"] as? String }, ["maxicode"])
        let without = try scan([CLI.fixture("maxicode-photo.jpg")], ["--symbologies", "qrcode,code128", "--time-budget", "0"])
        XCTAssertEqual(without.records.count, 0, "MaxiCode not asked for")
        let fast = try scan([CLI.fixture("maxicode-photo.jpg")], ["--effort", "fast", "--time-budget", "0"])
        XCTAssertEqual(fast.records.count, 0, "fast: no MaxiCode reader")
    }

    /// A MaxiCode cut by the photo's edge, its bullseye found on the small copy (2001x1501 at 1/2,
    /// whose sides round up) and not read: its full-size box stays inside the image, and the scan
    /// goes on with the QR code beside it (the crop ran past the image once: the process trapped).
    func testAMaxiCodeCutByThePhotosEdgeDoesNotStopTheScan() throws {
        let r = try scan([CLI.fixture("maxicode-edge.jpg")], ["--time-budget", "0"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.map { $0["symbology"] as? String }, ["qrcode"])
        XCTAssertEqual(r.records.first?["text"] as? String, "EDGE OF THE PHOTO")
    }

    /// Four DataMatrix labels, the fourth blurred and washed out: zxing-cpp alone reads three
    /// (it finds the fourth and fails its checksum); its place read by itself gives the fourth.
    func testADataMatrixFoundButNotDecodedBesideOthersIsRead() throws {
        let r = try scan([CLI.fixture("datamatrix-tray.jpg")], ["--time-budget", "0"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.compactMap { $0["text"] as? String }.sorted(), ["case-001", "case-002", "case-003", "case-004"])
        XCTAssertEqual(Set(r.records.compactMap { $0["symbology"] as? String }), ["datamatrix"])
        let fast = try scan([CLI.fixture("datamatrix-tray.jpg")], ["--effort", "fast"])
        XCTAssertEqual(fast.records.count, 3, "fast has no retries")
    }

    /// A label of several Code 128 codes: zbar reads ones zxing-cpp passed over (balanced runs
    /// it around each code where zxing-cpp found only Code 128 and EAN/UPC codes: a label's
    /// neighbours lie there). Real photos from the shared corpus (Dynamsoft challenging), when it is here.
    func testZbarReadsTheCode128CodesZXingPassedOver() throws {
        let dir = CLI.packageRoot.appendingPathComponent("../shared/corpus/photos/dynamsoft_challenging/images").standardizedFileURL
        let one = dir.appendingPathComponent("single-symbology-multiple-barcodes-1.jpg"), six = dir.appendingPathComponent("single-symbology-multiple-barcodes-6.jpg")
        guard FileManager.default.fileExists(atPath: one.path), FileManager.default.fileExists(atPath: six.path) else {
            throw XCTSkip("no shared corpus beside the repository")
        }
        let r = try scan([one.path, six.path], ["--time-budget", "0"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let code128 = r.records.filter { $0["symbology"] as? String == "code128" }
        // D6OKCT001674 and 90NK0011-M01780: zxing-cpp found them and failed their checksums; read
        // again at their places (StillRetries' failed places).
        XCTAssertEqual(Set(code128.compactMap { $0["text"] as? String }),
                       ["ME301T-1A066A", "2241", "6RA70826FV620Z+X01", "1", "37547-KB", "D6OKCT001674", "90NK0011-M01780"])
        for text in ["2241", "37547-KB"] {
            XCTAssertEqual(code128.first { $0["text"] as? String == text }?["decoder"] as? String, "zbar", text)
        }
    }

    /// A tray of skewed DataMatrix labels (Dynamsoft's skewed DataMatrix set, when the shared
    /// corpus is here): where many codes of one kind were read, the photo is read again tile by
    /// tile for that kind. case-130, case-147 and case-169 are read only so (zxing-cpp's
    /// detector passes them by on the whole 12 MP photo); no text outside the set's annotation.
    func testATrayOfDataMatrixLabelsIsReadAgainInTiles() throws {
        let set = CLI.packageRoot.appendingPathComponent("../shared/corpus/photos/dynamsoft_skewed_datamatrix").standardizedFileURL
        let photo = set.appendingPathComponent("images/IMG20260320082552.jpg")
        guard FileManager.default.fileExists(atPath: photo.path),
              let data = FileManager.default.contents(atPath: set.appendingPathComponent("expected.json").path),
              let expected = try JSONSerialization.jsonObject(with: data) as? [String: [[String: Any]]] else {
            throw XCTSkip("no shared corpus beside the repository")
        }
        let annotated = Set((expected["IMG20260320082552.jpg"] ?? []).compactMap { $0["text"] as? String })
        // Without the time budget: on a loaded machine it cut the tiles short (22 of 28 read).
        let r = try scan([photo.path], ["--time-budget", "0"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let texts = Set(r.records.compactMap { $0["text"] as? String })
        XCTAssertTrue(texts.isSuperset(of: ["case-130", "case-147", "case-169"]), "\(texts.sorted())")
        XCTAssertEqual(texts.subtracting(annotated), [], "no wrong read")
        XCTAssertGreaterThanOrEqual(texts.count, 24, "of 28 annotated")
    }

    // MARK: - ECI

    func testECICodesGiveTheDeclaredCharset() throws {
        let expected: [(file: String, text: String, charset: String, eci: Int, bytes: [UInt8])] = [
            ("qr-eci29-gb2312.png", "你好", "gb2312", 29, [0xC4, 0xE3, 0xBA, 0xC3]),
            ("qr-eci20-sjis.png", "テスト", "shift_jis", 20, [0x83, 0x65, 0x83, 0x58, 0x83, 0x67]),
            ("qr-eci26-utf8.png", "Zürich", "utf-8", 26, Array("Zürich".utf8)),
        ]
        for e in expected {
            // thorough: both decoders run, and zbar's UTF-8 reading merges with zxing-cpp's ECI one.
            let rec = try only("zxing/" + e.file, ["--effort", "thorough"])
            XCTAssertEqual(rec["symbology"] as? String, "qrcode", e.file)
            XCTAssertEqual(rec["text"] as? String, e.text, e.file)
            XCTAssertEqual(rec["charset"] as? String, e.charset, e.file)
            XCTAssertEqual(rec["eci"] as? Int, e.eci, e.file)
            XCTAssertEqual(rec["bytes"] as? String, b64(e.bytes), e.file)
            XCTAssertEqual(rec["decoder"] as? String, "zbar+zxing", "zbar's and zxing-cpp's readings merged: \(e.file)")
        }
    }

    // MARK: - GS1

    func testGS1DataMatrixAndQRKeepFNC1AndParseWithTheShippedHandlers() throws {
        let payload = Array("010952123454321310ABC123".utf8) + [0x1D] + Array("21XYZ987".utf8)
        let files = ["zxing/gs1-datamatrix.png", "zxing/gs1-qrcode.png"]
        let raw = try scan(files.map(CLI.fixture))
        XCTAssertEqual(raw.status, 0, raw.stderr)
        XCTAssertEqual(raw.records.map { $0["symbology"] as? String }, ["datamatrix", "qrcode"])
        for rec in raw.records {
            XCTAssertEqual(rec["bytes"] as? String, b64(payload))
            XCTAssertTrue((rec["modifiers"] as? [String] ?? []).contains("gs1"), "\(rec)")
        }
        XCTAssertEqual(raw.records.map { $0["symbology_id"] as? String }, ["]d2", "]Q3"])

        let parsed = try CLI.run(["scan"] + files.map(CLI.fixture))
        XCTAssertEqual(parsed.status, 0, parsed.stderr)
        XCTAssertEqual(parsed.records.count, 2)
        for rec in parsed.records {
            let payload = try XCTUnwrap(rec["payload"] as? [String: Any], "\(rec)")
            XCTAssertEqual(payload["type"] as? String, "gs1")
            let elements = (payload["elements"] as? [[String: Any]] ?? []).map { "(\($0["ai"] as? String ?? "?")) \($0["value"] as? String ?? "?")" }
            XCTAssertEqual(elements, ["(01) 09521234543213", "(10) ABC123", "(21) XYZ987"])
        }
    }

    // MARK: - Precision

    /// Issue 20: thorough's zxing-cpp passes read a UPC-E from the left half of this rotated
    /// EAN-13 (its end guard on the EAN-13's centre guard, as on Arte-Lab's Foto(782).jpg); the
    /// EAN-13's bars going on past the UPC-E's end leave it out. Every effort gives the EAN-13 alone.
    func testAUPCEReadFromHalfAnEAN13IsNotARecord() throws {
        let path = CLI.packageRoot.appendingPathComponent("Tests/ScanCoreTests/Linear/quiet/ean13-rotated.png").path
        for effort in ["fast", "balanced", "thorough"] {
            let r = try scan([path], ["--effort", effort])
            XCTAssertEqual(r.status, 0, "\(effort): \(r.stderr)")
            XCTAssertEqual(r.records.map { "\($0["symbology"] as? String ?? "?") \($0["text"] as? String ?? "?")" }, ["ean13 8005235212442"], effort)
        }
    }

    /// A rotated UPC-A whose zbar points cover only centre guard to end guard is still read
    /// (the quiet-zone check judges only a span that holds the code's 30 bars).
    func testARotatedUPCAWithPartialPointsIsRead() throws {
        let path = CLI.packageRoot.appendingPathComponent("Tests/ScanCoreTests/Linear/quiet/upca-rotated-33.png").path
        for effort in ["fast", "balanced", "thorough"] {
            let r = try scan([path], ["--effort", effort])
            XCTAssertEqual(r.records.map { "\($0["symbology"] as? String ?? "?") \($0["text"] as? String ?? "?")" }, ["upca 036000291452"], effort)
        }
    }

    /// Issue 20: the negative set (scripts/make-fixtures: Code 11, MSI, Industrial and Matrix 2 of
    /// 5, Telepen, Pharmacode, Channel Code, postal codes, shelf stripes, noise, a code blurred
    /// past reading; sharp, rotated, blurred and resized) gives no EAN/UPC record at any effort.
    /// zxing-cpp reads three of the Code 11 images as an EAN-13 or UPC-A (BarPattern leaves them
    /// out) and the Japan Post code as one at thorough (QuietZones: more bars than an EAN-13);
    /// the gray-level reader read the MSI, Pharmacode, postal, Matrix 2 of 5, Telepen and Channel
    /// Code images as EAN-13s or UPC-As before its slot-by-slot digits had to make the code.
    func testTheNegativeSetGivesNoProductCodeAtAnyEffort() throws {
        let folder = CLI.packageRoot.appendingPathComponent("Tests/ScanCoreTests/Linear/negative").path
        let product: Set<String> = ["ean13", "ean8", "upca", "upce", "isbn13", "isbn10", "ean2", "ean5"]
        for effort in ["fast", "balanced", "thorough"] {
            let r = try scan([folder], ["--effort", effort])
            // 4: most of these images hold no code at all; the Telepen ones are read as Telepen.
            XCTAssertEqual(r.status, 4, "\(effort): \(r.stderr)")
            let wrong = r.records.filter { product.contains($0["symbology"] as? String ?? "") }
            XCTAssertEqual(wrong.map { "\($0["source"] ?? "?") \($0["symbology"] ?? "?") \($0["text"] ?? "?")" }, [], effort)
            // The scan does read what is there: the Telepen.
            XCTAssertTrue(r.records.contains { $0["symbology"] as? String == "telepen" && $0["text"] as? String == "TELEPEN 1" }, effort)
        }
    }

    /// A gray-level reading keeps its decoder's name at thorough too (where balanced's plan and
    /// thorough's own readings are merged).
    func testTheGrayLevelReaderNamesItselfAtEveryEffort() throws {
        let path = CLI.packageRoot.appendingPathComponent("Tests/ScanCoreTests/Linear/blurred/upca-motion.png").path
        for effort in ["balanced", "thorough"] {
            let r = try scan([path], ["--effort", effort])
            XCTAssertEqual(r.records.map { "\($0["text"] ?? "?") \($0["decoder"] ?? "none")" }, ["036000291452 gray"], effort)
        }
    }

    /// A blurred low-contrast EAN-13 beside a lower-contrast Code 128: the gray-level reader goes
    /// first where the first read found nothing, and reads the EAN-13; the retries still run after
    /// it on the places beside it that look like linear codes, and read the Code 128 (the
    /// gray-level reader with no retry after it lost it: a review helper's find). A motion-blurred
    /// EAN-13 above a dark ITF: the brightened pass runs after the gray-level reading too, for the ITF (with the
    /// equalised pass alone it was lost: another review helper's find; zbar and zxing-cpp alone
    /// read neither code). A low-contrast Aztec code beside the blurred EAN-13: the retries read
    /// the whole image for matrix codes, where no place looks like a linear code.
    func testTheRetriesStillReadTheCodeBesideABlurredProductCode() throws {
        func read(_ name: String, _ arguments: [String]) throws -> [String] {
            let path = CLI.packageRoot.appendingPathComponent("Tests/ScanCoreTests/Linear/blurred/" + name).path
            return try scan([path], arguments).records.map { "\($0["text"] ?? "?") \($0["decoder"] ?? "none")" }.sorted()
        }
        // No time budget: a debug build on a busy machine spends balanced's 2 s before the retries.
        XCTAssertEqual(try read("ean13-beside-code128.jpg", ["--time-budget", "0"]), ["5901234123457 gray", "SCANLUA-42 zxing"])
        XCTAssertEqual(try read("ean13-above-dark-itf.png", ["--time-budget", "0"]), ["1672326865 zxing", "7290222791807 gray"])
        XCTAssertEqual(try read("ean13-beside-aztec.jpg", ["--time-budget", "0"]), ["5901234123457 gray", "SCANLUA-32-TEST zxing"])
        XCTAssertEqual(try read("ean13-low-contrast.jpg", ["--decoders", "gray"]), ["5901234123457 gray"])
        XCTAssertEqual(try read("ean13-low-contrast.jpg", ["--effort", "fast"]), [], "fast has neither the retries nor the gray-level reader")
    }

    /// A product code under a pixel per module, tilted a few degrees, on a gray card: one record
    /// from the gray-level reader's projection of its rows, with the digits printed and a box
    /// around the code (about 90 x 45 pixels at the image's centre); zbar and zxing-cpp read nothing.
    func testReadsAProductCodeUnderAPixelPerModule() throws {
        for (name, text) in [("ean13-small-tilted.jpg", "4006381333931"), ("upca-small-tilted.jpg", "036000291452")] {
            let path = CLI.packageRoot.appendingPathComponent("Tests/ScanCoreTests/Linear/blurred/" + name).path
            let records = try scan([path], ["--time-budget", "0"]).records
            XCTAssertEqual(records.map { "\($0["text"] ?? "?") \($0["decoder"] ?? "none")" }, ["\(text) gray"], name)
            guard let box = records.first?["bbox"] as? [String: Any], let x = box["x"] as? Int, let width = box["width"] as? Int else {
                XCTFail("\(name): no bbox"); continue
            }
            XCTAssertEqual(Double(x + width / 2), 200, accuracy: 6, name)
            XCTAssertEqual(Double(width), 92, accuracy: 10, name)
        }
    }

    /// A motion-blurred Telepen (precision-check's seed 7), which the gray-level reader once read
    /// as EAN-13 4111111214289: one record, the Telepen. zxing-cpp's small pass now reads it
    /// first and the gray-level reader skips its place; when the retries read it after the
    /// gray-level reader, the Telepen took the reading's place (the rule after the retries in
    /// DecodePlan, which stays for codes the retries read at a gray-level reading's place).
    func testACodeTheRetriesReadTakesThePlaceOfAGrayReadingThere() throws {
        let path = CLI.packageRoot.appendingPathComponent("Tests/ScanCoreTests/Linear/blurred/telepen-motion.jpg").path
        // No time budget: a debug build spends balanced's 2 s before the retries.
        let r = try scan([path], ["--time-budget", "0"])
        XCTAssertEqual(r.records.map { "\($0["symbology"] ?? "?") \($0["text"] ?? "?") \($0["decoder"] ?? "?")" }, ["telepen V\"h7 zxing"])
    }

    /// A product code only zxing-cpp read, which BarPattern cannot judge, gets the gray-level
    /// reader's opinion of its place: on these two (noise; modules near a pixel) zxing-cpp reads
    /// another valid code than the one printed, the gray-level reader the printed one, and with the
    /// two disagreeing neither stands.
    func testAProductCodeOnlyZXingReadDisagreeingWithTheGrayLevelReaderIsLeftOut() throws {
        for (name, misread) in [("ean13-lowc-zxing-misread.jpg", "4710322181221"), ("upca-small-zxing-misread.jpg", "128237211270")] {
            let path = CLI.packageRoot.appendingPathComponent("Tests/ScanCoreTests/Linear/blurred/" + name).path
            let zxingOnly = try scan([path], ["--decoders", "zxing", "--time-budget", "0"])
            XCTAssertEqual(zxingOnly.records.compactMap { $0["text"] as? String }, [misread], "\(name): zxing-cpp's misreading, the case under test")
            let r = try scan([path], ["--time-budget", "0"])
            XCTAssertEqual(r.records.count, 0, "\(name): \(r.stdout)")
            XCTAssertEqual(r.status, 4, "nothing read")
        }
        // The same beside a small sharp EAN-13: only readings of the doubtful code's place count,
        // inside --roi (the second opinion reported the small code outside the region).
        let path = CLI.packageRoot.appendingPathComponent("Tests/ScanCoreTests/Linear/blurred/ean13-lowc-zxing-misread-beside.png").path
        func read(_ arguments: [String]) throws -> [String] {
            try scan([path], ["--time-budget", "0"] + arguments).records.map { "\($0["text"] ?? "?") \($0["decoder"] ?? "?")" }
        }
        XCTAssertEqual(try read([]), ["4006381333931 zbar+zxing"])
        XCTAssertEqual(try read(["--roi", "0,0,578,386"]), [])
    }

    /// zbar keeps a linear reading one scan line decoded: on this dark rotated EAN-13 a stretch
    /// of bars read as I2/5 `51991112` on one line. Such readings of codes without a check (I2/5,
    /// Code 39, Codabar) are left out below three lines; the gray-level reader reads the EAN-13.
    func testAnI2of5ReadOnOneScanLineIsLeftOut() throws {
        let path = CLI.packageRoot.appendingPathComponent("Tests/ScanCoreTests/Linear/blurred/ean13-dark-rotated.jpg").path
        XCTAssertEqual(try scan([path], []).records.map { "\($0["symbology"] ?? "?") \($0["text"] ?? "?") \($0["decoder"] ?? "?")" },
                       ["ean13 5615351751751 gray"])
        let fast = try scan([path], ["--effort", "fast"])
        XCTAssertEqual(fast.records.count, 0, "fast: zxing-cpp reads nothing, zbar's one-line I2/5 is left out")
    }

    /// zbar reads the left half of this blurred EAN-13 as UPC-E `04176589` (the quiet-zone check
    /// cannot count bars this blurred). A UPC-E or EAN-8 only zbar read does not keep the
    /// gray-level reader away from its place; the EAN-13 it reads there wins (a short code inside a
    /// long one is part of it). fast has no gray-level reader: zbar's reading stands there.
    func testAUPCEReadFromPartOfABlurredEAN13GivesWayToTheEAN13() throws {
        let path = CLI.packageRoot.appendingPathComponent("Tests/ScanCoreTests/Linear/blurred/ean13-upce-inside.jpg").path
        func read(_ arguments: [String]) throws -> [String] {
            try scan([path], arguments).records.map { "\($0["symbology"] ?? "?") \($0["text"] ?? "?") \($0["decoder"] ?? "?")" }
        }
        XCTAssertEqual(try read([]), ["ean13 2315658760427 gray"])
        XCTAssertEqual(try read(["--effort", "fast"]), ["upce 04176589 zbar"])
    }

    /// A blurred UPC-E: where zbar and zxing-cpp read nothing the gray-level reader reads it; a
    /// little less blurred, thorough's zxing-cpp reads it on a row at its foot and the gray-level
    /// reader as a box of its middle: one record, both decoders named (Symbol.reaches).
    func testABlurredUPCEIsOneRecord() throws {
        func read(_ name: String, _ arguments: [String] = []) throws -> [String] {
            let path = CLI.packageRoot.appendingPathComponent("Tests/ScanCoreTests/Linear/blurred/" + name).path
            return try scan([path], ["--time-budget", "0"] + arguments).records.map { "\($0["symbology"] ?? "?") \($0["text"] ?? "?") \($0["decoder"] ?? "?")" }
        }
        XCTAssertEqual(try read("upce-motion.png"), ["upce 04252614 gray"])
        XCTAssertEqual(try read("upce-blur-0x2.5.jpg"), ["upce 04252614 gray"])
        XCTAssertEqual(try read("upce-blur-0x2.5.jpg", ["--effort", "thorough"]), ["upce 04252614 zxing+gray"])
    }

    // MARK: - Add-ons

    /// `symbology:text[+addon]` of each record, sorted (the order follows the decoders' order).
    private func addOnRecords(_ name: String, decoders: String) throws -> [String] {
        let r = try scan([CLI.fixture(name)], ["--decoders", decoders, "--effort", "thorough"])
        XCTAssertEqual(r.status, 0, "\(name) \(decoders): \(r.stderr)")
        return r.records.map { rec in
            let addon = rec["addon"] as? String
            return "\(rec["symbology"] as? String ?? "?"):\(rec["text"] as? String ?? "?")" + (addon.map { "+" + $0 } ?? "")
        }.sorted()
    }

    func testAddOnsWithBothDecoders() throws {
        // zbar gives the add-on a record of its own as well; the main code is one record with `addon`.
        XCTAssertEqual(try addOnRecords("zxing/ean13-addon5.png", decoders: "zbar,zxing"), ["ean5:51995", "isbn13:9780201379624+51995"])
        XCTAssertEqual(try addOnRecords("ean5.png", decoders: "zbar,zxing"), ["ean5:51995", "isbn13:9780201379624+51995"])
        XCTAssertEqual(try addOnRecords("ean2.png", decoders: "zbar,zxing"), ["ean13:4719512002889+12", "ean2:12"])
        let records = try scan([CLI.fixture("zxing/ean13-addon5.png")], ["--effort", "thorough"]).records
        let main = try XCTUnwrap(records.first { $0["symbology"] as? String == "isbn13" })
        XCTAssertEqual(main["decoder"] as? String, "zbar+zxing")
        XCTAssertEqual(main["bytes"] as? String, b64("9780201379624"), "the add-on is not in the main code's bytes")
        let addon = try XCTUnwrap(records.first { $0["symbology"] as? String == "ean5" })
        XCTAssertEqual(addon["decoder"] as? String, "zbar")
        XCTAssertEqual(addon["bytes"] as? String, b64("51995"))
    }

    func testAddOnsWithZBarAlone() throws {
        XCTAssertEqual(try addOnRecords("zxing/ean13-addon5.png", decoders: "zbar"), ["ean5:51995", "isbn13:9780201379624+51995"])
        XCTAssertEqual(try addOnRecords("ean5.png", decoders: "zbar"), ["ean5:51995", "isbn13:9780201379624+51995"])
        XCTAssertEqual(try addOnRecords("ean2.png", decoders: "zbar"), ["ean13:4719512002889+12", "ean2:12"])
    }

    func testAddOnsWithZXingAlone() throws {
        // zxing-cpp has no add-on record: one record, the main code with its add-on.
        XCTAssertEqual(try addOnRecords("zxing/ean13-addon5.png", decoders: "zxing"), ["isbn13:9780201379624+51995"])
        XCTAssertEqual(try addOnRecords("ean5.png", decoders: "zxing"), ["isbn13:9780201379624+51995"])
        XCTAssertEqual(try addOnRecords("ean2.png", decoders: "zxing"), ["ean13:4719512002889+12"])
    }

    // MARK: - Structured append

    private let qrParts = (1...3).map { "part \($0) of the scanlua message;" }

    func testStructuredAppendQRInOneImage() throws {
        let r = try scan([CLI.fixture("zxing/qr-structured-append.png")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let parts = r.records.filter { $0["sequence"] != nil }
        XCTAssertEqual(parts.map { $0["text"] as? String }, qrParts)
        XCTAssertEqual(parts.map { $0["bytes"] as? String }, qrParts.map(b64))
        for (i, p) in parts.enumerated() {
            let seq = try XCTUnwrap(p["sequence"] as? [String: Any])
            XCTAssertEqual(seq["index"] as? Int, i)
            XCTAssertEqual(seq["size"] as? Int, 3)
            XCTAssertEqual(seq["id"] as? String, "201")
            XCTAssertNil(p["joined_parts"])
        }
        let whole = r.records.filter { $0["joined_parts"] != nil }
        XCTAssertEqual(whole.count, 1, r.stdout)
        XCTAssertEqual(whole.first?["text"] as? String, qrParts.joined())
        XCTAssertEqual(whole.first?["bytes"] as? String, b64(qrParts.joined()))
        XCTAssertEqual(whole.first?["joined_parts"] as? Int, 3)
        XCTAssertNil(whole.first?["sequence"])
        XCTAssertEqual(whole.first?["decoder"] as? String, "zxing")
        XCTAssertEqual(r.records.count, 4, r.stdout)
        // zbar joins a QR sequence itself (both decoders run with thorough): its reading and ours are one record.
        let both = try scan([CLI.fixture("zxing/qr-structured-append.png")], ["--effort", "thorough"])
        XCTAssertEqual(both.records.filter { $0["joined_parts"] != nil }.map { $0["decoder"] as? String }, ["zbar+zxing"])
        XCTAssertEqual(both.records.count, 4, both.stdout)
        // The whole message is placed over the three symbols.
        let bbox = try XCTUnwrap(whole.first?["bbox"] as? [String: Int])
        XCTAssertEqual(bbox["x"]!, 72, accuracy: 2)
        XCTAssertEqual(bbox["width"]!, 740, accuracy: 4)
    }

    func testStructuredAppendDataMatrixInOneImage() throws {
        let r = try scan([CLI.fixture("zxing/datamatrix-structured-append.png")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.records.map { $0["text"] as? String }, ["dm part 1;", "dm part 2;", "dm part 1;dm part 2;"])
        XCTAssertEqual(r.records.map { $0["symbology"] as? String }, Array(repeating: "datamatrix", count: 3))
        for (i, p) in r.records.prefix(2).enumerated() {
            let seq = try XCTUnwrap(p["sequence"] as? [String: Any])
            XCTAssertEqual(seq["index"] as? Int, i)
            XCTAssertEqual(seq["size"] as? Int, 2)
            XCTAssertEqual(seq["id"] as? String, "10794", "zint's id 042042: the bytes 42, 42")
        }
        let whole = try XCTUnwrap(r.records.last)
        XCTAssertEqual(whole["joined_parts"] as? Int, 2)
        XCTAssertEqual(whole["bytes"] as? String, b64("dm part 1;dm part 2;"))
        XCTAssertEqual(whole["symbology_id"] as? String, "]d1")
        XCTAssertEqual(whole["decoder"] as? String, "zxing")
        XCTAssertNil(whole["sequence"])
    }

    func testStructuredAppendAcrossImagesJoinsOnceAfterTheLastPart() throws {
        let dir = try tempDir()
        try convert([CLI.fixture("zxing/qr-structured-append.png"), "-crop", "3x1@", "+repage", "part-%d.png"], in: dir)
        let files = (0..<3).map { dir.appendingPathComponent("part-\($0).png").path }
        XCTAssertTrue(files.allSatisfy { FileManager.default.fileExists(atPath: $0) })

        let r = try scan(files)
        XCTAssertEqual(r.status, 0, r.stderr)
        let got = r.records.map { "\((($0["source"] as? String ?? "") as NSString).lastPathComponent):\($0["text"] as? String ?? "?")" }
        XCTAssertEqual(got, ["part-0.png:" + qrParts[0], "part-1.png:" + qrParts[1], "part-2.png:" + qrParts[2],
                             "part-2.png:" + qrParts.joined()])
        XCTAssertEqual(r.records.last?["joined_parts"] as? Int, 3)
        XCTAssertEqual(r.records.last?["bytes"] as? String, b64(qrParts.joined()))
        XCTAssertEqual(r.records.prefix(3).map { ($0["sequence"] as? [String: Any])?["index"] as? Int }, [0, 1, 2])

        // Out of order, with a part seen twice: the message once, with the part that completes it.
        let mixed = try scan([files[2], files[0], files[0], files[1]])
        XCTAssertEqual(mixed.status, 0, mixed.stderr)
        XCTAssertEqual(mixed.records.count, 5, mixed.stdout)
        XCTAssertEqual(mixed.records.filter { $0["joined_parts"] != nil }.count, 1)
        XCTAssertEqual(mixed.records.last?["text"] as? String, qrParts.joined())
        XCTAssertEqual((mixed.records.last?["source"] as? String).map { ($0 as NSString).lastPathComponent }, "part-1.png")

        // Two parts only: no message.
        let partial = try scan([files[0], files[1]])
        XCTAssertEqual(partial.records.map { $0["text"] as? String }, [qrParts[0], qrParts[1]])
        XCTAssertTrue(partial.records.allSatisfy { $0["joined_parts"] == nil })
    }

    // MARK: - --decoders and --effort

    func testDecodersOption() throws {
        let dm = CLI.fixture("zxing/datamatrix.png")
        let zbarOnly = try scan([dm], ["--decoders", "zbar"])
        XCTAssertEqual(zbarOnly.status, 4, "nothing found")
        XCTAssertEqual(zbarOnly.stdout, "")

        let zxingOnly = try scan([dm], ["--decoders", "zxing"])
        XCTAssertEqual(zxingOnly.status, 0, zxingOnly.stderr)
        XCTAssertEqual(zxingOnly.records.map { $0["text"] as? String }, ["scanlua DataMatrix 12345"])
        XCTAssertEqual(zxingOnly.records.first?["decoder"] as? String, "zxing")

        let qrZbar = try only("qrcode.png", ["--decoders", "zbar"])
        XCTAssertEqual(qrZbar["decoder"] as? String, "zbar")
        XCTAssertNil(qrZbar["symbology_id"], "zbar gives no symbology identifier")
        let qrZxing = try only("qrcode.png", ["--decoders", "zxing"])
        XCTAssertEqual(qrZxing["decoder"] as? String, "zxing")
        XCTAssertEqual(qrZxing["symbology_id"] as? String, "]Q1")
        XCTAssertEqual(try only("qrcode.png", ["--decoders", "zxing,zbar", "--effort", "thorough"])["decoder"] as? String, "zbar+zxing")

        let bad = try scan([dm], ["--decoders", "nope"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stdout, "")
        XCTAssertTrue(bad.stderr.contains("unknown decoder 'nope' in --decoders; known: zbar,zxing"), bad.stderr)
    }

    func testEffortOption() throws {
        let bad = try scan([CLI.fixture("qrcode.png")], ["--effort", "slow"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stdout, "")
        XCTAssertTrue(bad.stderr.contains("invalid value 'slow' for '--effort': expected fast, balanced or thorough"), bad.stderr)
        for effort in ["fast", "balanced", "thorough"] {
            let rec = try only("qrcode.png", ["--effort", effort])
            XCTAssertEqual(rec["text"] as? String, "https://example.com/scanlua", effort)
            XCTAssertEqual(rec["symbology_id"] as? String, "]Q1", effort)
            // zbar reads a QR image file with thorough only (else where zxing-cpp found nothing, or only EAN/UPC and Code 128).
            XCTAssertEqual(rec["decoder"] as? String, effort == "thorough" ? "zbar+zxing" : "zxing", effort)
        }
        XCTAssertEqual(try only("zxing/datamatrix.png", ["--effort", "fast"])["text"] as? String, "scanlua DataMatrix 12345")
    }

    // MARK: - Pyramid

    func testLargeImagesAreReadWithFullSizePoints() throws {
        let dir = try tempDir()
        // 132 px -> 2112 px: 4.5 MP, over both thresholds (small pass at 1/4).
        try convert([CLI.fixture("qrcode.png"), "-filter", "point", "-resize", "1600%", "big.png"], in: dir)
        try convert(["big.png", "-quality", "90", "big.jpg"], in: dir)
        for file in ["big.png", "big.jpg"] {
            for effort in ["fast", "balanced", "thorough"] {
                let r = try scan([dir.appendingPathComponent(file).path], ["--effort", effort])
                XCTAssertEqual(r.status, 0, "\(file) \(effort): \(r.stderr)")
                XCTAssertEqual(r.records.count, 1, "\(file) \(effort): \(r.stdout)")
                guard let rec = r.records.first else { continue }
                XCTAssertEqual(rec["text"] as? String, "https://example.com/scanlua", "\(file) \(effort)")
                if effort == "thorough" { XCTAssertEqual(rec["decoder"] as? String, "zbar+zxing", "\(file) \(effort)") }
                // The fixture's code is at x = y = 16...117: 256...1887 at 16x.
                let bbox = try XCTUnwrap(rec["bbox"] as? [String: Int])
                XCTAssertEqual(bbox["x"]!, 256, accuracy: 32, "\(file) \(effort) \(bbox)")
                XCTAssertEqual(bbox["y"]!, 256, accuracy: 32, "\(file) \(effort) \(bbox)")
                XCTAssertEqual(bbox["width"]!, 1616, accuracy: 64, "\(file) \(effort) \(bbox)")
                XCTAssertEqual(bbox["height"]!, 1616, accuracy: 64, "\(file) \(effort) \(bbox)")
                for p in rec["points"] as? [[Int]] ?? [] {
                    XCTAssertTrue(p.allSatisfy { (0..<2112).contains($0) }, "\(file) \(effort): \(p)")
                }
            }
        }
    }

    func testACodeFlushWithTheImageEdgeHasItsOutlineInsideTheImage() throws {
        let dir = try tempDir()
        // Cut right after the last module: qrcode.png's QR ends at 115, microqr.png's Micro QR at 149.
        try convert([CLI.fixture("qrcode.png"), "-crop", "116x116+0+0", "+repage", "qr-edge.png"], in: dir)
        try convert([CLI.fixture("zxing/microqr.png"), "-crop", "150x150+0+0", "+repage", "microqr-edge.png"], in: dir)
        for (file, size, text) in [("qr-edge.png", 116, "https://example.com/scanlua"), ("microqr-edge.png", 150, "MQR123")] {
            let r = try scan([dir.appendingPathComponent(file).path])
            XCTAssertEqual(r.records.map { $0["text"] as? String }, [text], file)
            guard let rec = r.records.first else { continue }
            for p in rec["points"] as? [[Int]] ?? [] {
                XCTAssertTrue(p.allSatisfy { (0..<size).contains($0) }, "\(file): point \(p) outside the \(size)x\(size) image")
            }
            let b = try XCTUnwrap(rec["bbox"] as? [String: Int])
            XCTAssertLessThanOrEqual(b["x"]! + b["width"]!, size, "\(file): bbox \(b)")
            XCTAssertLessThanOrEqual(b["y"]! + b["height"]!, size, "\(file): bbox \(b)")
        }
    }

    // MARK: - Bad input

    func testHostileFilesWithBothDecoders() throws {
        let expected: [(file: String, error: String?)] = [
            ("truncated.jpg", "corrupt JPEG: premature end of JPEG data (file truncated)"),
            ("truncated.png", "corrupt PNG: read beyond end of data"),
            ("huge-header.png", "image is 200000x200000 = 40000000000 pixels, over the limit of 50000000 (see --max-pixels)"),
            ("text-named.jpg", "not an image or document: no signature of JPEG, PNG, PNM, TIFF, WebP, HEIF/AVIF, GIF, BMP, PDF"),
            ("blank.png", nil),
        ]
        for effort in ["fast", "thorough"] {
            let r = try scan(expected.map { CLI.fixture($0.file) }, ["--decoders", "zbar,zxing", "--effort", effort])
            XCTAssertEqual(r.status, 1, "an unreadable input: \(effort)")
            let errors = expected.filter { $0.error != nil }
            XCTAssertEqual(r.records.map { (($0["source"] as? String ?? "") as NSString).lastPathComponent }, errors.map(\.file), effort)
            XCTAssertEqual(r.records.map { $0["error"] as? String }, errors.map(\.error), effort)
            XCTAssertTrue(r.records.allSatisfy { $0["symbology"] == nil }, effort)
        }
        // Each on its own: 1 for an unreadable input, 4 for nothing found.
        for e in expected {
            let r = try scan([CLI.fixture(e.file)])
            XCTAssertEqual(r.status, e.error == nil ? 4 : 1, e.file)
            XCTAssertEqual(r.records.map { $0["error"] as? String }, e.error.map { [$0] } ?? [], e.file)
        }
        // Good files around the bad ones still decode.
        let mixed = try scan([CLI.fixture("truncated.png"), CLI.fixture("zxing/datamatrix.png"), CLI.fixture("blank.png")])
        XCTAssertEqual(mixed.status, 1)
        XCTAssertEqual(mixed.records.map { $0["text"] as? String ?? $0["error"] as? String },
                       ["corrupt PNG: read beyond end of data", "scanlua DataMatrix 12345"])
    }
}
