import Foundation

/// Concatenated JPEG frames (what `ffmpeg ... -f mjpeg -` writes), from a file or stdin.
/// Frames are cut at JPEG markers, not by searching bytes, so data that happens to contain
/// FF D9 inside a segment does not end a frame early.
package final class MJPEGSource: FrameSource {
    package let name: String
    package var isLive: Bool { false }
    package var dropped: Int { 0 }
    private let stream: ByteStream
    private let loader: ImageLoader
    private var index = 0
    /// Whether a start-of-image marker was ever seen: a stream without one is no MJPEG.
    private var sawFrame = false

    package convenience init(path: String, loader: ImageLoader = ImageLoader()) throws(SourceError) {
        try self.init(handle: try FileHandle.forStream(path), name: path, loader: loader)
    }

    /// Reads from an open handle; `name` is what records call the stream.
    package init(handle: FileHandle, name: String, loader: ImageLoader = ImageLoader(), prefix: [UInt8] = []) throws(SourceError) {
        self.name = name
        stream = ByteStream(handle: handle, prefix: prefix)
        self.loader = loader
    }

    /// The next frame. A JPEG that is cut out whole but does not decode does not end the stream:
    /// it is handed over as the file `<stream>#<index>`, so the decoder thread gives that frame
    /// its own error record and the frames after it are still read. (A stream cut inside a frame,
    /// or bytes that are no JPEG markers, still end it with a ``SourceError``.)
    package func next(deadline: Date?) throws(SourceError) -> SourceItem? {
        guard let bytes = try nextJPEG() else { return nil }
        defer { index += 1 }
        let data = Data(bytes)
        let image: GrayImage
        do { image = try loader.decode(data, name: "\(name) frame \(index)") } catch {
            return .file(.data(data, name: Self.frameName(name, index)))
        }
        return .frame(Frame(info: FrameInfo(source: name, index: index, time: Date(), width: image.width, height: image.height),
                     image: image))
    }

    /// What the error record of an undecodable frame calls it: the stream, `#`, the frame index.
    package static func frameName(_ stream: String, _ index: Int) -> String { "\(stream)#\(index)" }

    /// The bytes of the next JPEG (SOI ... EOI), or nil at the end of the stream.
    func nextJPEG() throws(SourceError) -> [UInt8]? {
        // Skip anything before the next SOI (FF D8).
        while true {
            guard let a = stream.peek(0) else {
                // Not one frame in the whole stream: it is no MJPEG, and saying "nothing found" would mislead.
                if !sawFrame && stream.offset > 0 {
                    throw SourceError("\(name): no JPEG frame in \(stream.offset) bytes: not an MJPEG stream" + SourceOpener.videoHint(name))
                }
                return nil
            }
            if a == 0xFF, stream.peek(1) == 0xD8 { sawFrame = true; break }
            stream.skip(1)
        }
        var i = 2  // after SOI
        while true {
            guard let next = stream.peek(i) else { throw SourceError("\(name): stream ends inside frame \(index)") }
            guard next == 0xFF else {
                throw SourceError("\(name): frame \(index) is not a JPEG (no marker at byte \(stream.offset + i))")
            }
            var marker = stream.peek(i + 1)
            while marker == 0xFF { i += 1; marker = stream.peek(i + 1) }  // fill bytes
            guard let m = marker else { throw SourceError("\(name): stream ends inside frame \(index)") }
            if m == 0xD9 { return stream.take(i + 2) }                       // EOI
            if m == 0x01 || (m >= 0xD0 && m <= 0xD7) { i += 2; continue }    // no length
            guard let hi = stream.peek(i + 2), let lo = stream.peek(i + 3) else {
                throw SourceError("\(name): stream ends inside frame \(index)")
            }
            i += 2 + (Int(hi) << 8 | Int(lo))
            if m == 0xDA {
                // Entropy-coded data: runs until a marker other than FF 00 (stuffing) or RSTn.
                while true {
                    guard let b = stream.peek(i) else { throw SourceError("\(name): stream ends inside frame \(index)") }
                    if b == 0xFF, let n = stream.peek(i + 1), n != 0x00, !(n >= 0xD0 && n <= 0xD7) { break }
                    i += 1
                }
            }
        }
    }
}
