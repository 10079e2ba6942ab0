import Foundation

/// Netpbm graymaps and pixmaps: P2 and P3 (plain text), P5 and P6 (binary), maxval up to 65535.
enum PNMDecoder {
    static func decode(_ data: Data, name: String, maxPixels: Int) throws(ImageError) -> GrayImage {
        let bytes = [UInt8](data)
        var pos = 2
        let kind = bytes[1]
        func fail(_ reason: String) -> ImageError { .corrupt(path: name, format: "PNM", reason: reason) }

        // Header fields are decimal integers separated by whitespace; '#' starts a comment.
        func readInt() throws(ImageError) -> Int {
            while pos < bytes.count {
                if bytes[pos] == UInt8(ascii: "#") {
                    while pos < bytes.count, bytes[pos] != 0x0A { pos += 1 }
                } else if isSpace(bytes[pos]) {
                    pos += 1
                } else {
                    break
                }
            }
            var value = 0, digits = 0
            while pos < bytes.count, bytes[pos] >= 0x30, bytes[pos] <= 0x39 {
                value = value * 10 + Int(bytes[pos] - 0x30)
                digits += 1
                pos += 1
                if value > 1 << 40 { throw fail("number too large in header") }
            }
            if digits == 0 { throw fail(pos >= bytes.count ? "truncated header" : "bad header") }
            return value
        }

        let width = try readInt(), height = try readInt(), maxval = try readInt()
        guard width > 0, height > 0 else { throw fail("zero width or height") }
        guard maxval > 0, maxval <= 65535 else { throw fail("maxval \(maxval) out of range 1...65535") }
        guard width * height <= maxPixels else {
            throw .tooLarge(path: name, width: width, height: height, limit: maxPixels)
        }
        let channels = (kind == UInt8(ascii: "3") || kind == UInt8(ascii: "6")) ? 3 : 1
        let count = width * height * channels
        var samples = [Int](repeating: 0, count: count)

        if kind == UInt8(ascii: "5") || kind == UInt8(ascii: "6") {
            guard pos < bytes.count, isSpace(bytes[pos]) else { throw fail("truncated header") }
            pos += 1  // exactly one whitespace byte before the raster
            let wide = maxval > 255
            let need = count * (wide ? 2 : 1)
            guard bytes.count - pos >= need else {
                throw fail("truncated raster: \(bytes.count - pos) of \(need) bytes")
            }
            for i in 0..<count {
                samples[i] = wide ? Int(bytes[pos + 2 * i]) << 8 | Int(bytes[pos + 2 * i + 1]) : Int(bytes[pos + i])
            }
        } else {
            for i in 0..<count {
                do { samples[i] = try readInt() } catch { throw fail("truncated raster at sample \(i) of \(count)") }
            }
        }

        var pixels = [UInt8](repeating: 0, count: width * height)
        for i in 0..<(width * height) {
            let v: Int
            if channels == 3 {
                // ImageMagick's intensity weights (Rec. 709), as for PNG: zbar sees what zbarimg sees.
                v = (212_656 * samples[3 * i] + 715_158 * samples[3 * i + 1] + 72_186 * samples[3 * i + 2] + 500_000) / 1_000_000
            } else {
                v = samples[i]
            }
            pixels[i] = UInt8(min(255, (v * 255 + maxval / 2) / maxval))
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0B || b == 0x0C }
}
