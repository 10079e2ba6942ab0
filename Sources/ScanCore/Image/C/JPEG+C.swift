// The only Swift file that calls the JPEG decoder in CScanShims (libjpeg-turbo).
internal import CImageShims
import Foundation

enum JPEGDecoder {
    /// Decodes JPEG bytes to grayscale, at 1/`reduction` size (1, 2, 4 or 8) by DCT scaling.
    /// The corresponding C function is `scanlua_jpeg_decode`.
    static func decode(_ data: Data, name: String, maxPixels: Int, reduction: Int = 1) throws(ImageError) -> GrayImage {
        try decodeWithShim(data, name: name, format: "JPEG", maxPixels: maxPixels) { buf, len, max, out, err, errlen in
            scanlua_jpeg_decode(buf, len, max, UInt32(reduction), out, err, errlen)
        }
    }
}

/// Calls one of the setjmp-guarded decoders and maps its status to ``ImageError``.
/// Shared by JPEG and PNG: both shims have the same signature and status codes.
func decodeWithShim(
    _ data: Data, name: String, format: String, maxPixels: Int,
    _ decoder: (UnsafeRawPointer?, Int, UInt64, UnsafeMutablePointer<scanlua_gray_image>?,
                UnsafeMutablePointer<CChar>?, Int) -> Int32
) throws(ImageError) -> GrayImage {
    var out = scanlua_gray_image()
    var message = [CChar](repeating: 0, count: 512)
    let status = data.withUnsafeBytes { buf in
        decoder(buf.baseAddress, buf.count, UInt64(maxPixels), &out, &message, message.count)
    }
    let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    switch status {
    case SCANLUA_IMAGE_OK:
        defer { free(out.pixels) }
        let width = Int(out.width), height = Int(out.height)
        let pixels = [UInt8](UnsafeBufferPointer(start: out.pixels, count: width * height))
        var image = GrayImage(width: width, height: height, pixels: pixels)
        if out.warnings > 0 {
            let first = withUnsafeBytes(of: out.warning) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            image.warnings = ["\(format): \(first)" + (out.warnings > 1 ? " (and \(out.warnings - 1) more)" : "")]
        }
        return image
    case SCANLUA_IMAGE_TOO_LARGE:
        throw .tooLarge(path: name, width: Int(out.width), height: Int(out.height), limit: maxPixels)
    default:
        throw .corrupt(path: name, format: format, reason: reason.isEmpty ? "decoder failed" : reason)
    }
}
