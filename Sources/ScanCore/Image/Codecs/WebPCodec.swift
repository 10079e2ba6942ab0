internal import CImageShims
import Foundation

/// WebP through libwebp (`webp_shims.c`): a still image, or an animation's first frame.
enum WebPCodec: ShimCodec {
    static let name = "WebP"
    /// The RGBA picture (an animation's two canvases), then the image.
    static let bytesPerPixel = 9
    static func size(_ data: Data) -> (width: Int, height: Int)? { sizeWithShim(data, scanlua_webp_size) }
    static func matches(_ head: [UInt8]) -> Bool { starts(head, Array("RIFF".utf8)) && head.count >= 12 && head[8..<12].elementsEqual("WEBP".utf8) }
    static func shim(_ buf: UnsafeRawPointer?, _ len: Int, page: UInt32, maxPixels: UInt64, channels: UInt32,
                     _ out: UnsafeMutablePointer<scanlua_gray_image>?, _ err: UnsafeMutablePointer<CChar>?, _ errlen: Int) -> Int32 {
        scanlua_webp_decode(buf, len, maxPixels, channels, out, err, errlen)
    }
}
