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
