/// A region of interest: only this part of a frame is decoded (`--roi x,y,w,h`).
/// Each value is in pixels, or a fraction of the frame when every value is at most 1
/// and at least one has a decimal point (`0.25,0.25,0.5,0.5` is the middle quarter).
package struct Region: Equatable, Sendable {
    package var x: Double, y: Double, width: Double, height: Double
    package var isFraction: Bool

    /// Parses `x,y,w,h`; nil with no explanation is never returned: errors say what is wrong.
    package static func parse(_ text: String) -> Result<Region, RegionError> {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 4 else { return .failure(RegionError(message: "expected x,y,w,h (four numbers), got '\(text)'")) }
        let values = parts.compactMap(Double.init)
        guard values.count == 4, values.allSatisfy({ $0 >= 0 && $0.isFinite }) else {
            return .failure(RegionError(message: "expected four non-negative numbers, got '\(text)'"))
        }
        let fraction = values.allSatisfy { $0 <= 1 } && parts.contains { $0.contains(".") }
        if fraction {
            guard values[0] + values[2] <= 1.0001, values[1] + values[3] <= 1.0001 else {
                return .failure(RegionError(message: "fractions must stay inside the frame: x+w and y+h at most 1, got '\(text)'"))
            }
        } else {
            guard values.allSatisfy({ $0 == $0.rounded() }) else {
                return .failure(RegionError(message: "pixel values must be whole numbers, got '\(text)'"))
            }
        }
        guard values[2] > 0, values[3] > 0 else { return .failure(RegionError(message: "width and height must be positive, got '\(text)'")) }
        return .success(Region(x: values[0], y: values[1], width: values[2], height: values[3], isFraction: fraction))
    }

    /// The region as `--roi` writes it.
    package var text: String {
        func n(_ v: Double) -> String { isFraction ? String(v) : String(Int(v)) }
        return [x, y, width, height].map(n).joined(separator: ",")
    }

    /// The pixel box of this region in a `width` x `height` frame, clipped to it (nil when outside).
    package func box(inWidth width: Int, height: Int) -> Box? {
        let sx = isFraction ? Double(width) : 1, sy = isFraction ? Double(height) : 1
        let x0 = max(0, Int((x * sx).rounded())), y0 = max(0, Int((y * sy).rounded()))
        let x1 = min(width, Int(((x + self.width) * sx).rounded())), y1 = min(height, Int(((y + self.height) * sy).rounded()))
        guard x1 > x0, y1 > y0 else { return nil }
        return Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

/// Why a `--roi` value was refused.
package struct RegionError: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}

extension GrayImage {
    /// The pixels inside `box` (which must lie inside the image).
    package func cropped(to box: Box) -> GrayImage {
        var out = [UInt8](repeating: 0, count: box.width * box.height)
        for row in 0..<box.height {
            let src = (box.y + row) * width + box.x
            out.replaceSubrange(row * box.width..<(row + 1) * box.width, with: pixels[src..<src + box.width])
        }
        return GrayImage(width: box.width, height: box.height, pixels: out)
    }
}

extension Symbol {
    /// The same symbol with its points moved by (dx, dy): from a crop's coordinates to the frame's.
    package func offset(dx: Int, dy: Int) -> Symbol {
        guard dx != 0 || dy != 0 else { return self }
        var s = self
        s.points = points.map { Point(x: $0.x + dx, y: $0.y + dy) }
        s.bbox = Box(x: bbox.x + dx, y: bbox.y + dy, width: bbox.width, height: bbox.height)
        return s
    }
}
