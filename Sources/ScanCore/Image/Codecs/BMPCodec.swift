import Foundation

/// Windows and OS/2 bitmaps, parsed in Swift (Debian has no BMP library): 1, 4, 8, 16, 24 and
/// 32 bits a pixel, palettes, bit-field masks, RLE4 and RLE8, bottom-up and top-down rows.
/// Every header number is checked before it is used; RLE output stays inside the image.
enum BMPCodec: ImageCodec {
    static let name = "BMP"
    /// The file's bytes as an array, the RGB picture, then the image.
    static let bytesPerPixel = 5
    static func matches(_ head: [UInt8]) -> Bool {
        // "BM" and a known header size: "BM" alone starts too much plain text.
        guard head.count >= 18, head[0] == UInt8(ascii: "B"), head[1] == UInt8(ascii: "M") else { return false }
        return [12, 40, 52, 56, 64, 108, 124].contains(le32(head, 14))
    }

    static func size(_ data: Data) -> (width: Int, height: Int)? {
        guard let h = try? Header(Array(data.prefix(160)), name: "") else { return nil }
        return (h.width, h.height)
    }

    static func decode(_ data: Data, page: Int, name: String, options: DecodeOptions) throws(ImageError) -> GrayImage {
        let (w, h, rgb) = try decodeRGB([UInt8](data), name: name, maxPixels: options.maxPixels)
        var gray = [UInt8](repeating: 0, count: w * h)
        for i in 0..<w * h {
            let r = 0.212656 * Double(rgb[3 * i]), g = 0.715158 * Double(rgb[3 * i + 1]), b = 0.072186 * Double(rgb[3 * i + 2])
            gray[i] = UInt8(r + g + b + 0.5)
        }
        return GrayImage(width: w, height: h, pixels: gray)
    }

    static func decodeColor(_ data: Data, page: Int, name: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        let (w, h, rgb) = try decodeRGB([UInt8](data), name: name, maxPixels: options.maxPixels)
        return RGBImage(width: w, height: h, pixels: rgb)
    }

    private static func le32(_ b: [UInt8], _ i: Int) -> Int {
        i + 4 <= b.count ? Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24 : 0
    }
    private static func le16(_ b: [UInt8], _ i: Int) -> Int { i + 2 <= b.count ? Int(b[i]) | Int(b[i + 1]) << 8 : 0 }

    private struct Header {
        var width = 0, height = 0, topDown = false, bits = 0, compression = 0, pixelOffset = 0
        var masks: [UInt32] = [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0]
        var palette: [(UInt8, UInt8, UInt8)] = []

        init(_ b: [UInt8], name: String) throws(ImageError) {
            func fail(_ r: String) -> ImageError { .corrupt(path: name, format: "BMP", reason: r) }
            guard b.count >= 26 else { throw fail("truncated header") }
            let headerSize = le32(b, 14)
            pixelOffset = le32(b, 10)
            if headerSize == 12 {
                width = le16(b, 18); height = le16(b, 20); bits = le16(b, 24)
            } else {
                guard b.count >= 54 else { throw fail("truncated header") }
                width = Int(Int32(truncatingIfNeeded: le32(b, 18)))
                let h = Int32(truncatingIfNeeded: le32(b, 22))
                guard h != Int32.min else { throw fail("height -2147483648") }
                height = Int(h.magnitude)
                topDown = h < 0
                bits = le16(b, 28)
                compression = le32(b, 30)
            }
            guard width > 0, height > 0 else { throw fail("the header gives an empty \(width)x\(height) image") }
            guard [1, 4, 8, 16, 24, 32].contains(bits) else { throw fail("\(bits) bits a pixel") }
            guard [0, 1, 2, 3, 6].contains(compression) else { throw fail("compression \(compression) (embedded JPEG/PNG or unknown)") }
            guard !topDown || compression == 0 || compression == 3 || compression == 6 else { throw fail("top-down rows with RLE") }
            guard (compression != 1 || bits == 8) && (compression != 2 || bits == 4) else { throw fail("RLE with \(bits) bits a pixel") }
            if compression == 3 || compression == 6 {
                // Masks follow a 40-byte header; larger headers carry them inside.
                let at = 14 + 40
                guard b.count >= at + 12 else { throw fail("truncated bit masks") }
                masks = [UInt32(le32(b, at)), UInt32(le32(b, at + 4)), UInt32(le32(b, at + 8)),
                         compression == 6 || headerSize >= 56 ? UInt32(le32(b, at + 12)) : 0]
            } else if bits == 16 {
                masks = [0x7C00, 0x03E0, 0x001F, 0]
            } else if bits == 32 {
                masks = [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0]
            }
            if bits <= 8 {
                let entry = headerSize == 12 ? 3 : 4
                let used = headerSize >= 40 ? le32(b, 46) : 0
                let count = used > 0 && used <= 1 << bits ? used : 1 << bits
                let at = 14 + headerSize + (compression == 3 && headerSize == 40 ? 12 : 0)
                for i in 0..<count {
                    let p = at + i * entry
                    guard p + 3 <= b.count, p + 3 <= pixelOffset else { break }
                    palette.append((b[p + 2], b[p + 1], b[p]))
                }
                guard !palette.isEmpty else { throw fail("no palette") }
            }
        }
    }

    private static func decodeRGB(_ b: [UInt8], name: String, maxPixels: Int) throws(ImageError) -> (Int, Int, [UInt8]) {
        func fail(_ r: String) -> ImageError { .corrupt(path: name, format: "BMP", reason: r) }
        let h = try Header(b, name: name)
        let (pixels, overflow) = h.width.multipliedReportingOverflow(by: h.height)
        guard !overflow, pixels <= maxPixels else { throw .tooLarge(path: name, width: h.width, height: h.height, limit: maxPixels) }
        guard h.pixelOffset > 0, h.pixelOffset < b.count else { throw fail("pixel data offset \(h.pixelOffset) outside the file") }
        var rgb = [UInt8](repeating: 255, count: pixels * 3)
        func put(_ x: Int, _ row: Int, _ c: (UInt8, UInt8, UInt8)) {
            let y = h.topDown ? row : h.height - 1 - row
            let i = (y * h.width + x) * 3
            rgb[i] = c.0; rgb[i + 1] = c.1; rgb[i + 2] = c.2
        }
        func color(_ index: Int) -> (UInt8, UInt8, UInt8) { index < h.palette.count ? h.palette[index] : (0, 0, 0) }
        if h.compression == 1 || h.compression == 2 {
            // RLE: rows in stored order, from the bottom; what a run would draw outside is dropped.
            var p = h.pixelOffset, x = 0, row = 0
            let four = h.compression == 2
            while p + 1 < b.count, row < h.height {
                let n = Int(b[p]), v = Int(b[p + 1])
                p += 2
                if n > 0 {
                    for k in 0..<n where x + k < h.width { put(x + k, row, color(four ? (k % 2 == 0 ? v >> 4 : v & 15) : v)) }
                    x += n
                } else if v == 0 { x = 0; row += 1 }
                else if v == 1 { break }
                else if v == 2 {
                    guard p + 1 < b.count else { break }
                    x += Int(b[p]); row += Int(b[p + 1]); p += 2
                } else {
                    let bytes = four ? (v + 1) / 2 : v
                    for k in 0..<v where x + k < h.width {
                        let q = p + (four ? k / 2 : k)
                        guard q < b.count else { break }
                        put(x + k, row, color(four ? (k % 2 == 0 ? Int(b[q]) >> 4 : Int(b[q]) & 15) : Int(b[q])))
                    }
                    x += v
                    p += (bytes + 1) & ~1  // runs are padded to 16 bits
                }
            }
            return (h.width, h.height, rgb)
        }
        let stride = ((h.width * h.bits + 31) / 32) * 4
        guard h.pixelOffset + stride * (h.height - 1) + (h.width * h.bits + 7) / 8 <= b.count else {
            throw fail("pixel data truncated (\(b.count) bytes, \(h.pixelOffset + stride * h.height) needed)")
        }
        func channel(_ v: UInt32, _ mask: UInt32) -> UInt8 {
            guard mask != 0 else { return 0 }
            let shifted = (v & mask) >> UInt32(mask.trailingZeroBitCount)
            let maxValue = mask >> UInt32(mask.trailingZeroBitCount)
            return UInt8(Double(shifted) * 255 / Double(maxValue) + 0.5)
        }
        for row in 0..<h.height {
            let base = h.pixelOffset + row * stride
            for x in 0..<h.width {
                switch h.bits {
                case 1, 4, 8:
                    let bit = x * h.bits
                    let byte = Int(b[base + bit / 8])
                    let index = (byte >> (8 - h.bits - bit % 8)) & ((1 << h.bits) - 1)
                    put(x, row, color(index))
                case 24:
                    let p = base + 3 * x
                    put(x, row, (b[p + 2], b[p + 1], b[p]))
                default:
                    let p = base + x * h.bits / 8
                    let v = h.bits == 16 ? UInt32(b[p]) | UInt32(b[p + 1]) << 8
                        : UInt32(b[p]) | UInt32(b[p + 1]) << 8 | UInt32(b[p + 2]) << 16 | UInt32(b[p + 3]) << 24
                    var c = (channel(v, h.masks[0]), channel(v, h.masks[1]), channel(v, h.masks[2]))
                    if h.masks[3] != 0 {
                        // Alpha on white, as the other decoders composite it.
                        let a = Int(channel(v, h.masks[3]))
                        func on(_ x: UInt8) -> UInt8 { UInt8((Int(x) * a + 255 * (255 - a) + 127) / 255) }
                        c = (on(c.0), on(c.1), on(c.2))
                    }
                    put(x, row, c)
                }
            }
        }
        return (h.width, h.height, rgb)
    }
}
