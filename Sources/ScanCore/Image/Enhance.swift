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
        var counts = [Int](repeating: 0, count: 256)
        var histogram = [Double](repeating: 0, count: 256)
        pixels.withUnsafeBufferPointer { px in
            counts.withUnsafeMutableBufferPointer { counts in
                for ty in 0..<tiles {
                    for tx in 0..<tiles {
                        let y0 = ty * th, y1 = min(height, y0 + th), x0 = tx * tw, x1 = min(width, x0 + tw)
                        guard y0 < y1, x0 < x1 else { continue }
                        for v in 0..<256 { counts[v] = 0 }
                        for y in y0..<y1 {
                            let row = px.baseAddress! + y * width
                            for x in x0..<x1 { counts[Int(row[x])] &+= 1 }
                        }
                        for v in 0..<256 { histogram[v] = Double(counts[v]) }
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
        let left = columns.map(\.0), right = columns.map(\.1), weight = columns.map(\.2)
        var out = [UInt8](repeating: 0, count: pixels.count)
        tables.withUnsafeBufferPointer { t in
            pixels.withUnsafeBufferPointer { px in
                out.withUnsafeMutableBufferPointer { dst in
                    left.withUnsafeBufferPointer { left in
                        right.withUnsafeBufferPointer { right in
                            weight.withUnsafeBufferPointer { weight in
                                for y in 0..<height {
                                    let (ya, yb, fy) = blend(y, th)
                                    // The tables of this row's upper and lower tile row.
                                    let upper = t.baseAddress! + ya * tiles, lower = t.baseAddress! + yb * tiles
                                    let src = px.baseAddress! + y * width, row = dst.baseAddress! + y * width
                                    for x in 0..<width {
                                        let v = Int(src[x]), xa = left[x] &+ v, xb = right[x] &+ v, fx = weight[x]
                                        // Levels and weights are small: no sum here can overflow.
                                        let top = Int(upper[xa]) &* (256 &- fx) &+ Int(upper[xb]) &* fx
                                        let bottom = Int(lower[xa]) &* (256 &- fx) &+ Int(lower[xb]) &* fx
                                        row[x] = UInt8(truncatingIfNeeded: (top &* (256 &- fy) &+ bottom &* fy &+ 32768) >> 16)  // 0...255
                                    }
                                }
                            }
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
        let column = xs.map(\.0), weight = xs.map(\.1)
        var out = [UInt8](repeating: 0, count: w * h)
        // Each source row interpolated across once (in 1/256 levels), kept while output rows use it.
        var upper = [Int](repeating: 0, count: w), lower = [Int](repeating: 0, count: w)
        var upperRow = -1, lowerRow = -1
        pixels.withUnsafeBufferPointer { px in
            column.withUnsafeBufferPointer { column in
                weight.withUnsafeBufferPointer { weight in
                    func across(_ j: Int, into line: inout [Int]) {
                        let src = px.baseAddress! + j * width
                        line.withUnsafeMutableBufferPointer { line in
                            for x in 0..<w {
                                let i = column[x], fx = weight[x]
                                line[x] = (Int(src[i]) &* (65536 &- fx) &+ Int(src[i &+ 1]) &* fx) >> 8
                            }
                        }
                    }
                    out.withUnsafeMutableBufferPointer { dst in
                        for y in 0..<h {
                            let sy = min(Double(height - 1), max(0, (Double(y) + 0.5) / factor - 0.5))
                            let j = min(height - 2, Int(sy)), fy = Int((sy - Double(j)) * 65536)
                            if upperRow != j {
                                if lowerRow == j { swap(&upper, &lower); lowerRow = -1 } else { across(j, into: &upper) }
                                upperRow = j
                            }
                            if lowerRow != j + 1 { across(j + 1, into: &lower); lowerRow = j + 1 }
                            let row = dst.baseAddress! + y * w
                            upper.withUnsafeBufferPointer { top in
                                lower.withUnsafeBufferPointer { bottom in
                                    for x in 0..<w { row[x] = UInt8(truncatingIfNeeded: (top[x] &* (65536 - fy) &+ bottom[x] &* fy &+ (1 << 23)) >> 24) }  // 0...255
                                }
                            }
                        }
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }
}
