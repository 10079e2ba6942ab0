import Foundation

/// Why a source cannot give frames, in words a person can act on.
package struct SourceError: Error, CustomStringConvertible, Equatable {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// What a source hands over: a frame's pixels, or an image file that a decoder thread loads
/// (so files are read and decoded in parallel, and a bad one becomes its own error record).
package enum SourceItem: Sendable {
    case frame(Frame)
    case file(Input)
}

/// Where frames come from: image files, a camera, a video stream, a watched folder, memory.
package protocol FrameSource: AnyObject {
    /// What records call this source (a device, a path, or `-`).
    var name: String { get }
    /// Frames arrive in real time (a camera): when decoding falls behind, frames are dropped.
    /// Files and pipes are read at the decoder's pace instead, so every frame is decoded.
    var isLive: Bool { get }
    /// Frames the source (or its driver) dropped so far.
    var dropped: Int { get }
    /// The next frame or file; nil at the end of the stream, or when `deadline` passes with none.
    func next(deadline: Date?) throws(SourceError) -> SourceItem?
}

/// Buffered reading of a file or stdin, for the stream parsers.
final class ByteStream {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private(set) var atEnd = false
    /// Bytes consumed so far, for error messages.
    private(set) var offset = 0

    /// `prefix`: bytes already read from the handle (stdin's first bytes, read to tell its kind),
    /// given back first.
    init(handle: FileHandle, prefix: [UInt8] = []) {
        self.handle = handle
        buffer = prefix
    }

    /// Makes at least `n` unread bytes available unless the stream ends; returns how many are.
    @discardableResult
    func fill(_ n: Int) -> Int {
        while buffer.count - start < n && !atEnd {
            if start > 0 && start >= buffer.count / 2 {
                buffer.removeFirst(start)
                start = 0
            }
            // What has arrived, not a full 64 KiB: a frame is decoded once its own bytes are in.
            if let chunk = handle.readSome(max: max(65536, n - (buffer.count - start))), !chunk.isEmpty { buffer += chunk } else { atEnd = true }
        }
        return buffer.count - start
    }

    /// Takes exactly `n` bytes, or nil when the stream ends first.
    func take(_ n: Int) -> [UInt8]? {
        guard fill(n) >= n else { return nil }
        defer { start += n; offset += n }
        return Array(buffer[start..<start + n])
    }

    /// Takes bytes up to and including `delimiter`, at most `max`; nil at the end or when too long.
    func takeLine(max: Int = 4096) -> [UInt8]? {
        var scanned = 0
        while true {
            if let i = buffer[(start + scanned)...].firstIndex(of: 0x0A) {
                let n = i - start + 1
                guard n <= max else { return nil }
                return take(n)
            }
            scanned = buffer.count - start
            guard scanned < max, fill(scanned + 1) > scanned else { return nil }
        }
    }

    /// The unread byte at `i` (filling as needed), or nil past the end.
    func peek(_ i: Int) -> UInt8? {
        guard fill(i + 1) > i else { return nil }
        return buffer[start + i]
    }

    /// Skips `n` bytes.
    func skip(_ n: Int) {
        let k = min(n, fill(n))
        start += k
        offset += k
    }
}

extension FileHandle {
    /// Opens a path for reading, or stdin for `-`.
    static func forStream(_ path: String) throws(SourceError) -> FileHandle {
        if path == "-" { return .standardInput }
        guard let h = FileHandle(forReadingAtPath: path) else {
            throw SourceError("\(path): cannot open: \(String(cString: strerror(errno)))")
        }
        return h
    }
}
