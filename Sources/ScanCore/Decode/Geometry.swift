/// Outline and add-on helpers applied to zbar's raw results.
enum Geometry {
    /// zbar's scan locations for a linear code are hundreds of edge points; keep their convex
    /// hull (counter-clockwise, starting at the smallest x). Four points or fewer (a QR code's
    /// corners, in zbar's order) are kept as they are.
    static func outline(_ points: [Point]) -> [Point] {
        guard points.count > 4 else { return points }
        let sorted = Set(points.map { [$0.x, $0.y] }).map { Point(x: $0[0], y: $0[1]) }
            .sorted { ($0.x, $0.y) < ($1.x, $1.y) }
        guard sorted.count > 2 else { return sorted }
        func cross(_ o: Point, _ a: Point, _ b: Point) -> Int { (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x) }
        var lower: [Point] = [], upper: [Point] = []
        for p in sorted {
            while lower.count >= 2, cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        for p in sorted.reversed() {
            while upper.count >= 2, cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    /// Whether the point (x, y) lies inside the polygon (even-odd rule; at least 3 corners).
    static func encloses(_ polygon: [Point], _ x: Double, _ y: Double) -> Bool {
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let (xi, yi) = (Double(polygon[i].x), Double(polygon[i].y)), (xj, yj) = (Double(polygon[j].x), Double(polygon[j].y))
            if (yi > y) != (yj > y) && x < xi + (y - yi) / (yj - yi) * (xj - xi) { inside.toggle() }
            j = i
        }
        return inside
    }
}

extension Symbol {
    /// The outline of a set of points: see ``Geometry/outline(_:)``.
    package static func outline(_ points: [Point]) -> [Point] { Geometry.outline(points) }

    /// zbar reports an EAN-2/EAN-5 add-on as a symbol of its own. Each add-on is also attached
    /// (as `addon`) to the EAN/UPC code printed just left of it on the same rows; both stay in the list.
    static func attachingAddOns(_ symbols: [Symbol]) -> [Symbol] {
        var result = symbols
        for addon in symbols where Symbology.addOns.contains(addon.symbology.rawValue) {
            let a = addon.bbox
            var best: (index: Int, gap: Int)?
            for (i, host) in result.enumerated() where Symbology.eanUPC.contains(host.symbology.rawValue) && host.addon == nil {
                let h = host.bbox
                let overlap = min(a.y + a.height, h.y + h.height) - max(a.y, h.y)
                let gap = a.x - (h.x + h.width)
                // Add-ons start right of the main code, at most about one code width away.
                guard overlap > 0, gap >= -2, gap <= h.width else { continue }
                if best == nil || gap < best!.gap { best = (i, gap) }
            }
            if let best { result[best.index].addon = addon.text }
        }
        return result
    }
}
