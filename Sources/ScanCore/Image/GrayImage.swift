/// An 8-bit grayscale image, row-major with no padding: what every decoder reads.
package struct GrayImage: Sendable, Equatable {
    package let width: Int
    package let height: Int
    /// `width * height` luma samples, 0 black ... 255 white.
    package var pixels: [UInt8]
    /// What the decoder skipped or repaired in a file it still decoded (libjpeg's "Corrupt JPEG
    /// data: ..." warnings), with the format: `JPEG: Corrupt JPEG data: ...`.
    package var warnings: [String] = []

    package init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "pixel count does not match \(width)x\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The sample at column `x`, row `y`.
    package subscript(x: Int, y: Int) -> UInt8 { pixels[y * width + x] }
}
