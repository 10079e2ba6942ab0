internal import CImageShims
import Foundation

/// TIFF through libtiff (`tiff_shims.c`): every page (thumbnails skipped), CCITT G3/G4 faxes and
/// the rest, oriented, a fax's unequal resolutions resampled to square pixels (points are given
/// back in the page's own pixels).
enum TIFFCodec: ShimCodec {
    static let name = "TIFF"
    static let multiPage = true
    /// The RGBA raster libtiff fills, then the page.
    static let bytesPerPixel = 5
    static func pageSize(_ data: Data, page: Int, options: DecodeOptions) -> (width: Int, height: Int)? {
        sizeWithShim(data) { scanlua_tiff_size($0, $1, UInt32(clamping: page), $2, $3) }
    }
    static func matches(_ head: [UInt8]) -> Bool {
        starts(head, [0x49, 0x49, 0x2A, 0x00]) || starts(head, [0x4D, 0x4D, 0x00, 0x2A])
            || starts(head, [0x49, 0x49, 0x2B, 0x00]) || starts(head, [0x4D, 0x4D, 0x00, 0x2B])  // BigTIFF
    }

    static func pages(_ data: Data, name: String, options: DecodeOptions) throws(ImageError) -> Int {
        try countWithShim(data, name: name, format: self.name) { buf, len, err, errlen in
            scanlua_tiff_pages(buf, len, UInt32(clamping: pageLimit(data, options: options) + 1), err, errlen)
        }
    }

    static func shim(_ buf: UnsafeRawPointer?, _ len: Int, page: UInt32, maxPixels: UInt64, channels: UInt32,
                     _ out: UnsafeMutablePointer<scanlua_gray_image>?, _ err: UnsafeMutablePointer<CChar>?, _ errlen: Int) -> Int32 {
        scanlua_tiff_decode(buf, len, page, maxPixels, channels, out, err, errlen)
    }
}
