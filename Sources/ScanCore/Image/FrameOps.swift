/// Image operations on a gray frame given as bytes, row by row: what the Lua frame view's
/// methods (`frame:otsu`, `binarize`, `adaptive`, `column`) run, beside ``Enhance``.
/// Every number may come from a script: sizes are checked, never trusted.
package enum FrameOps {
    /// Otsu's threshold over a byte string of gray levels.
    package static func otsu(_ data: [UInt8]) -> Int {
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
    package static func binarize(_ data: [UInt8], level: Int) -> [UInt8] {
        data.map { Int($0) < level ? 0 : 255 }
    }

    /// 0 where a sample is below its (2r+1)^2 neighbourhood mean minus `offset`, 255 elsewhere
    /// (an integral image keeps it linear in the pixel count).
    package static func adaptive(_ data: [UInt8], width: Int, height: Int, radius: Int, offset: Int) -> [UInt8] {
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
    package static func column(_ data: [UInt8], width: Int, height: Int, x: Int) -> [UInt8] {
        guard width > 0, height > 0, x >= 0, x < width, width <= data.count, height <= data.count,
              width.multipliedReportingOverflow(by: height) == (data.count, false) else { return [] }
        return (0..<height).map { data[$0 * width + x] }
    }
}
