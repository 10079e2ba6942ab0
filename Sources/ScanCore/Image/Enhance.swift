import Foundation

/// Contrast and size changes for the retry passes of still images (``StillRetries``): what the
/// decoders' binarizers cannot undo in a dark or unevenly lit photo.
extension GrayImage {
    /// Each sample through a 256-entry table.
    package func mapped(_ table: [UInt8]) -> GrayImage {
        precondition(table.count == 256)
        var out = [UInt8](repeating: 0, count: pixels.count)
        table.withUnsafeBufferPointer { lut in
            pixels.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    for i in 0..<src.count { dst[i] = lut[Int(src[i])] }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: out)
    }

    /// The table of `out = 255 * (in / 255)^g`: below 1 brightens the dark levels apart.
    package static func gammaTable(_ g: Double) -> [UInt8] {
        (0..<256).map { v in UInt8((255 * pow(Double(v) / 255, g)).rounded()) }
    }

    /// The median of every `step`-th sample of every `step`-th row: how bright the frame is.
    package func medianBrightness(step: Int = 4) -> Int {
        guard width > 0, height > 0 else { return 0 }
        var histogram = [Int](repeating: 0, count: 256)
        var n = 0
        pixels.withUnsafeBufferPointer { px in
            for y in stride(from: 0, to: height, by: step) {
                for x in stride(from: 0, to: width, by: step) { histogram[Int(px[y * width + x])] += 1; n += 1 }
            }
        }
        var seen = 0
        for (v, c) in histogram.enumerated() {
            seen += c
            if 2 * seen >= n { return v }
        }
        return 255
    }

    /// Contrast-limited adaptive histogram equalisation (CLAHE): each of `tiles` x `tiles` tiles
    /// gets its own equalising table, each bin clipped at `clip` times the mean bin (the excess
    /// spread over all bins), and every pixel blends the tables of the four nearest tile centres.
    package func equalizedLocally(tiles: Int = 8, clip: Double) -> GrayImage {
        guard width >= tiles, height >= tiles, tiles > 0 else { return self }
        let th = (height + tiles - 1) / tiles, tw = (width + tiles - 1) / tiles
        // tables[(ty * tiles + tx) * 256 + v]: each tile's equalising table.
        var tables = [UInt8](repeating: 0, count: tiles * tiles * 256)
        pixels.withUnsafeBufferPointer { px in
            var histogram = [Double](repeating: 0, count: 256)
            for ty in 0..<tiles {
                for tx in 0..<tiles {
                    let y0 = ty * th, y1 = min(height, y0 + th), x0 = tx * tw, x1 = min(width, x0 + tw)
                    guard y0 < y1, x0 < x1 else { continue }
                    for v in 0..<256 { histogram[v] = 0 }
                    for y in y0..<y1 { for x in x0..<x1 { histogram[Int(px[y * width + x])] += 1 } }
                    let count = Double((y1 - y0) * (x1 - x0))
                    let limit = clip * count / 256
                    var excess = 0.0
                    for v in 0..<256 where histogram[v] > limit { excess += histogram[v] - limit; histogram[v] = limit }
                    var sum = 0.0
                    let base = (ty * tiles + tx) * 256
                    for v in 0..<256 {
                        sum += histogram[v] + excess / 256
                        tables[base + v] = UInt8(min(255, 255 * sum / count + 0.5))
                    }
                }
            }
        }
        // Per column and row: the tiles whose centres are either side, and the second's weight in 1/256.
        func blend(_ n: Int, _ size: Int) -> (Int, Int, Int) {
            let c = (Double(n) + 0.5) / Double(size) - 0.5
            if c < 0 { return (0, 0, 0) }
            let lo = Int(c)
            if lo >= tiles - 1 { return ((tiles - 1) * 256, (tiles - 1) * 256, 0) }
            return (lo * 256, (lo + 1) * 256, Int((c - Double(lo)) * 256 + 0.5))
        }
        let columns = (0..<width).map { blend($0, tw) }
        var out = [UInt8](repeating: 0, count: pixels.count)
        tables.withUnsafeBufferPointer { t in
            pixels.withUnsafeBufferPointer { px in
                out.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<height {
                        var (ya, yb, fy) = blend(y, th)
                        ya = ya / 256 * tiles * 256; yb = yb / 256 * tiles * 256
                        let row = y * width
                        for x in 0..<width {
                            let (xa, xb, fx) = columns[x]
                            let v = Int(px[row + x])
                            let a = Int(t[ya + xa + v]), b = Int(t[ya + xb + v])
                            let c = Int(t[yb + xa + v]), d = Int(t[yb + xb + v])
                            let top = a * (256 - fx) + b * fx, bottom = c * (256 - fx) + d * fx
                            dst[row + x] = UInt8((top * (256 - fy) + bottom * fy + 32768) >> 16)
                        }
                    }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: out)
    }

    /// The image scaled by `factor` (above 1), each sample interpolated bilinearly.
    package func resized(by factor: Double) -> GrayImage {
        let w = max(1, Int((Double(width) * factor).rounded())), h = max(1, Int((Double(height) * factor).rounded()))
        guard width > 1, height > 1 else { return self }
        // 16.16 fixed point source coordinates of each output column.
        let xs = (0..<w).map { x -> (Int, Int) in
            let sx = min(Double(width - 1), max(0, (Double(x) + 0.5) / factor - 0.5))
            let i = min(width - 2, Int(sx))
            return (i, Int((sx - Double(i)) * 65536))
        }
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { px in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let sy = min(Double(height - 1), max(0, (Double(y) + 0.5) / factor - 0.5))
                    let j = min(height - 2, Int(sy)), fy = Int((sy - Double(j)) * 65536)
                    let r0 = j * width, r1 = r0 + width
                    for x in 0..<w {
                        let (i, fx) = xs[x]
                        let top = Int(px[r0 + i]) * (65536 - fx) + Int(px[r0 + i + 1]) * fx
                        let bottom = Int(px[r1 + i]) * (65536 - fx) + Int(px[r1 + i + 1]) * fx
                        dst[y * w + x] = UInt8(((top >> 8) * (65536 - fy) + (bottom >> 8) * fy + (1 << 23)) >> 24)
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }
}
