import ScanCore

/// One scan line across a frame cut into runs of bars (dark) and spaces (light): what linear
/// Lua decoders read. Pure Swift: thresholds and runs, no Lua.
struct Scanline {
    /// `row` or `column`.
    var direction: String
    /// The row's y, or the column's x.
    var index: Int
    /// Frame coordinate (x for rows, y for columns) of the line's first pixel.
    var origin: Int
    /// Run widths in pixels, from the first bar to the last: bar, space, bar, ..., bar.
    var widths: [Int] = []
    /// Frame coordinate of each run's first pixel.
    var positions: [Int] = []
    /// Light pixels before the first bar and after the last, up to the line's ends.
    var quietBefore = 0, quietAfter = 0
    /// Whether the line's start (end) is the image's own edge: its quiet zone there is cut by the
    /// edge and may be longer than `quietBefore` (`quietAfter`); false at a --roi edge inside it.
    var edgeBefore = false, edgeAfter = false
    /// The gray level that split bars from spaces.
    var threshold = 0

    /// Lines whose darkest and lightest pixels differ by less than this carry no code.
    static let minimumContrast = 40

    /// Cuts `samples` (one line of gray levels) into runs, or returns nil when the line has too
    /// little contrast or no bar. A 3-tap average first takes the edge off pixel noise; the
    /// threshold is halfway between the line's darkest and lightest smoothed levels.
    static func cut(_ samples: [UInt8], direction: String, index: Int, origin: Int) -> Scanline? {
        let n = samples.count
        guard n >= 3 else { return nil }
        var smooth = [Int](repeating: 0, count: n)
        var lo = Int.max, hi = Int.min
        for i in 0..<n {
            let a = Int(samples[max(0, i - 1)]), b = Int(samples[i]), c = Int(samples[min(n - 1, i + 1)])
            let v = (a + 2 * b + c) / 4
            smooth[i] = v
            lo = min(lo, v)
            hi = max(hi, v)
        }
        guard hi - lo >= minimumContrast else { return nil }
        let t = (lo + hi) / 2
        var line = Scanline(direction: direction, index: index, origin: origin, threshold: t)
        var i = 0
        while i < n, smooth[i] >= t { i += 1 }
        guard i < n else { return nil }
        line.quietBefore = i
        var end = n
        while end > i, smooth[end - 1] >= t { end -= 1 }
        line.quietAfter = n - end
        var start = i
        var dark = true
        i += 1
        while i <= end {
            if i == end || (smooth[i] < t) != dark {
                line.widths.append(i - start)
                line.positions.append(origin + start)
                start = i
                dark.toggle()
            }
            i += 1
        }
        return line
    }
}

/// Image-processing helpers behind the frame view's methods.
enum FrameOps {
    /// Otsu's threshold over a byte string of gray levels.
    static func otsu(_ data: [UInt8]) -> Int {
        var hist = [Int](repeating: 0, count: 256)
        for b in data { hist[Int(b)] += 1 }
        let total = data.count
        guard total > 0 else { return 128 }
        var sumAll = 0.0
        for i in 0..<256 { sumAll += Double(i * hist[i]) }
        var sumB = 0.0, wB = 0, best = 0.0, level = 128
        for t in 0..<256 {
            wB += hist[t]
            if wB == 0 { continue }
            let wF = total - wB
            if wF == 0 { break }
            sumB += Double(t * hist[t])
            let mB = sumB / Double(wB), mF = (sumAll - sumB) / Double(wF)
            let between = Double(wB) * Double(wF) * (mB - mF) * (mB - mF)
            if between > best { best = between; level = t + 1 }
        }
        return level
    }

    /// 0 where a sample is below `level`, 255 elsewhere.
    static func binarize(_ data: [UInt8], level: Int) -> [UInt8] {
        data.map { Int($0) < level ? 0 : 255 }
    }

    /// 0 where a sample is below its (2r+1)^2 neighbourhood mean minus `offset`, 255 elsewhere
    /// (an integral image keeps it linear in the pixel count).
    static func adaptive(_ data: [UInt8], width: Int, height: Int, radius: Int, offset: Int) -> [UInt8] {
        // Every number comes from Lua: sizes must describe `data` exactly (checked without
        // overflowing), and the radius and offset are clamped to what can matter.
        guard width > 0, height > 0, width <= data.count, height <= data.count,
              width.multipliedReportingOverflow(by: height) == (data.count, false) else { return data }
        let radius = min(max(radius, 1), max(width, height)), offset = min(max(offset, -255), 255)
        var integral = [Int](repeating: 0, count: (width + 1) * (height + 1))
        for y in 0..<height {
            var rowSum = 0
            for x in 0..<width {
                rowSum += Int(data[y * width + x])
                integral[(y + 1) * (width + 1) + x + 1] = integral[y * (width + 1) + x + 1] + rowSum
            }
        }
        var out = [UInt8](repeating: 255, count: data.count)
        for y in 0..<height {
            let y0 = max(0, y - radius), y1 = min(height, y + radius + 1)
            for x in 0..<width {
                let x0 = max(0, x - radius), x1 = min(width, x + radius + 1)
                let sum = integral[y1 * (width + 1) + x1] - integral[y0 * (width + 1) + x1]
                    - integral[y1 * (width + 1) + x0] + integral[y0 * (width + 1) + x0]
                let mean = sum / ((x1 - x0) * (y1 - y0))
                if Int(data[y * width + x]) < mean - offset { out[y * width + x] = 0 }
            }
        }
        return out
    }

    /// Column x of a width x height frame.
    static func column(_ data: [UInt8], width: Int, height: Int, x: Int) -> [UInt8] {
        guard width > 0, height > 0, x >= 0, x < width, width <= data.count, height <= data.count,
              width.multipliedReportingOverflow(by: height) == (data.count, false) else { return [] }
        return (0..<height).map { data[$0 * width + x] }
    }
}
