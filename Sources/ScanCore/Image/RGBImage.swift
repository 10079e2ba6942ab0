/// An 8-bit RGB image, row-major with no padding (R, G, B per pixel): the copies of inputs that
/// annotated images, saved frames and the preview page draw on.
package struct RGBImage: Sendable, Equatable {
    package let width: Int
    package let height: Int
    /// `width * height * 3` samples.
    package var pixels: [UInt8]

    package init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3, "pixel count does not match \(width)x\(height) RGB")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A gray image in color (each sample three times), for frames that have no color of their own.
    package init(_ gray: GrayImage) {
        var out = [UInt8](repeating: 0, count: gray.pixels.count * 3)
        gray.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for i in 0..<src.count { let v = src[i]; dst[3 * i] = v; dst[3 * i + 1] = v; dst[3 * i + 2] = v }
            }
        }
        self.init(width: gray.width, height: gray.height, pixels: out)
    }

    /// The color at column `x`, row `y`.
    package subscript(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let i = (y * width + x) * 3
        return (pixels[i], pixels[i + 1], pixels[i + 2])
    }
}
