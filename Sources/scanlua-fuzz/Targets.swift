import Foundation
import ScanCore

/// What `make fuzz` feeds with libFuzzer's inputs, and what the regression test replays: each
/// target takes hostile bytes and must end with a value or a thrown error, never a trap, a hang
/// or an allocation the input cannot justify.
enum FuzzTarget: String, CaseIterable {
    /// ImageLoader: PNG, JPEG (also DCT-reduced), PGM/PPM/PBM, whatever the bytes sniff as (a
    /// PDF's bytes are not handed to the renderer here: see `pages`).
    case image
    /// A decoded image through zbar, zxing-cpp and every still-image retry pass (gamma, CLAHE,
    /// the enlargement): odd sizes, flat images, noise.
    case decode
    /// The YUV4MPEG2 reader, frame by frame to the end.
    case y4m
    /// The MJPEG reader (concatenated JPEGs), frame by frame to the end.
    case mjpeg
    /// simulate's NDJSON lines (MockScan.parse).
    case ndjson
    /// The JSON reader and writer: what parses must write and parse back to the same value.
    case json
    /// The other codecs (TIFF, GIF, WebP, HEIF, BMP) and the concatenated-image splitter: the
    /// page count, then every page (at most 8) in gray and color. PDF is left out: it is rendered
    /// by a child process under its own limits, not in this process.
    case pages

    func run(_ bytes: [UInt8]) {
        switch self {
        case .image:
            let loader = ImageLoader(maxPixels: 4_000_000)
            let data = Data(bytes)
            if ImageFormat.sniff(data).name == "PDF" { return }
            _ = try? loader.decode(data, name: "fuzz")
            _ = try? loader.decode(data, name: "fuzz", reduction: 4)
        case .decode:
            guard let image = try? ImageLoader(maxPixels: 1_000_000).decode(Data(bytes), name: "fuzz") else { return }
            let found = Decoders.shared.zxing.decode(image) + Decoders.shared.zbar.decode(image)
            let (open, read) = Decoders.shared.retries.check(image, k: 1, found: found, region: nil)
            // The failed places the check found, and one half outside the image (its crop is clamped).
            let outside = ZXingDecoder.Failure(symbology: Symbology(rawValue: "datamatrix"),
                                               box: Box(x: image.width - 5, y: -3, width: 20, height: 10))
            // What the check left open (tiles too), with every pass over the whole image on.
            var all = open
            all.dark = true
            all.nothingRead = true
            all.failedQR = true
            all.failedPlaces.append(outside)
            _ = Symbol.merged(found + read + Decoders.shared.retries.retry(image, open: all, region: nil).0)
        case .y4m:
            withStream(bytes) { handle in
                guard let source = try? Y4MSource(handle: handle, name: "fuzz.y4m") else { return }
                drain(source)
            }
        case .mjpeg:
            withStream(bytes) { handle in
                guard let source = try? MJPEGSource(handle: handle, name: "fuzz.mjpeg", loader: ImageLoader(maxPixels: 4_000_000)) else { return }
                drain(source)
            }
        case .pages:
            let loader = ImageLoader(maxPixels: 4_000_000)
            let data = Data(bytes)
            guard ImageFormat.sniff(data).name != "PDF" else { return }
            _ = ImageSplitter.parts(of: data)
            let count = (try? loader.pages(data, name: "fuzz").count) ?? 1
            for page in 0..<min(count, 8) {
                _ = try? loader.decode(data, name: "fuzz", page: page)
                _ = try? loader.decodeColor(data, name: "fuzz", page: page)
            }
        case .ndjson:
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
                _ = MockScan.parse(String(line))
            }
        case .json:
            guard let value = JSON(parsing: bytes) else { return }
            var out: [UInt8] = []
            value.write(to: &out)
            guard let again = JSON(parsing: out) else { fatalError("the writer's output does not parse: \(String(decoding: out, as: UTF8.self))") }
            var twice: [UInt8] = []
            again.write(to: &twice)
            // Numbers may be reformatted once (1.50 -> 1.5); after that the text is stable.
            guard twice == out else { fatalError("writing is not stable: \(String(decoding: out, as: UTF8.self))") }
        }
    }

    /// One set of decoders for the whole fuzzing run (libFuzzer calls from one thread).
    final class Decoders: @unchecked Sendable {
        static let shared = Decoders()
        let zxing = ZXingDecoder(symbologies: Symbology.defaultSet)
        let zbar = ZBarDecoder(symbologies: Symbology.defaultSet)
        let retries = StillRetries(symbologies: Symbology.defaultSet, effort: .thorough)
    }

    private func drain(_ source: FrameSource) {
        for _ in 0..<10_000 {  // a frame per read at least: more than any input this size has
            guard let item = try? source.next(deadline: nil) else { return }
            if case .file(let input) = item, case .data(let data, let name) = input {
                _ = try? ImageLoader(maxPixels: 4_000_000).decode(data, name: name)
            }
        }
    }
}

/// The stream readers read a FileHandle: give them the bytes as a file in memory (/dev/shm).
private func withStream(_ bytes: [UInt8], _ body: (FileHandle) -> Void) {
    let path = "/dev/shm/scanlua-fuzz-\(getpid())"
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)),
          let handle = FileHandle(forReadingAtPath: path) else { return }
    defer { try? handle.close(); unlink(path) }
    body(handle)
}
