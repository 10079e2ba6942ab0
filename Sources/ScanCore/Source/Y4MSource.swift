import Foundation

/// A YUV4MPEG2 stream (what `ffmpeg ... -f yuv4mpegpipe -` writes), from a file or stdin.
/// 8-bit 4:2:0, 4:2:2, 4:4:4 and mono; the luma plane goes to the decoders.
package final class Y4MSource: FrameSource {
    package let name: String
    package var isLive: Bool { false }
    package var dropped: Int { 0 }
    package let width: Int, height: Int
    /// Frames per second from the header (F), when given.
    package let fps: Double?
    private let stream: ByteStream
    private let chromaBytes: Int
    private var index = 0

    package convenience init(path: String) throws(SourceError) {
        try self.init(handle: try FileHandle.forStream(path), name: path)
    }

    /// Reads from an open handle; `name` is what records call the stream; `prefix`: its first
    /// bytes, already read.
    package init(handle: FileHandle, name path: String, prefix: [UInt8] = []) throws(SourceError) {
        name = path
        stream = ByteStream(handle: handle, prefix: prefix)
        guard let line = stream.takeLine(max: 1024), line.starts(with: Array("YUV4MPEG2 ".utf8)) || line == Array("YUV4MPEG2\n".utf8) else {
            throw SourceError("\(path): not a YUV4MPEG2 stream (it must start with 'YUV4MPEG2 ')")
        }
        var w = 0, h = 0, colour = "420jpeg", rate: Double?
        // What the message shows for each size: the number, or its digits when they overflow Int.
        var wText = "0", hText = "0"
        func size(_ value: String) -> (Int, String) {
            if let n = Int(value) { return (n, String(n)) }
            let digits = !value.isEmpty && value.allSatisfy { $0.isASCII && $0.isNumber }
            return digits ? (Int.max, value) : (0, "0")
        }
        for token in String(decoding: line.dropLast(), as: UTF8.self).split(separator: " ").dropFirst() {
            let value = String(token.dropFirst())
            switch token.first {
            case "W": (w, wText) = size(value)
            case "H": (h, hText) = size(value)
            case "C": colour = value
            case "F":
                let parts = value.split(separator: ":").compactMap { Double($0) }
                if parts.count == 2, parts[1] > 0 { rate = parts[0] / parts[1] }
            default: break
            }
        }
        // Sizes from a hostile header can overflow their product: checked before any arithmetic.
        let (pixels, overflow) = w.multipliedReportingOverflow(by: h)
        guard w > 0, h > 0, !overflow, pixels <= ImageLoader.defaultMaxPixels else {
            throw SourceError("\(path): bad YUV4MPEG2 size W\(wText) H\(hText)")
        }
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        switch colour {
        case "420jpeg", "420paldv", "420mpeg2", "420": chromaBytes = 2 * cw * ch
        case "422": chromaBytes = 2 * cw * h
        case "444": chromaBytes = 2 * w * h
        case "444alpha": chromaBytes = 3 * w * h
        case "mono": chromaBytes = 0
        default:
            throw SourceError("\(path): colour space C\(colour) is not supported (8-bit 420, 422, 444 and mono are)")
        }
        width = w
        height = h
        fps = rate
    }

    package func next(deadline: Date?) throws(SourceError) -> SourceItem? {
        guard let line = stream.takeLine(max: 1024) else {
            if stream.fill(1) == 0 { return nil }
            throw SourceError("\(name): bad frame header at byte \(stream.offset)")
        }
        guard line.starts(with: Array("FRAME".utf8)) else {
            throw SourceError("\(name): expected FRAME at byte \(stream.offset - line.count)")
        }
        guard let luma = stream.take(width * height) else {
            throw SourceError("\(name): stream ends inside frame \(index)")
        }
        guard stream.fill(chromaBytes) >= chromaBytes else { throw SourceError("\(name): stream ends inside frame \(index)") }
        stream.skip(chromaBytes)
        defer { index += 1 }
        let time = fps.map { Date(timeIntervalSince1970: Double(index) / $0) } ?? Date()
        return .frame(Frame(info: FrameInfo(source: name, index: index, time: time, width: width, height: height),
                     image: GrayImage(width: width, height: height, pixels: luma)))
    }
}
