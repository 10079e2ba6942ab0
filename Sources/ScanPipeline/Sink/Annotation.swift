import ScanCore

/// A code's outline and label drawn on a copy of its frame: what `scan --annotate`, the preview
/// page and `watch --save-frames` show. Sizes follow the image, so a 12 MP photo gets lines and
/// letters a person can see.
package struct Annotation: Sendable {
    package var outline: [Point]
    package var label: String
    package var color: Color

    package struct Color: Sendable, Equatable {
        package var r: UInt8, g: UInt8, b: UInt8
        /// A code accepted in this frame.
        package static let accepted = Color(r: 0, g: 200, b: 0)
        /// A code read in this frame but not accepted again (a duplicate within the session).
        package static let seen = Color(r: 255, g: 190, b: 0)
    }

    package init(outline: [Point], label: String, color: Color) {
        self.outline = outline
        self.label = label
        self.color = color
    }

    /// A symbol's outline (its bounding box when it has fewer than three points) and a label of
    /// its symbology and the start of its text.
    package init(_ symbol: Symbol, color: Color = .accepted) {
        let b = symbol.bbox
        outline = symbol.points.count >= 3 ? symbol.points
            : [Point(x: b.x, y: b.y), Point(x: b.x + b.width, y: b.y), Point(x: b.x + b.width, y: b.y + b.height), Point(x: b.x, y: b.y + b.height)]
        label = Self.label(symbol)
        self.color = color
    }

    /// `qrcode HELLO-WORLD...`: the label has the font's ASCII only, other characters become `?`.
    static func label(_ s: Symbol, maxText: Int = 24) -> String {
        let text = s.text.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" }
        let short = text.count > maxText ? String(text.prefix(maxText - 3)) + "..." : String(text)
        return short.isEmpty ? s.symbology.rawValue : s.symbology.rawValue + " " + short
    }

    /// Line width and font scale for an image of this size.
    static func sizes(width: Int, height: Int) -> (line: Int, scale: Int) {
        let side = min(width, height)
        return (max(2, side / 240), max(1, side / 480))
    }

    /// Draws `annotations` on `image`: outlines first, then labels on top of every outline.
    package static func draw(_ annotations: [Annotation], on image: inout RGBImage) {
        guard image.width > 0, image.height > 0 else { return }
        let (line, scale) = sizes(width: image.width, height: image.height)
        let marks = annotations.filter { !$0.outline.isEmpty }.map { a in
            Annotation(outline: grown(a.outline, by: line), label: a.label, color: a.color)
        }
        for a in marks {
            for (i, p) in a.outline.enumerated() {
                drawLine(from: p, to: a.outline[(i + 1) % a.outline.count], width: line, color: a.color, on: &image)
            }
        }
        // Labels go where they cover no code and no other label (a dense photo keeps every code visible).
        let boxes = marks.map { Box(points: $0.outline) }
        var placed: [Box] = []
        for (i, a) in marks.enumerated() {
            let (box, fitted) = labelBox(a, line: line, scale: scale, width: image.width, height: image.height,
                                         avoiding: boxes.enumerated().filter { $0.offset != i }.map(\.element) + placed)
            placed.append(box)
            drawText(a.label, in: box, scale: fitted, color: a.color, on: &image)
        }
    }

    /// Marks a copy in which nothing was read: a red frame around the image and a note at its top
    /// left (an unmarked copy would look like a photo nobody scanned).
    package static func markNothingRead(on image: inout RGBImage) {
        guard image.width > 0, image.height > 0 else { return }
        let (line, scale) = sizes(width: image.width, height: image.height)
        let red = Color(r: 230, g: 40, b: 40)
        fill(x: 0, y: 0, width: image.width, height: line, color: red, on: &image)
        fill(x: 0, y: image.height - line, width: image.width, height: line, color: red, on: &image)
        fill(x: 0, y: 0, width: line, height: image.height, color: red, on: &image)
        fill(x: image.width - line, y: 0, width: line, height: image.height, color: red, on: &image)
        let text = "no code read"
        let pad = scale * 2
        let box = Box(x: line, y: line, width: min(image.width, text.utf8.count * Font.width * scale + 2 * pad), height: Font.height * scale + 2 * pad)
        drawText(text, in: box, scale: scale, color: red, on: &image)
    }

    /// A rectangle in pixels (a code's outline box or a label).
    struct Box: Equatable {
        var x: Int, y: Int, width: Int, height: Int
        init(x: Int, y: Int, width: Int, height: Int) { (self.x, self.y, self.width, self.height) = (x, y, width, height) }
        init(points: [Point]) {
            let xs = points.map(\.x), ys = points.map(\.y)
            self.init(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
        }
        func overlap(_ o: Box) -> Int {
            max(0, min(x + width, o.x + o.width) - max(x, o.x)) * max(0, min(y + height, o.y + o.height) - max(y, o.y))
        }
    }

    /// Where a label goes, and its font scale: above its code, else below, else beside it
    /// (right, then left), the first of these inside the image that covers no other code or
    /// label, at the image's scale or, on a dense photo, a smaller one; when every place covers
    /// something, the smallest scale's place that covers least.
    static func labelBox(_ a: Annotation, line: Int, scale: Int, width: Int, height: Int, avoiding others: [Box]) -> (Box, Int) {
        let own = Box(points: a.outline)
        // Its own code counts too: a label pushed back inside the image must not hide it.
        func cost(_ b: Box) -> Int { (others + [own]).reduce(0) { $0 + b.overlap($1) } }
        var best: Box?
        for s in stride(from: scale, through: 1, by: -1) {
            let pad = s * 2
            let w = min(width, a.label.utf8.count * Font.width * s + 2 * pad)
            let h = Font.height * s + 2 * pad
            let candidates = [
                (own.x, own.y - line - h), (own.x, own.y + own.height + line),
                (own.x + own.width - w, own.y - line - h), (own.x + own.width - w, own.y + own.height + line),
                (own.x + own.width + line, own.y), (own.x - line - w, own.y),
            ].map { x, y in Box(x: max(0, min(x, width - w)), y: max(0, min(y, height - h)), width: w, height: h) }
            if let free = candidates.first(where: { cost($0) == 0 }) { return (free, s) }
            best = candidates.min { cost($0) < cost($1) }
        }
        return (best!, 1)
    }

    /// The outline moved `d` pixels away from its centre: the line lies in the quiet zone, not
    /// on the code's own modules (an annotated copy still scans).
    static func grown(_ points: [Point], by d: Int) -> [Point] {
        let cx = Double(points.map(\.x).reduce(0, +)) / Double(points.count)
        let cy = Double(points.map(\.y).reduce(0, +)) / Double(points.count)
        return points.map { p in
            let dx = Double(p.x) - cx, dy = Double(p.y) - cy
            let len = max(1, (dx * dx + dy * dy).squareRoot())
            return Point(x: p.x + Int((dx / len * Double(d) * 1.5).rounded()), y: p.y + Int((dy / len * Double(d) * 1.5).rounded()))
        }
    }

    private static func fill(x: Int, y: Int, width: Int, height: Int, color: Color, on image: inout RGBImage) {
        let x0 = max(0, x), y0 = max(0, y), x1 = min(image.width, x + width), y1 = min(image.height, y + height)
        guard x0 < x1, y0 < y1 else { return }
        let w = image.width
        image.pixels.withUnsafeMutableBufferPointer { px in
            for yy in y0..<y1 {
                var i = (yy * w + x0) * 3
                for _ in x0..<x1 { px[i] = color.r; px[i + 1] = color.g; px[i + 2] = color.b; i += 3 }
            }
        }
    }

    /// A line `width` pixels thick: a square stamped at each step of Bresenham's line.
    private static func drawLine(from p: Point, to q: Point, width: Int, color: Color, on image: inout RGBImage) {
        var x = p.x, y = p.y
        let dx = abs(q.x - p.x), dy = -abs(q.y - p.y)
        let sx = p.x < q.x ? 1 : -1, sy = p.y < q.y ? 1 : -1
        var err = dx + dy
        let half = width / 2
        while true {
            fill(x: x - half, y: y - half, width: width, height: width, color: color, on: &image)
            if x == q.x && y == q.y { break }
            let e2 = 2 * err
            if e2 >= dy { err += dy; x += sx }
            if e2 <= dx { err += dx; y += sy }
        }
    }

    /// Text in black on `color`, in `box` (cut at its right edge).
    private static func drawText(_ text: String, in box: Box, scale: Int, color: Color, on image: inout RGBImage) {
        let pad = scale * 2
        fill(x: box.x, y: box.y, width: box.width, height: box.height, color: color, on: &image)
        let ink = Color(r: 0, g: 0, b: 0)
        for (n, c) in text.utf8.enumerated() {
            let gx = box.x + pad + n * Font.width * scale
            guard gx + Font.width * scale <= box.x + box.width else { break }
            let rows = c >= 0x20 && c < 0x7F ? Font.glyphs[Int(c) - 0x20] : Font.glyphs[Int(UInt8(ascii: "?")) - 0x20]
            for (ry, bits) in rows.enumerated() where bits != 0 {
                for rx in 0..<Font.width where bits & (0x80 >> rx) != 0 {
                    fill(x: gx + rx * scale, y: box.y + pad + ry * scale, width: scale, height: scale, color: ink, on: &image)
                }
            }
        }
    }
}
