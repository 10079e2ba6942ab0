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

    /// Pixels of the outline's colour (green, allowing for JPEG) inside a box.
    private func greenPixels(_ image: RGBImage, x: Int, y: Int, width: Int, height: Int) -> Int {
        var n = 0
        for yy in max(0, y)..<min(image.height, y + height) {
            for xx in max(0, x)..<min(image.width, x + width) {
                let c = image[xx, yy]
                if c.g > 150 && c.r < 90 && c.b < 90 { n += 1 }
            }
        }
        return n
    }

    func testAnnotatedCopiesKeepTheSizeAndOutlineAndLabelEveryCode() throws {
        let photo = CLI.packageRoot.appendingPathComponent("examples/images/einvoice-pair.jpg").path
        let ean = CLI.fixture("ean13.png"), blank = CLI.fixture("blank.png")
        let r = try CLI.run(["scan", "--no-default-scripts", "--annotate", dir.path, photo, ean, blank])
        XCTAssertEqual(r.status, 4, "blank.png has nothing: the exit status is the same as without --annotate")
        let plain = try CLI.run(["scan", "--no-default-scripts", photo, ean, blank])
        XCTAssertEqual(r.stdout, plain.stdout, "the records do not change")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(),
                       ["blank-annotated.png", "ean13-annotated.png", "einvoice-pair-annotated.jpg"])

        for (input, output, isJPEG) in [(photo, "einvoice-pair-annotated.jpg", true), (ean, "ean13-annotated.png", false),
                                        (blank, "blank-annotated.png", false)] {
            let copy = dir.appendingPathComponent(output).path
            let bytes = try Data(contentsOf: URL(fileURLWithPath: copy))
            XCTAssertEqual(ImageFormat.sniff(bytes), isJPEG ? .jpeg : .png, output)
            let a = try picture(copy), b = try picture(input)
            XCTAssertEqual([a.width, a.height], [b.width, b.height], "\(output) has the input's size")
        }
        // Each code: green on its outline (just outside its corners) and a label above it; the input had none.
        let records = r.records.filter { $0["symbology"] != nil }
        XCTAssertEqual(records.count, 3)
        for record in records {
            let source = record["source"] as! String
            let name = ((source as NSString).lastPathComponent as NSString).deletingPathExtension + "-annotated."
                + (source.hasSuffix(".jpg") ? "jpg" : "png")
            let copy = try picture(dir.appendingPathComponent(name).path)
            let original = try picture(source)
            let box = record["bbox"] as! [String: Int]
            let (x, y, w, h) = (box["x"]!, box["y"]!, box["width"]!, box["height"]!)
            XCTAssertGreaterThan(greenPixels(copy, x: x - 8, y: y - 8, width: w + 16, height: h + 16), 2 * (w + h),
                                 "an outline around \(record["text"]!)")
            XCTAssertEqual(greenPixels(original, x: x - 8, y: y - 8, width: w + 16, height: h + 16), 0)
            XCTAssertGreaterThan(greenPixels(copy, x: x - 8, y: y - 30, width: min(w, 100), height: 30), 300, "a label above \(record["text"]!)")
        }
        let nothing = try picture(dir.appendingPathComponent("blank-annotated.png").path)
        XCTAssertEqual(greenPixels(nothing, x: 0, y: 0, width: nothing.width, height: nothing.height), 0, "nothing drawn where nothing was found")
    }

    func testAnnotatedCopiesNeverReplaceAnInputOrEachOther() throws {
        let fm = FileManager.default
        try fm.createDirectory(at: dir.appendingPathComponent("a"), withIntermediateDirectories: true)
        try fm.createDirectory(at: dir.appendingPathComponent("b"), withIntermediateDirectories: true)
        // Two inputs named code.png, and a third input whose name is what the first copy would be called.
        let a = dir.appendingPathComponent("a/code.png").path, b = dir.appendingPathComponent("b/code.png").path
        let c = dir.appendingPathComponent("a/code-annotated.png").path
        try fm.copyItem(atPath: CLI.fixture("qrcode.png"), toPath: a)
        try fm.copyItem(atPath: CLI.fixture("ean8.png"), toPath: b)
        try fm.copyItem(atPath: CLI.fixture("code128.png"), toPath: c)
        let before = try [a, c].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        // The copies go next to the inputs in a/.
        let r = try CLI.run(["scan", "--no-default-scripts", "--annotate", dir.appendingPathComponent("a").path, a, b, c])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try [a, c].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }, before, "the inputs are untouched")
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: dir.appendingPathComponent("a").path).sorted(),
                       ["code-annotated-2.png", "code-annotated-3.png", "code-annotated-annotated.png", "code-annotated.png", "code.png"])
        XCTAssertEqual(try picture(dir.appendingPathComponent("a/code-annotated-3.png").path).width, try picture(b).width, "b's copy")
    }

    /// A JPEG on stdin stays a color JPEG; an --annotate directory inside a scanned one is not
    /// scanned on the next run (its copies are not inputs).
    func testStdinCopiesKeepTheirFormatAndTheOutputDirectoryIsNotAnInput() throws {
        let photo = CLI.packageRoot.appendingPathComponent("examples/images/einvoice-pair.jpg")
        let out = dir.appendingPathComponent("out")
        let r = try CLI.run(["scan", "--no-default-scripts", "--annotate", out.path, "-"], stdin: try Data(contentsOf: photo))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path), ["stdin-annotated.jpg"])
        let copy = try picture(out.appendingPathComponent("stdin-annotated.jpg").path)
        XCTAssertEqual([copy.width, copy.height], [616, 413])

        let inputs = dir.appendingPathComponent("inputs")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLI.fixture("qrcode.png"), toPath: inputs.appendingPathComponent("qrcode.png").path)
        let inner = inputs.appendingPathComponent("annotated").path
        for run in 1...2 {
            let again = try CLI.run(["scan", "--no-default-scripts", "--annotate", inner, inputs.path])
            XCTAssertEqual(again.status, 0, "run \(run): \(again.stderr)")
            XCTAssertEqual(again.records.count, 1, "run \(run): only the input")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: inner), ["qrcode-annotated.png"], "run \(run)")
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
