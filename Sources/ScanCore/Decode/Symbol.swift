/// A point in source-image pixels.
package struct Point: Equatable, Sendable {
    package var x: Int
    package var y: Int
    package init(x: Int, y: Int) { self.x = x; self.y = y }
}

/// An axis-aligned box in source-image pixels.
package struct Box: Equatable, Sendable {
    package var x: Int, y: Int, width: Int, height: Int
    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// The smallest box holding every point (zero-sized when there are none).
    package init(enclosing points: [Point]) {
        guard let first = points.first else { self.init(x: 0, y: 0, width: 0, height: 0); return }
        var minX = first.x, maxX = first.x, minY = first.y, maxY = first.y
        for p in points {
            minX = min(minX, p.x); maxX = max(maxX, p.x)
            minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
        self.init(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }
}

/// One decoded code: its symbology, the payload bytes exactly as encoded, and where it was.
package struct Symbol: Equatable, Sendable {
    package var symbology: Symbology
    /// The payload exactly as encoded (QR is read in binary mode, so no charset conversion happened).
    package var bytes: [UInt8]
    /// Best-effort UTF-8 text of `bytes`; `charset` says what was assumed.
    package var text: String
    /// `utf-8`, `big5`, `gb18030`, `shift_jis`, `iso-8859-1` or `binary` (see ``TextDecoding``).
    package var charset: String
    /// Where the code is: a QR code's four corners as zbar gives them; for linear codes the convex
    /// hull of zbar's scan locations (which are edge points, not a polygon).
    package var points: [Point]
    package var bbox: Box
    /// `up`, `right`, `down`, `left` or `unknown`, as zbar reports it.
    package var orientation: String
    /// zbar's relative quality (higher is better; for QR, 1).
    package var quality: Int
    /// The most scan lines that read it in one pass the plan ran on the image at its full size
    /// (0 when only a reduced or enlarged copy the plan made read it; zxing-cpp may still have
    /// read it on a smaller copy of its own, `tryDownscale`): line counts of passes at one scale
    /// are compared (``outvotes(_:)``). Not part of the record.
    package var linesAtFullSize: Int
    /// `gs1` when the data starts with FNC1, `aim` when an AIM application indicator is present.
    package var modifiers: [String]
    /// For an EAN/UPC code with an EAN-2/EAN-5 add-on: the add-on digits.
    package var addon: String?
    /// Which decoder read it: `zbar`, `zxing`, `zbar+zxing` when both did, or `lua`.
    package var decoder = ""
    /// The AIM symbology identifier (ISO/IEC 15424), e.g. `]Q1`, when the decoder gives it.
    package var symbologyID: String?
    /// Error-correction level and version (size) as the decoder names them, e.g. `H` and `3`.
    package var ecLevel: String?
    package var version: String?
    /// The code was read white-on-black / as a mirror image.
    package var inverted: Bool?
    package var mirrored: Bool?
    /// The ECI the code declared for its text (then `text` follows it and `charset` names it).
    package var eci: Int?
    /// For a part of a structured-append sequence: its index (0-based), the number of parts, and
    /// the id the parts share.
    package var sequence: Sequence?
    /// For the whole message of a structured-append sequence: how many parts were joined.
    package var joinedParts: Int?
    /// For a structured-append part: its payload with the ECI designators in it (`\NNNNNN`,
    /// a literal backslash doubled), so the joined message follows charset changes between parts.
    package var eciPayload: [UInt8]?

    /// One part of a structured-append sequence.
    package struct Sequence: Equatable, Sendable {
        package var index: Int
        package var size: Int
        package var id: String
        package init(index: Int, size: Int, id: String) { self.index = index; self.size = size; self.id = id }
    }

    package init(symbology: Symbology, bytes: [UInt8], points: [Point] = [], orientation: String = "unknown",
                quality: Int = 0, modifiers: [String] = [], addon: String? = nil) {
        let decoded = TextDecoding.decode(bytes)
        self.symbology = symbology
        self.bytes = bytes
        self.text = decoded.text
        self.charset = decoded.charset
        self.points = points
        self.bbox = Box(enclosing: points)
        self.orientation = orientation
        self.quality = quality
        self.linesAtFullSize = quality
        self.modifiers = modifiers
        self.addon = addon
    }
}

extension Symbol {
    /// The `orientation` of a code whose top is turned `degrees` clockwise from up (zxing-cpp's
    /// angle, the MaxiCode reader's grid): the nearest quarter turn.
    package static func orientation(degrees: Int) -> String {
        switch (degrees % 360 + 360) % 360 {
        case 0..<45, 315..<360: return "up"
        case 45..<135: return "right"
        case 135..<225: return "down"
        default: return "left"
        }
    }
}
