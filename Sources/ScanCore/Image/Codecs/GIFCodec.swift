internal import CImageShims
import Foundation

/// GIF through giflib (`gif_shims.c`): each frame of an animation is a frame, drawn on the
/// logical screen with its transparency and disposal.
enum GIFCodec: ShimCodec {
    static let name = "GIF"
    static let multiPage = true
    static let numbering = PageNumbering.frames
    /// Two RGBA canvases (the one to restore), then the frame.
    static let bytesPerPixel = 9
    static func pageSize(_ data: Data, page: Int, options: DecodeOptions) -> (width: Int, height: Int)? { size(data) }
    static func matches(_ head: [UInt8]) -> Bool { starts(head, Array("GIF87a".utf8)) || starts(head, Array("GIF89a".utf8)) }
    static func size(_ data: Data) -> (width: Int, height: Int)? {
        guard data.count >= 10 else { return nil }
        let b = [UInt8](data.prefix(10))
        let w = Int(b[6]) | Int(b[7]) << 8, h = Int(b[8]) | Int(b[9]) << 8
        return w > 0 && h > 0 ? (w, h) : nil
    }
    /// Frame n is drawn from frame 0 on, on the whole screen, so n frames cost n * n / 2 screens:
    /// at most 4 billion pixels drawn in all (178 frames of 500x500, 22 of 4000x4000).
    static func pageLimit(_ data: Data, options: DecodeOptions) -> Int {
        let screen = Double(size(data).map { $0.width * $0.height } ?? 1)
        return max(1, min(options.maxPages, Int((8e9 / max(1, screen)).squareRoot())))
    }

    static func pages(_ data: Data, name: String, options: DecodeOptions) throws(ImageError) -> Int {
        // A screen over the limit is refused from the header, before its frames are walked.
        if let s = size(data), s.width * s.height > options.maxPixels {
            throw .tooLarge(path: name, width: s.width, height: s.height, limit: options.maxPixels)
        }
        return try countWithShim(data, name: name, format: self.name) { buf, len, err, errlen in
            scanlua_gif_frames(buf, len, UInt32(clamping: pageLimit(data, options: options) + 1), err, errlen)
        }
    }
    static func shim(_ buf: UnsafeRawPointer?, _ len: Int, page: UInt32, maxPixels: UInt64, channels: UInt32,
                     _ out: UnsafeMutablePointer<scanlua_gray_image>?, _ err: UnsafeMutablePointer<CChar>?, _ errlen: Int) -> Int32 {
        scanlua_gif_decode(buf, len, page, maxPixels, channels, out, err, errlen)
    }
}
