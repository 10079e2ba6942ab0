import Foundation
import ScanCore
import XCTest

/// `scan --annotate DIR` and `watch --save-frames DIR`: the files a person opens afterwards.
final class ImageSinkTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-images-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    private func picture(_ path: String) throws -> RGBImage {
        try ImageLoader().decodeColor(Data(contentsOf: URL(fileURLWithPath: path)), name: path)
    }

    /// Pixels inside a box whose colour passes `test`.
    private func pixels(_ image: RGBImage, x: Int, y: Int, width: Int, height: Int, _ test: ((r: UInt8, g: UInt8, b: UInt8)) -> Bool) -> Int {
        var n = 0
        for yy in max(0, y)..<min(image.height, y + height) {
            for xx in max(0, x)..<min(image.width, x + width) where test(image[xx, yy]) { n += 1 }
        }
        return n
    }

    /// Pixels of the outline's colour (green, allowing for JPEG) inside a box.
    private func greenPixels(_ image: RGBImage, x: Int, y: Int, width: Int, height: Int) -> Int {
        pixels(image, x: x, y: y, width: width, height: height) { $0.g > 150 && $0.r < 90 && $0.b < 90 }
    }

    /// Pixels of the no-code mark's red inside a box.
    private func redPixels(_ image: RGBImage, x: Int, y: Int, width: Int, height: Int) -> Int {
        pixels(image, x: x, y: y, width: width, height: height) { $0.r > 180 && $0.g < 90 && $0.b < 90 }
    }

    /// Issue 24 item 4: copies mirror the inputs' folders (two image001s in lots/ and glare/ stay
    /// apart), each record names its copy, and a photo with nothing read is marked as such.
    func testAnnotatedCopiesMirrorTheFoldersOutlineEveryCodeAndMarkEmptyPhotos() throws {
        let fm = FileManager.default
        let inputs = dir.appendingPathComponent("photos"), out = dir.appendingPathComponent("out")
        for sub in ["lots", "glare"] { try fm.createDirectory(at: inputs.appendingPathComponent(sub), withIntermediateDirectories: true) }
        let photo = inputs.appendingPathComponent("lots/image001.jpg").path
        let ean = inputs.appendingPathComponent("glare/image001.png").path
        let blank = inputs.appendingPathComponent("blank.png").path
        try fm.copyItem(atPath: CLI.packageRoot.appendingPathComponent("examples/images/einvoice-pair.jpg").path, toPath: photo)
        try fm.copyItem(atPath: CLI.fixture("ean13.png"), toPath: ean)
        try fm.copyItem(atPath: CLI.fixture("blank.png"), toPath: blank)
        let r = try CLI.run(["scan", "--no-default-scripts", "--annotate", out.path, inputs.path])
        XCTAssertEqual(r.status, 4, "blank.png has nothing: the exit status is the same as without --annotate")
        let copies = ["lots/image001.jpg", "glare/image001.png", "blank.png"]
        XCTAssertEqual(Set(try fm.subpathsOfDirectory(atPath: out.path).filter { $0.contains(".") }), Set(copies))
        // The records are those of a scan without --annotate, each with its copy.
        let plain = try CLI.run(["scan", "--no-default-scripts", inputs.path])
        XCTAssertEqual(r.stdout.replacingOccurrences(of: #","annotated":"[^"]*""#, with: "", options: .regularExpression), plain.stdout)
        XCTAssertEqual(r.records.map { $0["annotated"] as? String ?? "-" },
                       [out.appendingPathComponent("glare/image001.png").path] + Array(repeating: out.appendingPathComponent("lots/image001.jpg").path, count: 2))

        for (input, output, isJPEG) in [(photo, copies[0], true), (ean, copies[1], false), (blank, copies[2], false)] {
            let copy = out.appendingPathComponent(output).path
            let bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
            XCTAssertEqual(ImageFormat.sniff(bytes), isJPEG ? .jpeg : .png, output)
            let a = try picture(copy), b = try picture(input)
            XCTAssertEqual([a.width, a.height], [b.width, b.height], "\(output) has the input's size")
        }
        // Each code: green on its outline (just outside its corners) and a label above it; the input had none.
        for record in r.records {
            let copy = try picture(record["annotated"] as! String)
            let original = try picture(record["source"] as! String)
            let box = record["bbox"] as! [String: Int]
            let (x, y, w, h) = (box["x"]!, box["y"]!, box["width"]!, box["height"]!)
            XCTAssertGreaterThan(greenPixels(copy, x: x - 8, y: y - 8, width: w + 16, height: h + 16), 2 * (w + h),
                                 "an outline around \(record["text"]!)")
            XCTAssertEqual(greenPixels(original, x: x - 8, y: y - 8, width: w + 16, height: h + 16), 0)
            XCTAssertGreaterThan(greenPixels(copy, x: x - 8, y: y - 30, width: min(w, 100), height: 30), 300, "a label above \(record["text"]!)")
            XCTAssertEqual(redPixels(copy, x: 0, y: 0, width: copy.width, height: copy.height), 0, "no no-code mark where codes were read")
        }
        let nothing = try picture(out.appendingPathComponent("blank.png").path)
        XCTAssertEqual(greenPixels(nothing, x: 0, y: 0, width: nothing.width, height: nothing.height), 0, "no outline where nothing was found")
        XCTAssertGreaterThan(redPixels(nothing, x: 0, y: 0, width: nothing.width, height: 2), nothing.width, "a red frame says nothing was read")
        XCTAssertGreaterThan(redPixels(nothing, x: 0, y: nothing.height - 2, width: nothing.width, height: 2), nothing.width)
    }

    /// The record names the file that exists: the bytes decide the copy's format (a .jpg holding
    /// a PNG gets a .png copy); an image with nothing read names its copy in its empty record;
    /// `..` in an input's path is resolved.
    func testTheRecordNamesTheCopyThatIsWritten() throws {
        let fm = FileManager.default
        try fm.createDirectory(at: dir.appendingPathComponent("in/lots"), withIntermediateDirectories: true)
        let disguised = dir.appendingPathComponent("in/lots/y.jpg").path
        try fm.copyItem(atPath: CLI.fixture("qrcode.png"), toPath: disguised)
        try fm.copyItem(atPath: CLI.fixture("blank.png"), toPath: dir.appendingPathComponent("in/blank.png").path)
        let out = dir.appendingPathComponent("out").path
        let r = try CLI.run(["scan", "--no-default-scripts", "--empty-records", "--annotate", out,
                             dir.appendingPathComponent("in/blank.png").path, dir.path + "/in/lots/../lots/y.jpg"])
        let named = r.records.compactMap { $0["annotated"] as? String }
        XCTAssertEqual(named, [out + "/blank.png", out + "/lots/y.png"], r.stdout)
        for path in named { XCTAssertTrue(fm.fileExists(atPath: path), path) }
    }

    func testAnnotatedCopiesNeverReplaceAnInputOrEachOther() throws {
        let fm = FileManager.default
        try fm.createDirectory(at: dir.appendingPathComponent("a"), withIntermediateDirectories: true)
        try fm.createDirectory(at: dir.appendingPathComponent("b"), withIntermediateDirectories: true)
        // The copies would be the inputs themselves: a/code.png, b/code.png, and a/code-2.png, the
        // name the first copy takes instead.
        let a = dir.appendingPathComponent("a/code.png").path, b = dir.appendingPathComponent("b/code.png").path
        let c = dir.appendingPathComponent("a/code-2.png").path
        try fm.copyItem(atPath: CLI.fixture("qrcode.png"), toPath: a)
        try fm.copyItem(atPath: CLI.fixture("ean8.png"), toPath: b)
        try fm.copyItem(atPath: CLI.fixture("code128.png"), toPath: c)
        let before = try [a, b, c].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let r = try CLI.run(["scan", "--no-default-scripts", "--annotate", dir.path, a, b, c])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try [a, b, c].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }, before, "the inputs are untouched")
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: dir.appendingPathComponent("a").path).sorted(),
                       ["code-2-2.png", "code-2.png", "code-3.png", "code.png"])
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: dir.appendingPathComponent("b").path).sorted(), ["code-2.png", "code.png"])
        XCTAssertEqual(r.records.map { ($0["annotated"] as? String ?? "").replacingOccurrences(of: dir.path + "/", with: "") },
                       ["a/code-3.png", "b/code-2.png", "a/code-2-2.png"])
        XCTAssertEqual(try picture(dir.appendingPathComponent("b/code-2.png").path).width, try picture(b).width, "b's copy")
    }

    /// A JPEG on stdin stays a color JPEG; an --annotate directory inside a scanned one is not
    /// scanned on the next run (its copies are not inputs).
    func testStdinCopiesKeepTheirFormatAndTheOutputDirectoryIsNotAnInput() throws {
        let photo = CLI.packageRoot.appendingPathComponent("examples/images/einvoice-pair.jpg")
        let out = dir.appendingPathComponent("out")
        let r = try CLI.run(["scan", "--no-default-scripts", "--annotate", out.path, "-"], stdin: try Data(contentsOf: photo))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path), ["stdin.jpg"])
        let copy = try picture(out.appendingPathComponent("stdin.jpg").path)
        XCTAssertEqual([copy.width, copy.height], [616, 413])

        let inputs = dir.appendingPathComponent("inputs")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLI.fixture("qrcode.png"), toPath: inputs.appendingPathComponent("qrcode.png").path)
        let inner = inputs.appendingPathComponent("annotated").path
        for run in 1...2 {
            let again = try CLI.run(["scan", "--no-default-scripts", "--annotate", inner, inputs.path])
            XCTAssertEqual(again.status, 0, "run \(run): \(again.stderr)")
            XCTAssertEqual(again.records.count, 1, "run \(run): only the input")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: inner), ["qrcode.png"], "run \(run)")
        }
    }

    func testAnAnnotateDirectoryThatCannotBeMadeIsAnError() throws {
        let file = dir.appendingPathComponent("file")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: file)
        let r = try CLI.run(["scan", "--no-default-scripts", "--annotate", file.appendingPathComponent("sub").path, CLI.fixture("qrcode.png")])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "", "nothing scanned")
        XCTAssertTrue(r.stderr.contains("scanlua: --annotate: cannot create the directory \(file.path)/sub: "), r.stderr)
    }

    /// A watched folder's images keep their names; two images of one name are two files.
    func testSavedFramesOfAWatchedFolderNeverReplaceEachOther() throws {
        let inbox = dir.appendingPathComponent("inbox"), saved = dir.appendingPathComponent("saved")
        for (sub, fixture) in [("a", "qrcode.png"), ("b", "ean8.png")] {
            try FileManager.default.createDirectory(at: inbox.appendingPathComponent(sub), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: CLI.fixture(fixture), toPath: inbox.appendingPathComponent("\(sub)/scan.png").path)
        }
        let r = try CLI.run(["watch", "--no-default-scripts", "--quiet", "--timeout", "2", "--save-frames", saved.path, inbox.path])
        XCTAssertEqual(r.records.count, 2, r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: saved.path).sorted(), ["scan-2.jpg", "scan.jpg"])
        let again = try CLI.run(["scan", "--no-default-scripts", "--raw", saved.appendingPathComponent("scan.jpg").path,
                                 saved.appendingPathComponent("scan-2.jpg").path])
        XCTAssertEqual(Set(again.stdout.split(separator: "\n")), ["https://example.com/scanlua", "96385074"])
    }

    /// The frames in which a code was accepted, without drawings: the photo of each scan.
    func testSaveFramesKeepsTheFramesOfAcceptedCodes() throws {
        let y4m = CLI.fixture("stream-10fps.y4m")
        let r = try CLI.run(["watch", "--no-default-scripts", "--quiet", "--save-frames", dir.path, y4m])
        XCTAssertEqual(r.status, 0, r.stderr)
        let frames = r.records.map { $0["frame"] as? Int ?? 0 }
        XCTAssertEqual(frames, [0, 2, 10])
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertEqual(files, ["stream-10fps-000000.jpg", "stream-10fps-000002.jpg", "stream-10fps-000010.jpg"])
        // Each saved frame is the frame itself: scanning it again reads its codes (frame 2 shows
        // code-A, a duplicate then, beside the new code-B).
        let again = try CLI.run(["scan", "--no-default-scripts", "--raw"] + files.map { dir.appendingPathComponent($0).path })
        XCTAssertEqual(again.stdout, "code-A\ncode-A\ncode-B\ncode-A\n")
        let first = try picture(dir.appendingPathComponent(files[0]).path)
        XCTAssertEqual([first.width, first.height], [240, 180])
        XCTAssertEqual(greenPixels(first, x: 0, y: 0, width: first.width, height: first.height), 0, "no drawings")
    }
}
