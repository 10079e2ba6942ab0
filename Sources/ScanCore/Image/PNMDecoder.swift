import Foundation

/// Netpbm graymaps and pixmaps: P2 and P3 (plain text), P5 and P6 (binary), maxval up to 65535.
///
/// Hostile headers are refused before any arithmetic or allocation: every header number is
/// range-checked, the pixel count is checked for overflow and against `maxPixels`, and the
/// data the header promises must be there before the pixels are allocated.
enum PNMDecoder {
    /// The largest number a header field may hold (2^40); larger ones are refused as they are read.
    static let maxHeaderNumber = 1 << 40

    static func decode(_ data: Data, name: String, maxPixels: Int) throws(ImageError) -> GrayImage {
        let bytes = [UInt8](data)
        guard bytes.count >= 2 else { throw .corrupt(path: name, format: "PNM", reason: "truncated header") }
        var pos = 2
        let kind = bytes[1]
        func fail(_ reason: String) -> ImageError { .corrupt(path: name, format: "PNM", reason: reason) }

        // Header fields are decimal integers separated by whitespace; '#' starts a comment.
        // Returns nil when the digits run past `maxHeaderNumber` (the rest are skipped).
        func readInt() throws(ImageError) -> Int? {
            while pos < bytes.count {
                if bytes[pos] == UInt8(ascii: "#") {
                    while pos < bytes.count, bytes[pos] != 0x0A { pos += 1 }
                } else if isSpace(bytes[pos]) {
                    pos += 1
                } else {
                    break
                }
            }
            var value = 0, digits = 0, tooLarge = false
            while pos < bytes.count, bytes[pos] >= 0x30, bytes[pos] <= 0x39 {
                if !tooLarge {
                    value = value * 10 + Int(bytes[pos] - 0x30)  // value <= 2^40 here: no overflow
                    if value > maxHeaderNumber { tooLarge = true }
                }
                digits += 1
                pos += 1
            }
            if digits == 0 { throw fail(pos >= bytes.count ? "truncated header" : "bad header") }
            return tooLarge ? nil : value
        }
        func headerField(_ field: String) throws(ImageError) -> Int {
            guard let value = try readInt() else { throw fail("\(field) in header is over \(maxHeaderNumber)") }
            return value
        }

        let width = try headerField("width"), height = try headerField("height"), maxval = try headerField("maxval")
        guard width > 0, height > 0 else { throw fail("zero width or height") }
        guard maxval > 0, maxval <= 65535 else { throw fail("maxval \(maxval) out of range 1...65535") }
        // Both are at most 2^40, so the product may overflow: an overflowing one is over any limit too.
        let (pixelCount, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixelCount <= maxPixels else {
            throw .tooLarge(path: name, width: width, height: height, limit: maxPixels)
        }
        let channels = (kind == UInt8(ascii: "3") || kind == UInt8(ascii: "6")) ? 3 : 1
        let (count, countOverflow) = pixelCount.multipliedReportingOverflow(by: channels)
        guard !countOverflow else { throw .tooLarge(path: name, width: width, height: height, limit: maxPixels) }
        let binary = kind == UInt8(ascii: "5") || kind == UInt8(ascii: "6")
        let wide = maxval > 255

        // The data the header promises must be there before anything is allocated.
        if binary {
            guard pos < bytes.count, isSpace(bytes[pos]) else { throw fail("truncated header") }
            pos += 1  // exactly one whitespace byte before the raster
            let (need, needOverflow) = count.multipliedReportingOverflow(by: wide ? 2 : 1)
            guard !needOverflow, bytes.count - pos >= need else {
                throw fail("truncated raster: \(bytes.count - pos) of \(needOverflow ? "more than \(Int.max)" : String(need)) bytes")
            }
        } else {
            // Each plain sample takes at least two bytes: a separator and a digit.
            let have = bytes.count - pos
            guard have / 2 >= count else {
                throw fail("truncated raster: \(have) bytes for \(count) plain samples of 2 bytes at least")
            }
        }

        // Samples go straight to gray pixels: no per-sample array (a 3-channel Int array would be
        // 24 bytes per pixel).
        var sampleIndex = 0
        func nextSample() throws(ImageError) -> Int {
            defer { sampleIndex += 1 }
            let v: Int
            if binary {
                v = wide ? Int(bytes[pos + 2 * sampleIndex]) << 8 | Int(bytes[pos + 2 * sampleIndex + 1])
                    : Int(bytes[pos + sampleIndex])
            } else {
                let read: Int?
                do { read = try readInt() } catch { throw fail("truncated raster at sample \(sampleIndex) of \(count)") }
                guard let read else { throw outOfRange(nil) }
                v = read
            }
            guard v <= maxval else { throw outOfRange(v) }
            return v
        }
        func outOfRange(_ value: Int?) -> ImageError {
            let pixel = sampleIndex / channels
            let at = "at pixel (\(pixel % width), \(pixel / width))"
            return fail("sample \(value.map(String.init) ?? "over \(maxHeaderNumber)") \(at) is over maxval \(maxval)")
        }

        var pixels = [UInt8](repeating: 0, count: pixelCount)
        for i in 0..<pixelCount {
            let v: Int
            if channels == 3 {
                let r = try nextSample(), g = try nextSample(), b = try nextSample()
                // ImageMagick's intensity weights (Rec. 709), as for PNG: zbar sees what zbarimg sees.
                v = (212_656 * r + 715_158 * g + 72_186 * b + 500_000) / 1_000_000
            } else {
                v = try nextSample()
            }
            // v <= maxval <= 65535: rounds to 0...255 exactly (the weights sum to 1_000_000).
            pixels[i] = UInt8((v * 255 + maxval / 2) / maxval)
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0B || b == 0x0C }
}
