import Foundation

/// Opens the SOURCE of `scanlua watch`: from `--source`, the path (a /dev/video node, a
/// directory), or the stream's first bytes.
package enum SourceOpener {
    /// The kinds `--source` names.
    package static let kinds = ["camera", "y4m", "mjpeg", "dir"]

    package static func open(_ path: String, kind: String?, size: (width: Int, height: Int) = (0, 0), newOnly: Bool = false,
                            settle: TimeInterval = 1,
                            options: DecodeOptions = DecodeOptions(maxPixels: ImageLoader.defaultMaxPixels)) throws(SourceError) -> FrameSource {
        var k = kind
        if k == nil {
            var isDir: ObjCBool = false
            if path.hasPrefix("/dev/video") { k = "camera" }
            else if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue { k = "dir" }
            else if path == "-" { k = "stdin" }
            else if let head = FileHandle(forReadingAtPath: path)?.readData(ofLength: 9) {
                k = head.starts(with: Array("YUV4MPEG2".utf8)) ? "y4m" : (head.starts(with: [0xFF, 0xD8]) ? "mjpeg" : nil)
                if k == nil { throw SourceError("\(path): neither a YUV4MPEG2 nor an MJPEG stream" + videoHint(path)) }
            } else {
                throw SourceError("\(path): no such file, directory or camera")
            }
        }
        switch k {
        case "camera": return try CameraSource(device: path, width: size.width, height: size.height)
        case "dir": return try DirectoryWatchSource(directory: path, newOnly: newOnly, settle: settle, options: options)
        case "y4m": return try Y4MSource(path: path)
        case "mjpeg": return try MJPEGSource(path: path)
        default: return try openStdin()
        }
    }

    /// What to run instead, for a video file scanlua does not read itself.
    static func videoHint(_ path: String) -> String {
        let quoted = path.contains(" ") ? "'\(path)'" : path
        return "; for other video (MP4, MKV, AVI, ...) let ffmpeg decode it:"
            + " ffmpeg -loglevel error -i \(quoted) -f yuv4mpegpipe -pix_fmt gray - | scanlua watch -"
    }

    /// stdin is a y4m or an MJPEG stream: decided by its first bytes, which the reader then takes
    /// as the start of its buffer (no thread or pipe between: each frame is handed over as soon as
    /// its bytes are in, and a malformed stream is an error, not a write to a closed pipe).
    static func openStdin() throws(SourceError) -> FrameSource {
        var head: [UInt8] = []
        while head.count < 2 {
            guard let chunk = FileHandle.standardInput.readSome(max: 2 - head.count), !chunk.isEmpty else { break }
            head += chunk
        }
        if head.starts(with: Array("YU".utf8)) { return try Y4MSource(handle: .standardInput, name: "-", prefix: head) }
        if head.starts(with: [0xFF, 0xD8]) { return try MJPEGSource(handle: .standardInput, name: "-", prefix: head) }
        throw SourceError("-: stdin is neither a YUV4MPEG2 nor an MJPEG stream (use --source)")
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
