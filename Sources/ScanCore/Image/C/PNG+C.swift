// The only Swift file that calls the PNG decoder in CScanShims (libpng's simplified API).
internal import CImageShims
import Foundation

enum PNGDecoder {
    /// Decodes PNG bytes to grayscale, alpha on white. The corresponding C function is `scanlua_png_decode`.
    static func decode(_ data: Data, name: String, maxPixels: Int) throws(ImageError) -> GrayImage {
        try decodeWithShim(data, name: name, format: "PNG", maxPixels: maxPixels, scanlua_png_decode)
    }
}
