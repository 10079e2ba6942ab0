import Foundation

/// Opens the SOURCE of `scanlua watch`: from `--source`, the path (a /dev/video node, a
/// directory), or the stream's first bytes.
package enum SourceOpener {
    /// The kinds `--source` names.
    package static let kinds = ["camera", "y4m", "mjpeg", "dir"]

    /// - Parameters:
    ///   - deadline: a stream that sends nothing (a silent pipe, a tty with no scanner) is given up
    ///     then (`--timeout`), with an error saying so.
    ///   - stop: asked while waiting for a stream's first bytes (a signal arrived): true gives up.
    package static func open(_ path: String, kind: String?, size: (width: Int, height: Int) = (0, 0), newOnly: Bool = false,
                            settle: TimeInterval = 1,
                            options: DecodeOptions = DecodeOptions(maxPixels: ImageLoader.defaultMaxPixels),
                            deadline: Date? = nil, stop: () -> Bool = { false }) throws(SourceError) -> FrameSource {
        var isDir: ObjCBool = false
        if kind == "camera" || (kind == nil && path.hasPrefix("/dev/video")) {
            return try CameraSource(device: path, width: size.width, height: size.height)
        }
        if kind == "dir" || (kind == nil && FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue) {
            return try DirectoryWatchSource(directory: path, newOnly: newOnly, settle: settle, options: options)
        }
        // A stream: opened once, its kind told from its first bytes, which its reader then takes
        // as the start of its buffer (a FIFO's bytes cannot be read twice).
        let handle: FileHandle
        if path == "-" { handle = .standardInput } else {
            switch FileHandle.openStream(path) {
            case .success(let h): handle = h
            case .failure(let error): throw error
            }
        }
        guard let head = handle.readHead(count: 2, deadline: deadline, stop: stop) else {
            throw SourceError(stop() ? "\(path): stopped while waiting for the stream's first bytes"
                              : "\(path): nothing arrived before --timeout (a silent pipe, or a device with nothing to send)")
        }
        let k = kind ?? (head.starts(with: Array("YU".utf8)) ? "y4m" : head.starts(with: [0xFF, 0xD8]) ? "mjpeg" : nil)
        switch k {
        case "y4m": return try Y4MSource(handle: handle, name: path, prefix: head)
        case "mjpeg": return try MJPEGSource(handle: handle, name: path, prefix: head)
        default:
            if path == "-" { throw SourceError("-: stdin is neither a YUV4MPEG2 nor an MJPEG stream (use --source)") }
            throw SourceError("\(path): neither a YUV4MPEG2 nor an MJPEG stream" + videoHint(path))
        }
    }

    /// What to run instead, for a video file scanlua does not read itself.
    static func videoHint(_ path: String) -> String {
        let quoted = path.contains(" ") ? "'\(path)'" : path
        return "; for other video (MP4, MKV, AVI, ...) let ffmpeg decode it:"
            + " ffmpeg -loglevel error -i \(quoted) -f yuv4mpegpipe -pix_fmt gray - | scanlua watch -"
    }
}

/// Frames in memory, handed over as fast as the session takes them, or at a camera's pace
/// (frame i is ready at i / fps): for benchmarks and tests.
package final class MemorySource: FrameSource {
    package let name: String
    package var isLive: Bool { false }
    package var dropped: Int { 0 }
    package let frames: [GrayImage]
    package let fps: Double?
    private var index = 0
    private var start: Date?

    package init(name: String, frames: [GrayImage], fps: Double? = nil) {
        self.name = name
        self.frames = frames
        self.fps = fps
    }

    package func next(deadline: Date?) throws(SourceError) -> SourceItem? {
        guard index < frames.count else { return nil }
        defer { index += 1 }
        if let fps {
            let start = self.start ?? Date()
            self.start = start
            let due = start.addingTimeInterval(Double(index) / fps).timeIntervalSinceNow
            if due > 0 { Thread.sleep(forTimeInterval: due) }
        }
        let image = frames[index]
        return .frame(Frame(info: FrameInfo(source: name, index: index, time: Date(), width: image.width, height: image.height), image: image))
    }
}
