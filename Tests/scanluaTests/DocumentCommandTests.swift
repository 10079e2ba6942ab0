import Foundation
import XCTest

/// Documents and the other image formats through `scanlua scan` and `watch`, on the files
/// scripts/make-document-fixtures makes with real encoders (img2pdf, ImageMagick's G4 fax TIFFs,
/// heif-enc, cwebp, img2webp): every code with its page or frame, every input accounted for.
final class DocumentCommandTests: XCTestCase {
    private func doc(_ name: String) -> String { CLI.fixture("documents/" + name) }

    /// The scan as a user runs it (no time budget: the debug build is slow, and a cut pass
    /// would make the records depend on the machine).
    private func scan(_ args: [String], stdin: Data? = nil) throws -> CLI.Result {
        try CLI.run(["scan", "--no-default-scripts", "--time-budget", "0"] + args, stdin: stdin)
    }

    private func texts(_ r: CLI.Result) -> [String] { r.records.compactMap { $0["text"] as? String } }

    func testEveryPageOfAPDFIsReadWithItsPageNumber() throws {
        let r = try scan([doc("three-pages.pdf")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(texts(r), ["INVOICE-1001 page 1", "ASN-000042", "page three: DataMatrix"])
        XCTAssertEqual(r.records.map { $0["page"] as? Int }, [1, 2, 3])
        XCTAssertEqual(r.records.map { $0["symbology"] as? String }, ["qrcode", "code128", "datamatrix"])
        XCTAssertEqual(Set(r.records.map { $0["source"] as? String }), [doc("three-pages.pdf")])
        let text = try scan(["--format", "text", doc("three-pages.pdf")])
        XCTAssertEqual(text.stdout, """
            \(doc("three-pages.pdf")):1: QR-Code:INVOICE-1001 page 1
            \(doc("three-pages.pdf")):2: CODE-128:ASN-000042
            \(doc("three-pages.pdf")):3: DataMatrix:page three: DataMatrix

            """)
    }

    func testPagesSelectsPagesAndAVectorQRCodeIsRead() throws {
        let r = try scan(["--pages", "2-3", doc("three-pages.pdf")])
        XCTAssertEqual(r.records.map { $0["page"] as? Int }, [2, 3], r.stderr)
        let vector = try scan([doc("vector-qr.pdf")])
        XCTAssertEqual(texts(vector), ["https://scanlua.example/vector"], vector.stderr)
        XCTAssertEqual(vector.records.first?["page"] as? Int, 1)
        let none = try scan(["--pages", "7", doc("three-pages.pdf")])
        XCTAssertEqual(none.status, 1)
        XCTAssertEqual(none.records.map { $0["error"] as? String }, ["--pages selects none of its 3 pages"])
        // A document is one input: a page without a code does not make it "nothing found".
        let blank = try scan([doc("code-and-text.pdf")])
        XCTAssertEqual(blank.status, 0, blank.stderr)
        XCTAssertEqual(texts(blank), ["INVOICE-1001 page 1"])
        let bad = try scan(["--pages", "3-1", doc("three-pages.pdf")])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--pages: '3-1'"), bad.stderr)
    }

    /// A code too small at 300 dpi: balanced renders its region again at 600 dpi; fast renders
    /// each page once. The page of text only has no such region.
    func testASmallCodeIsReadFromItsRegionRenderedAtTwiceTheDPI() throws {
        let balanced = try scan([doc("small-code.pdf")])
        XCTAssertEqual(texts(balanced), ["SMALL-CODE-128-X"], balanced.stderr)
        let fast = try scan(["--effort", "fast", doc("small-code.pdf")])
        XCTAssertEqual(fast.status, 4, fast.stdout)
        XCTAssertEqual(texts(try scan(["--effort", "fast", "--dpi", "600", doc("small-code.pdf")])), ["SMALL-CODE-128-X"])
    }

    func testFaxTIFFsAtFineAndStandardResolution() throws {
        let fine = try scan([doc("fax-fine.tif")])
        XCTAssertEqual(texts(fine), ["FAX page 1", "FAX page 2"], fine.stderr)
        XCTAssertEqual(fine.records.map { $0["page"] as? Int }, [1, 2])
        // 204x98 dpi: rows at half height, resampled to square pixels to be read; the points are
        // in the page's own pixels (its height is 48% of the square code's).
        let standard = try scan([doc("fax-standard.tif")])
        XCTAssertEqual(texts(standard), ["FAX page 1"], standard.stderr)
        let points = try XCTUnwrap(standard.records.first?["points"] as? [[Int]])
        let ys = points.map { $0[1] }, xs = points.map { $0[0] }
        let height = Double(ys.max()! - ys.min()!), width = Double(xs.max()! - xs.min()!)
        XCTAssertEqual(height / width, 0.48, accuracy: 0.06, "\(points)")
    }

    func testPhoneFormatsAndOrientedTIFFs() throws {
        for name in ["photo.heic", "photo.avif", "photo.webp", "photo-24.bmp", "photo-1bit.bmp"] {
            let r = try scan([doc(name)])
            XCTAssertEqual(texts(r), ["PHOTO-FORMATS-123"], "\(name): \(r.stderr)")
            XCTAssertNil(r.records.first?["page"], name)
        }
        XCTAssertEqual(texts(try scan([doc("photo-jpeg.tif")])), ["4006381333931"])
        let rotated = try scan([doc("rotated-6.tif")])
        XCTAssertEqual(texts(rotated), ["INVOICE-1001 page 1"], rotated.stderr)
        XCTAssertEqual(rotated.records.first?["orientation"] as? String, "up", "Orientation 6 applied: the code stands upright")
    }

    func testAnimationsGiveEachFrameAndWebPItsFirst() throws {
        let gif = try scan([doc("anim.gif")])
        XCTAssertEqual(texts(gif), ["GIF frame 1", "GIF frame 2"], gif.stderr)
        XCTAssertEqual(gif.records.map { $0["frame"] as? Int }, [0, 1])
        XCTAssertEqual(texts(try scan([doc("anim.webp")])), ["GIF frame 1"])
    }

    /// Images one after another on stdin (pdftoppm's output): each is read, with its frame.
    func testConcatenatedImagesOnStdinAreEachRead() throws {
        let pages = try CLI.run(["scan", "--no-default-scripts", "-"], stdin: nil)
        XCTAssertEqual(pages.status, 1, "empty stdin is an error record")
        let png = try Data(contentsOf: URL(fileURLWithPath: CLI.fixture("qrcode.png")))
        let pgm = try Data(contentsOf: URL(fileURLWithPath: CLI.fixture("pgm-p5.pgm")))
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: CLI.fixture("jpeg-plain.jpg")))
        let r = try scan(["-"], stdin: png + pgm + jpeg)
        XCTAssertEqual(r.records.map { $0["frame"] as? Int }, [0, 1, 2], r.stderr)
        XCTAssertEqual(r.records.compactMap { $0["source"] as? String }, ["-", "-", "-"])
        let pdf = try Data(contentsOf: URL(fileURLWithPath: doc("three-pages.pdf")))
        XCTAssertEqual(try scan(["-"], stdin: pdf).records.map { $0["page"] as? Int }, [1, 2, 3])
        // What follows the last whole image is said, not dropped without a word.
        let cut = try scan(["-"], stdin: png + jpeg.prefix(300))
        XCTAssertEqual(cut.records.count, 1)
        XCTAssertTrue(cut.stderr.contains("-: skipped: 300 bytes after image 1 are no whole JPEG, PNG or binary PNM"), cut.stderr)
    }

    /// Every file of a mixed inbox is accounted for: a record per code, an error record for the
    /// truncated HEIC, and (with --empty-records) a record for the text file.
    func testAMixedFolderAccountsForEveryFile() throws {
        let folder = doc("mixed")
        let r = try scan(["--empty-records", folder])
        XCTAssertEqual(r.status, 1, "the truncated HEIC is an unreadable input: \(r.stderr)")
        var bySource: [String: [[String: Any]]] = [:]
        for record in r.records { bySource[(record["source"] as? String ?? "").replacingOccurrences(of: folder + "/", with: ""), default: []].append(record) }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        XCTAssertEqual(Set(bySource.keys), Set(files), "one record or more for each of the \(files.count) files")
        XCTAssertEqual(bySource["notes.txt"]?.first?["error"] as? String,
                       "skipped: no signature of JPEG, PNG, PNM, TIFF, WebP, HEIF/AVIF, GIF, BMP, PDF")
        XCTAssertTrue((bySource["truncated.heic"]?.first?["error"] as? String ?? "").hasPrefix("corrupt HEIF/AVIF: "))
        XCTAssertEqual(bySource["three-pages.pdf"]?.count, 3)
        XCTAssertEqual(bySource["fax-fine.tif"]?.compactMap { $0["text"] as? String }, ["FAX page 1", "FAX page 2"])
        // Without --empty-records, the text file is a line on stderr, not a record.
        let plain = try scan(["--format", "text", folder])
        XCTAssertTrue(plain.stderr.contains("\(folder)/notes.txt: skipped: no signature of"), plain.stderr)
        XCTAssertTrue(plain.stderr.contains("1 file that is no image"), plain.stderr)
    }

    func testCraftedHeadersAreRefusedBeforeAllocation() throws {
        for (name, size) in [("huge.tif", "100000x100000"), ("huge.gif", "65535x65535"), ("huge.bmp", "100000x100000"),
                             ("huge.webp", "16384x16384")] {
            let r = try CLI.run(["scan", "--no-default-scripts", doc(name)], timed: true)
            XCTAssertEqual(r.status, 1, name)
            let error = r.records.first?["error"] as? String ?? ""
            XCTAssertTrue(error.hasPrefix("image is \(size) = "), "\(name): \(error)")
            if let kb = r.peakKilobytes, ProcessInfo.processInfo.environment["SCANLUA_ASAN"] == nil {
                XCTAssertLessThan(kb, 150_000, "\(name) allocated its pixels")
            }
        }
        // A review helper's finds: sizes whose product overflows are refused, not a trap (a TIFF
        // of 2^32-1 squared; a PNM on stdin whose end is past Int.max).
        let huge = try scan([doc("huge-4g.tif")])
        XCTAssertEqual(huge.status, 1, huge.stderr)
        XCTAssertTrue((huge.records.first?["error"] as? String ?? "").hasPrefix("image is 4294967295x4294967295 = "), "\(huge.records)")
        let pnm = try scan(["-"], stdin: Data("P5\n859764727 10727786041\n255\n".utf8))
        XCTAssertEqual(pnm.status, 1, pnm.stderr)
        XCTAssertEqual(pnm.records.first?["source"] as? String, "-")
        // A Title holding pdfinfo's own lines does not make a one-page PDF 900 pages.
        let spoof = try scan(["--empty-records", doc("title-spoof.pdf")])
        XCTAssertEqual(spoof.records.map { $0["page"] as? Int }, [1], spoof.stdout)
        XCTAssertEqual(spoof.records.first?["symbols"] as? Int, 0)
        // A PDF page over --max-pixels is refused from pdfinfo's size, before it is rendered.
        let big = try scan(["--dpi", "1200", "--max-pixels", "1000000", doc("vector-qr.pdf")])
        XCTAssertEqual(big.records.first?["error"] as? String,
                       "image is 9917x14034 = 139175178 pixels, over the limit of 1000000 (see --max-pixels)")
        XCTAssertEqual(big.records.first?["page"] as? Int, 1)
    }

    /// Issue 61, attacks 1 and 6: ancillary PNG chunks are not inflated (100 zTXt chunks of 7.9 MB
    /// each took 4 s), and a progressive JPEG of 364 scans is refused from its scan count, while
    /// one of 64 (jpegtran's script, a real encoder) is read.
    func testCraftedPNGChunksAndJPEGScansAreBounded() throws {
        let start = Date()
        let png = try CLI.run(["scan", "--no-default-scripts", doc("png-text-chunks.png")], timed: true)
        XCTAssertEqual(png.records.first?["text"] as? String, "PNG with text chunks", png.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(start), 2, "the chunks were inflated")
        if let kb = png.peakKilobytes, ProcessInfo.processInfo.environment["SCANLUA_ASAN"] == nil { XCTAssertLessThan(kb, 150_000) }
        XCTAssertEqual(try scan([doc("jpeg-64-scans.jpg")]).records.first?["text"] as? String, "PNG with text chunks")
        let many = try scan([doc("jpeg-364-scans.jpg")])
        XCTAssertEqual(many.status, 1)
        XCTAssertEqual(many.records.first?["error"] as? String,
                       "corrupt JPEG: more than 100 progressive scans (real encoders write about ten; refused)")
    }

    /// Issue 61, attack 7: a file over --max-file-size is refused before it is read (four sparse
    /// 1000 MB files took 7.6 GB); files over 16 MiB are read one at a time.
    func testLargeFilesAreRefusedBeforeTheyAreRead() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-size-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var paths: [String] = []
        for i in 1...4 {
            let path = dir.appendingPathComponent("big\(i).png").path
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])))
            XCTAssertEqual(truncate(path, 1000 << 20), 0)  // sparse: no disk used
            paths.append(path)
        }
        let start = Date()
        let r = try CLI.run(["scan", "--no-default-scripts", "--threads", "4"] + paths, timed: true)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(Set(r.records.map { $0["error"] as? String }), ["cannot read file: larger than 200 MiB, the limit of --max-file-size"])
        if let kb = r.peakKilobytes, ProcessInfo.processInfo.environment["SCANLUA_ASAN"] == nil { XCTAssertLessThan(kb, 150_000) }
        let small = try scan(["--max-file-size", "1", doc("png-text-chunks.png")])
        XCTAssertEqual(small.records.first?["text"] as? String, "PNG with text chunks", "771 KB is under 1 MiB")
    }

    /// A PDF that is no PDF (a header, then garbage) and one the renderer cannot finish in its
    /// time: error records naming the file, and the next input still read.
    func testABrokenPDFIsAnErrorRecordAndTheScanGoesOn() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-pdf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = dir.appendingPathComponent("broken.pdf").path
        try Data("%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage".utf8).write(to: URL(fileURLWithPath: broken))
        let r = try scan([broken, CLI.fixture("qrcode.png")])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.records.count, 2)
        XCTAssertEqual(r.records[0]["source"] as? String, broken)
        XCTAssertTrue((r.records[0]["error"] as? String ?? "").hasPrefix("corrupt PDF: pdfinfo failed (exit status 1)"), "\(r.records[0])")
        XCTAssertEqual(r.records[1]["text"] as? String, "https://example.com/scanlua")
    }

    func testAnnotatedCopiesOfPagesAndTheLuaEventsPage() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-annotate-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try scan(["--annotate", dir.path, doc("three-pages.pdf")])
        XCTAssertEqual(r.records.compactMap { $0["annotated"] as? String }.map { ($0 as NSString).lastPathComponent },
                       ["three-pages.p1.png", "three-pages.p2.png", "three-pages.p3.png"], r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(),
                       ["three-pages.p1.png", "three-pages.p2.png", "three-pages.p3.png"])
        // A page's copy is the page at the rendered size (A6 at 300 dpi).
        let copy = try Data(contentsOf: dir.appendingPathComponent("three-pages.p2.png"))
        XCTAssertEqual(copy.prefix(24).suffix(8).map { $0 }, [0, 0, 4, 0xD8, 0, 0, 6, 0xD4], "1240x1748")
        let script = dir.deletingLastPathComponent().appendingPathComponent("page-\(UUID().uuidString).lua")
        defer { try? FileManager.default.removeItem(at: script) }
        try Data("""
            local scan = require "scan"
            scan.parser { name = "paged", parse = function(ev)
              return { type = "paged", page = ev.page or "none", siblings = #ev.siblings } end }
            """.utf8).write(to: script)
        let lua = try CLI.run(["scan", "--no-default-scripts", "--time-budget", "0", "--script", script.path,
                               doc("three-pages.pdf"), CLI.fixture("qrcode.png")])
        XCTAssertEqual(lua.records.compactMap { ($0["payload"] as? [String: Any])?["page"] as? Int }, [1, 2, 3], lua.stderr)
        XCTAssertEqual((lua.records.last?["payload"] as? [String: Any])?["page"] as? String, "none")
    }

    /// The history keeps each record's page, and export writes it.
    func testTheHistoryAndExportKeepThePage() throws {
        let db = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-pages-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: db) }
        let r = try scan(["--db", db, doc("three-pages.pdf"), CLI.fixture("qrcode.png")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let export = try CLI.run(["export", "--db", db, "--format", "csv"])
        let lines = export.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }  // CSV rows end in CRLF
        XCTAssertEqual(lines.first?.hasPrefix("time,source,frame,page,symbology,"), true, export.stdout)
        XCTAssertEqual(lines.dropFirst().map { String($0.split(separator: ",", omittingEmptySubsequences: false)[3]) }, ["1", "2", "3", ""])
    }

    /// A watched consume folder reads by content: a PDF named .dat and a text file named .png.
    func testAWatchedFolderReadsByContent() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-watchdoc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(atPath: doc("three-pages.pdf"), toPath: dir.appendingPathComponent("scan.dat").path)
        try Data("hello".utf8).write(to: dir.appendingPathComponent("readme.png"))
        // Old enough not to wait for --settle.
        for name in ["scan.dat", "readme.png"] {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)],
                                                  ofItemAtPath: dir.appendingPathComponent(name).path)
        }
        let r = try CLI.run(["watch", "--no-default-scripts", "--time-budget", "0", "--empty-records", "--max-frames", "4", "--timeout", "60", dir.path])
        XCTAssertEqual(r.records.filter { $0["text"] != nil }.map { $0["page"] as? Int }, [1, 2, 3], r.stderr)
        XCTAssertEqual(r.records.first { ($0["source"] as? String)?.hasSuffix("readme.png") == true }?["error"] as? String,
                       "skipped: no signature of JPEG, PNG, PNM, TIFF, WebP, HEIF/AVIF, GIF, BMP, PDF")
    }
}
