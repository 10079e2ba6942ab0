// The only Swift file that calls the JPEG functions of CImageShims (libjpeg-turbo).
internal import CImageShims
import Foundation

enum JPEGDecoder {
    /// Decodes JPEG bytes to grayscale, at 1/`reduction` size (1, 2, 4 or 8) by DCT scaling.
    /// The corresponding C function is `scanlua_jpeg_decode`.
    static func decode(_ data: Data, name: String, maxPixels: Int, reduction: Int = 1) throws(ImageError) -> GrayImage {
        let d = try decodeWithShim(data, name: name, format: "JPEG", maxPixels: maxPixels, channels: 1) { buf, len, max, ch, out, err, errlen in
            scanlua_jpeg_decode(buf, len, max, UInt32(reduction), ch, out, err, errlen)
        }
        var image = GrayImage(width: d.width, height: d.height, pixels: d.pixels)
        image.warnings = d.warnings
        return image
    }

    /// Decodes JPEG bytes to RGB at full size.
    static func decodeColor(_ data: Data, name: String, maxPixels: Int) throws(ImageError) -> RGBImage {
        let d = try decodeWithShim(data, name: name, format: "JPEG", maxPixels: maxPixels, channels: 3) { buf, len, max, ch, out, err, errlen in
            scanlua_jpeg_decode(buf, len, max, 1, ch, out, err, errlen)
        }
        return RGBImage(width: d.width, height: d.height, pixels: d.pixels)
    }
}

package enum ImageEncoder {
    /// The image as a baseline JPEG of this quality (1-100). The C function is `scanlua_jpeg_encode_rgb`.
    package static func jpeg(_ image: RGBImage, quality: Int = 85) throws(ImageError) -> Data {
        try encodeWithShim(image, format: "JPEG") { px, w, h, out, len, err, errlen in
            scanlua_jpeg_encode_rgb(px, w, h, Int32(quality), out, len, err, errlen)
        }
    }

    /// The image as PNG. The C function is `scanlua_png_encode_rgb`.
    package static func png(_ image: RGBImage) throws(ImageError) -> Data {
        try encodeWithShim(image, format: "PNG", scanlua_png_encode_rgb)
    }
}

/// Calls one of the encoders and takes ownership of its malloc'd output.
private func encodeWithShim(
    _ image: RGBImage, format: String,
    _ encoder: (UnsafePointer<UInt8>?, UInt32, UInt32, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                UnsafeMutablePointer<Int>?, UnsafeMutablePointer<CChar>?, Int) -> Int32
) throws(ImageError) -> Data {
    guard image.width > 0, image.height > 0 else { throw .corrupt(path: "<frame>", format: format, reason: "an empty image cannot be encoded") }
    var out: UnsafeMutablePointer<UInt8>?
    var length = 0
    var message = [CChar](repeating: 0, count: 512)
    let status = image.pixels.withUnsafeBufferPointer { px in
        encoder(px.baseAddress, UInt32(image.width), UInt32(image.height), &out, &length, &message, message.count)
    }
    defer { free(out) }
    guard status == SCANLUA_IMAGE_OK, let out else {
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw .corrupt(path: "<frame>", format: format, reason: reason.isEmpty ? "encoder failed" : reason)
    }
    return Data(bytes: out, count: length)
}

/// What a shim decoder produced: `channels` samples per pixel.
struct DecodedPixels {
    var width: Int
    var height: Int
    var pixels: [UInt8]
    var warnings: [String]
    /// The image's own size where the decoder resampled it (a fax's unequal resolutions).
    var sourceWidth: Int
    var sourceHeight: Int
}

/// Calls one of the setjmp-guarded decoders and maps its status to ``ImageError``.
/// Shared by every shim decoder: they have the same signature and status codes.
func decodeWithShim(
    _ data: Data, name: String, format: String, maxPixels: Int, channels: Int,
    _ decoder: (UnsafeRawPointer?, Int, UInt64, UInt32, UnsafeMutablePointer<scanlua_gray_image>?,
                UnsafeMutablePointer<CChar>?, Int) -> Int32
) throws(ImageError) -> DecodedPixels {
    var out = scanlua_gray_image()
    var message = [CChar](repeating: 0, count: 512)
    let status = data.withUnsafeBytes { buf in
        decoder(buf.baseAddress, buf.count, UInt64(maxPixels), UInt32(channels), &out, &message, message.count)
    }
    let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    switch status {
    case SCANLUA_IMAGE_OK:
        defer { free(out.pixels) }
        let width = Int(out.width), height = Int(out.height)
        let pixels = [UInt8](UnsafeBufferPointer(start: out.pixels, count: width * height * channels))
        var warnings: [String] = []
        if out.warnings > 0 {
            let first = withUnsafeBytes(of: out.warning) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            warnings = ["\(format): \(first)" + (out.warnings > 1 ? " (and \(out.warnings - 1) more)" : "")]
        }
        return DecodedPixels(width: width, height: height, pixels: pixels, warnings: warnings,
                             sourceWidth: out.source_width > 0 ? Int(out.source_width) : width,
                             sourceHeight: out.source_height > 0 ? Int(out.source_height) : height)
    case SCANLUA_IMAGE_TOO_LARGE:
        throw .tooLarge(path: name, width: Int(out.width), height: Int(out.height), limit: maxPixels)
    default:
        throw .corrupt(path: name, format: format, reason: reason.isEmpty ? "decoder failed" : reason)
    }
}

/// Calls one of the shims' page counters (a count, or -1 with a message).
func countWithShim(_ data: Data, name: String, format: String,
                   _ counter: (UnsafeRawPointer?, Int, UnsafeMutablePointer<CChar>?, Int) -> Int32) throws(ImageError) -> Int {
    var message = [CChar](repeating: 0, count: 512)
    let n = data.withUnsafeBytes { buf in counter(buf.baseAddress, buf.count, &message, message.count) }
    guard n > 0 else {
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw .corrupt(path: name, format: format, reason: reason.isEmpty ? "no page" : reason)
    }
    return Int(n)
}
