/// An 8-bit grayscale image, row-major with no padding: what every decoder reads.
package struct GrayImage: Sendable, Equatable {
    package let width: Int
    package let height: Int
    /// `width * height` luma samples, 0 black ... 255 white.
    package var pixels: [UInt8]
    /// What the decoder skipped or repaired in a file it still decoded (libjpeg's "Corrupt JPEG
    /// data: ..." warnings), with the format: `JPEG: Corrupt JPEG data: ...`.
    package var warnings: [String] = []
    /// The page's own size, where the codec resampled it to square pixels (a fax at 204x98 dpi):
    /// points read on this image are given back in the page's own pixels.
    package var ownSize: (width: Int, height: Int)? {
        get { own.map { ($0[0], $0[1]) } }
        set { own = newValue.map { [$0.width, $0.height] } }
    }
    private var own: [Int]?

    package init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "pixel count does not match \(width)x\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The sample at column `x`, row `y`.
    package subscript(x: Int, y: Int) -> UInt8 { pixels[y * width + x] }
}
