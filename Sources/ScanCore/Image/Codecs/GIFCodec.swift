internal import CImageShims
import Foundation

/// GIF through giflib (`gif_shims.c`): each frame of an animation is a frame, drawn on the
/// logical screen with its transparency and disposal.
enum GIFCodec: ShimCodec {
    static let name = "GIF"
    static let multiPage = true
    static let numbering = PageNumbering.frames
    static func matches(_ head: [UInt8]) -> Bool { starts(head, Array("GIF87a".utf8)) || starts(head, Array("GIF89a".utf8)) }
    static func size(_ data: Data) -> (width: Int, height: Int)? {
        guard data.count >= 10 else { return nil }
        let b = [UInt8](data.prefix(10))
        let w = Int(b[6]) | Int(b[7]) << 8, h = Int(b[8]) | Int(b[9]) << 8
        return w > 0 && h > 0 ? (w, h) : nil
    }
    static func pages(_ data: Data, name: String, options: DecodeOptions) throws(ImageError) -> Int {
        try countWithShim(data, name: name, format: self.name) { buf, len, err, errlen in
            scanlua_gif_frames(buf, len, UInt32(clamping: options.maxPages), err, errlen)
        }
    }
    static func shim(_ buf: UnsafeRawPointer?, _ len: Int, page: UInt32, maxPixels: UInt64, channels: UInt32,
                     _ out: UnsafeMutablePointer<scanlua_gray_image>?, _ err: UnsafeMutablePointer<CChar>?, _ errlen: Int) -> Int32 {
        scanlua_gif_decode(buf, len, page, maxPixels, channels, out, err, errlen)
    }
}
