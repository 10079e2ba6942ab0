import Foundation
import ScanCore

/// A decoded frame as frame observers see it, after its records were written.
package struct ObservedFrame: Sendable {
    package var info: FrameInfo
    /// An image file (or stdin), not a frame of a stream.
    package var still: Bool
    /// A still image's bytes as read (the file, or stdin).
    package var bytes: Data?
    /// The page of `bytes` the frame is (0-based): a document's page, an animation's frame.
    package var page = 0
    /// A video frame's gray pixels (a still has its `bytes` instead).
    package var image: GrayImage?
    /// Every code read in the frame, accepted or not.
    package var symbols: [Symbol]
    /// The records of the codes the session filter accepted in this frame.
    package var records: [ScanRecord]
    /// The session's counters after this frame.
    package var report: SessionReport

    /// The codes drawn on the frame: accepted ones in green, the rest (duplicates) in amber.
    package var annotations: [Annotation] {
        let accepted = records.compactMap(\.symbol)
        return symbols.map { s in
            Annotation(s, color: accepted.contains { $0.symbology == s.symbology && $0.bytes == s.bytes && $0.points == s.points }
                       ? .accepted : .seen)
        }
    }

    /// The frame in color: a still image's bytes decoded again in color, else the gray frame.
    package func picture(loader: ImageLoader) throws(ImageError) -> RGBImage? {
        if let bytes { return try loader.decodeColor(bytes, name: info.source, page: page) }
        return image.map(RGBImage.init)
    }

    /// Whether the frame came as a JPEG file (its copies stay JPEG).
    package var isJPEG: Bool { bytes.map { ImageFormat.sniff($0) == .jpeg } ?? false }
}

/// Sees each frame after its records are out. Runs on the session's thread: keep it short, or
/// hand the work to a thread of your own.
package protocol FrameObserver: AnyObject {
    /// The file this observer will write for the frame, asked before its records are written
    /// (they name it in `annotated`); nil when it writes none. `jpeg`: the frame came as a JPEG file.
    func copyPath(for info: FrameInfo, still: Bool, jpeg: Bool) -> String?
    func frameDone(_ frame: ObservedFrame)
    /// An input that could not be read (its error record is out).
    func inputFailed(_ record: ScanRecord)
    func sessionEnded(_ report: SessionReport)
}

extension FrameObserver {
    package func copyPath(for info: FrameInfo, still: Bool, jpeg: Bool) -> String? { nil }
    package func inputFailed(_ record: ScanRecord) {}
    package func sessionEnded(_ report: SessionReport) {}
}

/// `scan --annotate DIR`: a copy of each input (each page of a document: `out/doc.p2.png`), the same size, with every code outlined and
/// labelled, and a red frame around a photo in which nothing was read. JPEG inputs stay JPEG
/// (quality 90), the others become PNG. Copies mirror the inputs' paths under DIR, below the
/// folder all inputs share (`scan --annotate out photos`: `photos/lots/image001.jpg` ->
/// `out/lots/image001.jpg`, `photos/glare/image001.jpg` -> `out/glare/image001.jpg`); one
/// input keeps its name. Two inputs that would share a copy get `-2`, `-3` ...; a copy never replaces an input of the run. Each
/// record names its copy (`annotated`).
package final class AnnotatedImageWriter: FrameObserver {
    package let directory: String
    private let loader: ImageLoader
    private var used: Set<String> = []
    /// The inputs' real paths: never written over.
    private let inputs: Set<String>
    /// The folder all inputs are in (path components), which copies leave out.
    private let common: [Substring]
    /// The copy the current frame's records named (its source, page and frame -> path).
    private var reserved: (source: String, page: Int?, index: Int, path: String)?

    package init(directory: String, loader: ImageLoader, inputs: [String]) throws(OutputFileError) {
        try makeDirectory(directory, for: "--annotate")
        self.directory = directory
        self.loader = loader
        self.inputs = Set(inputs.map(realPath))
        let paths = inputs.map(Self.standardized)
        var common = paths.first.map { Array($0.split(separator: "/", omittingEmptySubsequences: false).dropLast()) } ?? []
        for path in paths.dropFirst() {
            let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
            common = Array(zip(common, folder).prefix { $0 == $1 }.map(\.0))
        }
        self.common = common
    }

    package func copyPath(for info: FrameInfo, still: Bool, jpeg: Bool) -> String? {
        if let reserved, reserved.source == info.source, reserved.page == info.page, reserved.index == info.index { return reserved.path }
        // A document's page gets its number (`doc.p2.png`), an animation's later frames theirs.
        let part = info.page.map { ".p\($0)" } ?? (still && info.index > 0 ? ".f\(info.index)" : "")
        let path = outputPath(for: info.source, part: part, ext: jpeg ? "jpg" : "png")
        reserved = (info.source, info.page, info.index, path)
        return path
    }

    package func frameDone(_ frame: ObservedFrame) {
        do {
            guard var picture = try frame.picture(loader: loader) else {
                Console.error("scanlua: --annotate: \(frame.info.source): no pixels to draw on\n")
                return
            }
            Annotation.draw(frame.annotations, on: &picture)
            if frame.symbols.isEmpty { Annotation.markNothingRead(on: &picture) }
            let jpeg = frame.isJPEG
            // The bytes decide the format: a .jpg that holds a PNG gets a .png copy.
            let path = copyPath(for: frame.info, still: frame.still, jpeg: jpeg)!
            reserved = nil
            let data = jpeg ? try ImageEncoder.jpeg(picture, quality: 90) : try ImageEncoder.png(picture)
            try makeDirectory((path as NSString).deletingLastPathComponent, for: "--annotate")
            try write(data, to: path)
        } catch {
            Console.error("scanlua: --annotate: \(error)\n")
        }
    }

    /// A path with `.` and `a/..` resolved as text (`./glare/../lots/x.jpg` is `lots/x.jpg`).
    static func standardized(_ path: String) -> String {
        var out: [Substring] = []
        let absolute = path.hasPrefix("/")
        for part in path.split(separator: "/") where part != "." {
            if part == "..", let last = out.last, last != ".." { out.removeLast() } else { out.append(part) }
        }
        return (absolute ? "/" : "") + out.joined(separator: "/")
    }

    /// The input's path below the folder all inputs share (leading `..` parts dropped).
    func relativePath(of source: String) -> String {
        if source == "-" { return "stdin" }
        let parts = Self.standardized(source).split(separator: "/", omittingEmptySubsequences: false)
        let rest = (parts.starts(with: common) ? Array(parts.dropFirst(common.count)) : [parts.last ?? "image"])
            .filter { !$0.isEmpty && $0 != "." && $0 != ".." }
        return rest.isEmpty ? "image" : rest.joined(separator: "/")
    }

    private func outputPath(for source: String, part: String, ext: String) -> String {
        let stem = (relativePath(of: source) as NSString).deletingPathExtension + part
        var n = 1
        while true {
            let name = n == 1 ? "\(stem).\(ext)" : "\(stem)-\(n).\(ext)"
            let path = (directory as NSString).appendingPathComponent(name)
            n += 1
            guard !used.contains(name), !inputs.contains(realPath(path)) else { continue }
            used.insert(name)
            return path
        }
    }
}

/// `watch --save-frames DIR`: each frame in which a code was accepted, as JPEG (quality 90),
/// without drawings: the photo of the scan. A stream's frame is `<source>-<index>.jpg`, a
/// watched folder's image `<name>.jpg`; `-2`, `-3` ... rather than replacing a file already there.
package final class FrameSaver: FrameObserver {
    package let directory: String
    private let loader: ImageLoader
    private var used: Set<String> = []
    package private(set) var saved = 0

    package init(directory: String, loader: ImageLoader) throws(OutputFileError) {
        try makeDirectory(directory, for: "--save-frames")
        self.directory = directory
        self.loader = loader
    }

    package func frameDone(_ frame: ObservedFrame) {
        guard !frame.records.isEmpty else { return }
        do {
            guard let picture = try frame.picture(loader: loader) else { return }
            // A still keeps its name; a stream's frame gets its index. Nothing already there is replaced.
            let stem = FrameFiles.stem(frame.info.source) + (frame.still ? "" : String(format: "-%06d", frame.info.index))
            var name = stem + ".jpg", n = 1
            while used.contains(name) || FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent(name)) {
                n += 1
                name = "\(stem)-\(n).jpg"
            }
            used.insert(name)
            try write(try ImageEncoder.jpeg(picture, quality: 90), to: (directory as NSString).appendingPathComponent(name))
            saved += 1
        } catch {
            Console.error("scanlua: --save-frames: \(error)\n")
        }
    }
}

/// The path with symbolic links and `..` resolved (as far as it exists).
private func realPath(_ path: String) -> String {
    URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
}

enum FrameFiles {
    /// A file name for a source: its base name without extension (`-` is `stdin`).
    static func stem(_ source: String) -> String {
        if source == "-" { return "stdin" }
        let base = (source as NSString).lastPathComponent
        let stem = (base as NSString).deletingPathExtension
        return stem.isEmpty ? "frame" : stem
    }
}

/// A file or directory of an image sink that could not be written.
package struct OutputFileError: Error, CustomStringConvertible {
    package let description: String
}

private func makeDirectory(_ path: String, for flag: String) throws(OutputFileError) {
    do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
        throw OutputFileError(description: "\(flag): cannot create the directory \(path): \(fileErrorReason(error))")
    }
}

/// Writes a whole file atomically (a full disk leaves no half-written image behind).
private func write(_ data: Data, to path: String) throws(OutputFileError) {
    do { try data.write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
        throw OutputFileError(description: "cannot write \(path): \(fileErrorReason(error))")
    }
}
