internal import CImageShims
import Foundation

/// HEIF, HEIC and AVIF stills through libheif (`heif_shims.c`): the primary image with its
/// rotation and mirror applied. Told from MP4/MOV video by the `ftyp` box's brands.
enum HEIFCodec: ShimCodec {
    static let name = "HEIF/AVIF"
    /// libheif's YCbCr planes and RGB picture, then the image.
    static let bytesPerPixel = 6
    static func size(_ data: Data) -> (width: Int, height: Int)? { sizeWithShim(data, scanlua_heif_size) }
    static func matches(_ head: [UInt8]) -> Bool { ISOBrands.kind(head) == .still }
    static func shim(_ buf: UnsafeRawPointer?, _ len: Int, page: UInt32, maxPixels: UInt64, channels: UInt32,
                     _ out: UnsafeMutablePointer<scanlua_gray_image>?, _ err: UnsafeMutablePointer<CChar>?, _ errlen: Int) -> Int32 {
        scanlua_heif_decode(buf, len, maxPixels, channels, out, err, errlen)
    }
}
