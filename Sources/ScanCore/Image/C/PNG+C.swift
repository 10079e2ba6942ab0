// The only Swift file that calls the PNG decoder in CImageShims (libpng's simplified API).
internal import CImageShims
import Foundation

enum PNGDecoder {
    /// Decodes PNG bytes to grayscale, alpha on white. The corresponding C function is `scanlua_png_decode`.
    static func decode(_ data: Data, name: String, maxPixels: Int) throws(ImageError) -> GrayImage {
        let d = try decodeWithShim(PNGCodec.decodingChunks(of: data), name: name, format: "PNG", maxPixels: maxPixels, channels: 1, scanlua_png_decode)
        var image = GrayImage(width: d.width, height: d.height, pixels: d.pixels)
        image.warnings = d.warnings
        return image
    }

    /// Decodes PNG bytes to RGB, alpha on white.
    static func decodeColor(_ data: Data, name: String, maxPixels: Int) throws(ImageError) -> RGBImage {
        let d = try decodeWithShim(PNGCodec.decodingChunks(of: data), name: name, format: "PNG", maxPixels: maxPixels, channels: 3, scanlua_png_decode)
        return RGBImage(width: d.width, height: d.height, pixels: d.pixels)
    }
}
