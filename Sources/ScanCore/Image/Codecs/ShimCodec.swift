internal import CImageShims
import Foundation

/// A codec whose pages one C function of CImageShims decodes (TIFF, WebP, HEIF, GIF): gray and
/// color come from it through ``decodeWithShim``, with the shims' status codes and size check.
protocol ShimCodec: ImageCodec {
    /// Decodes page `page` of `len` bytes at `buf` into `out` (`channels` 1 or 3), at most
    /// `maxPixels`; a status, with a message in `err` when it is not OK.
    static func shim(_ buf: UnsafeRawPointer?, _ len: Int, page: UInt32, maxPixels: UInt64, channels: UInt32,
                     _ out: UnsafeMutablePointer<scanlua_gray_image>?, _ err: UnsafeMutablePointer<CChar>?, _ errlen: Int) -> Int32
}

/// A size from one of the shims' size functions (1 and the size, or 0).
func sizeWithShim(_ data: Data, _ size: (UnsafeRawPointer?, Int, UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<UInt32>) -> Int32)
    -> (width: Int, height: Int)? {
    var w: UInt32 = 0, h: UInt32 = 0
    let ok = data.withUnsafeBytes { size($0.baseAddress, $0.count, &w, &h) }
    return ok == 1 ? (Int(w), Int(h)) : nil
}

extension ShimCodec {
    static func decode(_ data: Data, page: Int, name: String, options: DecodeOptions) throws(ImageError) -> GrayImage {
        let d = try decodeWithShim(data, name: name, format: self.name, maxPixels: options.maxPixels, channels: 1) { buf, len, max, ch, out, err, errlen in
            shim(buf, len, page: UInt32(clamping: page), maxPixels: max, channels: ch, out, err, errlen)
        }
        var image = GrayImage(width: d.width, height: d.height, pixels: d.pixels)
        // Resampled to square pixels (a fax): the page's own size, for the points.
        if d.sourceWidth != d.width || d.sourceHeight != d.height { image.ownSize = (d.sourceWidth, d.sourceHeight) }
        return image
    }

    static func decodeColor(_ data: Data, page: Int, name: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        let d = try decodeWithShim(data, name: name, format: self.name, maxPixels: options.maxPixels, channels: 3) { buf, len, max, ch, out, err, errlen in
            shim(buf, len, page: UInt32(clamping: page), maxPixels: max, channels: ch, out, err, errlen)
        }
        return RGBImage(width: d.width, height: d.height, pixels: d.pixels)
    }
}
