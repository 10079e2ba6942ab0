/// The scale pyramid: a large frame is first decoded small (far less work for the decoders, and
/// for JPEG far less decoding), at full size only when the small pass found nothing.
package struct Pyramid: Sendable, Equatable {
    /// Frames above this many pixels get a small pass first.
    package var threshold: Int
    /// The small pass is at most this many pixels.
    package var smallPixels: Int

    package init(effort: Effort) {
        switch effort {
        case .fast: threshold = 1_500_000; smallPixels = 800_000
        case .balanced: threshold = 2_500_000; smallPixels = 1_000_000
        case .thorough: threshold = Int.max; smallPixels = 0  // full size first, always
        }
    }

    /// The reduction (2, 4 or 8) for a frame of this size, or nil for no small pass.
    package func reduction(width: Int, height: Int) -> Int? {
        let pixels = width * height
        guard pixels > threshold else { return nil }
        for k in [2, 4, 8] where pixels / (k * k) <= smallPixels { return k }
        return 8
    }
}

extension GrayImage {
    /// The image at 1/k size, each pixel the mean of a k x k block (the last partial blocks dropped).
    package func reduced(by k: Int) -> GrayImage {
        guard k > 1 else { return self }
        let w = width / k, h = height / k
        guard w > 0, h > 0 else { return self }
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { src in
            for y in 0..<h {
                for x in 0..<w {
                    var sum = 0
                    for dy in 0..<k {
                        let row = (y * k + dy) * width + x * k
                        for dx in 0..<k { sum += Int(src[row + dx]) }
                    }
                    out[y * w + x] = UInt8(sum / (k * k))
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }
}

extension Symbol {
    /// The symbol of a 1/k-size pass in full-size coordinates (each point at its block's centre).
    package func scaled(by k: Int) -> Symbol {
        guard k > 1 else { return self }
        var s = self
        s.points = points.map { Point(x: $0.x * k + k / 2, y: $0.y * k + k / 2) }
        s.bbox = Box(enclosing: s.points)
        s.linesAtFullSize = 0
        return s
    }
}

extension Symbol {
    /// The symbol with its points moved inside a `width` x `height` frame.
    package func clamped(width: Int, height: Int) -> Symbol {
        guard width > 0, height > 0,
              points.contains(where: { $0.x < 0 || $0.y < 0 || $0.x >= width || $0.y >= height }) else { return self }
        var s = self
        s.points = points.map { Point(x: min(max($0.x, 0), width - 1), y: min(max($0.y, 0), height - 1)) }
        s.bbox = Box(enclosing: s.points)
        return s
    }
}
