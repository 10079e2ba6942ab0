/// An 8-bit grayscale image, row-major with no padding: what every decoder reads.
public struct GrayImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height` luma samples, 0 black ... 255 white.
    public var pixels: [UInt8]
    /// What the decoder skipped or repaired in a file it still decoded (libjpeg's "Corrupt JPEG
    /// data: ..." warnings), with the format: `JPEG: Corrupt JPEG data: ...`.
    public var warnings: [String] = []

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "pixel count does not match \(width)x\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The sample at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> UInt8 { pixels[y * width + x] }
}
