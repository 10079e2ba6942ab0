import Foundation

/// One record, as `scanlua scan` prints it in NDJSON (the README's `scanlua scan` section): a decoded symbol with what
/// the scripts made of it, an input that could not be read (``error``), or, with
/// ``ScanSettings/emptyRecords``, a frame in which nothing was read (``symbols`` is 0); and a
/// frame without codes whose passes were cut short (only ``warnings``, such as a spent time budget).
///
/// It decodes from and encodes to the NDJSON record: `JSONDecoder().decode(ScanRecord.self, from: line)`.
public struct ScanRecord: Codable, Sendable, Equatable {
    /// A corner or point of a symbol, in frame pixels; `[x, y]` in JSON, as the NDJSON record has it.
    public struct Point: Codable, Sendable, Equatable {
        /// Pixels from the frame's left edge.
        public var x: Int
        /// Pixels from the frame's top edge.
        public var y: Int
        /// A point at `x`, `y`.
        public init(x: Int, y: Int) { self.x = x; self.y = y }

        /// Decodes `[x, y]`.
        public init(from decoder: any Decoder) throws {
            var pair = try decoder.unkeyedContainer()
            x = try pair.decode(Int.self)
            y = try pair.decode(Int.self)
        }

        /// Encodes `[x, y]`.
        public func encode(to encoder: any Encoder) throws {
            var pair = encoder.unkeyedContainer()
            try pair.encode(x)
            try pair.encode(y)
        }
    }

    /// The symbol's axis-aligned box, in frame pixels.
    public struct BoundingBox: Codable, Sendable, Equatable {
        /// The left edge, in pixels from the frame's.
        public var x: Int
        /// The top edge, in pixels from the frame's.
        public var y: Int
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// A box at `x`, `y` of `width` by `height` pixels.
        public init(x: Int, y: Int, width: Int, height: Int) { self.x = x; self.y = y; self.width = width; self.height = height }
    }

    /// A structured-append part: its place in the sequence and the sequence's id.
    public struct Sequence: Codable, Sendable, Equatable {
        /// This part's place, from 0.
        public var index: Int
        /// How many parts the sequence has.
        public var size: Int
        /// The sequence's id (its parity byte or file id), shared by its parts.
        public var id: String
        /// A part `index` of `size` of sequence `id`.
        public init(index: Int, size: Int, id: String) { self.index = index; self.size = size; self.id = id }
    }

    /// The file path, stream, device, or the name given to a buffer.
    public var source: String
    /// The frame's index in its source (0 for an image file; an animated GIF's frame).
    public var frame: Int
    /// A document's page (PDF, TIFF), from 1; nil for images and streams.
    public var page: Int?
    /// The file's name exactly, when it is not UTF-8 (``source`` then shows those bytes as `\xff`).
    public var sourceBytes: Data?
    /// The symbology (`qrcode`, `ean13`, ...); nil for an error or empty record.
    public var symbology: String?
    /// The payload as text (its ``charset`` decoded).
    public var text: String?
    /// How ``bytes`` were read as ``text``: `utf-8`, `iso-8859-1`, `shift_jis`, `binary`, ...
    public var charset: String?
    /// The payload's exact bytes.
    public var bytes: Data?
    /// The symbol's corners (four for 2D codes and boxes, two for a 1D scan line).
    public var points: [Point]?
    /// The symbol's box.
    public var bbox: BoundingBox?
    /// `up`, `right`, `down`, `left` or `unknown`.
    public var orientation: String?
    /// The decoder's confidence (zbar's count of agreeing scans; 1 for zxing-cpp).
    public var quality: Int?
    /// Which decoder read it: `zbar`, `zxing`, `gray`, or a Lua decoder's name.
    public var decoder: String?
    /// The AIM symbology identifier (`]Q1`, `]E0`, ...).
    public var symbologyID: String?
    /// The Extended Channel Interpretation the payload declared (26: UTF-8).
    public var eci: Int?
    /// The error-correction level (`L`, `M`, `Q`, `H` for QR codes; a percentage for Aztec).
    public var ecLevel: String?
    /// The symbol's version (a QR code's 1-40, a DataMatrix's size).
    public var version: String?
    /// True when the code was read light on dark.
    public var inverted: Bool?
    /// True when the code was read mirrored.
    public var mirrored: Bool?
    /// The structured-append part this symbol is, when it is one.
    public var sequence: Sequence?
    /// How many structured-append parts were joined into this record.
    public var joinedParts: Int?
    /// Reading modifiers: `gs1`, `iso15434`, ...
    public var modifiers: [String]?
    /// An EAN/UPC add-on's digits.
    public var addon: String?
    /// What the claiming parser made of the payload (`{"type": "url", ...}`; `{"type": "raw"}` when none claimed it).
    public var payload: JSONValue?
    /// The actions the rules took, as data.
    public var actions: [JSONValue]?
    /// What rules emitted with `ctx.emit`.
    public var emitted: [JSONValue]?
    /// Script errors on this symbol, each naming the handler and `file:line`.
    public var errors: [JSONValue]?
    /// What was skipped on this frame (a spent time budget).
    public var warnings: [String]?
    /// Why the input could not be read: an error record.
    public var error: String?
    /// 0 in an empty record.
    public var symbols: Int?
    /// In an empty record: codes read again that the duplicates policy dropped.
    public var repeated: Int?
    /// The payload in a few lines for people (a handler's `scan.summary`; what `scanlua scan --format text`
    /// prints under the code); nil when no summary is registered for its type. Not part of the NDJSON record.
    public var summary: String?

    enum CodingKeys: String, CodingKey {
        case source, sourceBytes = "source_bytes", frame, page, symbology, text, charset, bytes, points, bbox, orientation, quality, decoder
        case symbologyID = "symbology_id", eci, ecLevel = "ec_level", version, inverted, mirrored, sequence
        case joinedParts = "joined_parts", modifiers, addon, payload, actions, emitted, errors, warnings, error, symbols, repeated
        case summary
    }
}

/// A JSON value: a record's payload, actions, emitted values and errors.
public enum JSONValue: Codable, Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent.
    case int(Int)
    /// A number with a fraction or exponent.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object (its members' order is not kept).
    case object([String: JSONValue])

    /// The member `key` of an object; nil for anything else or a missing key.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array; nil for anything else or an index out of range.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let items) = self, items.indices.contains(index) { return items[index] }
        return nil
    }

    /// The text of a string value.
    public var string: String? { if case .string(let s) = self { return s }; return nil }
    /// An integer, or a double without a fraction.
    public var int: Int? {
        switch self {
        case .int(let n): return n
        case .double(let d) where d == d.rounded() && abs(d) < 9e18: return Int(d)
        default: return nil
        }
    }
    /// Any number, as a double.
    public var double: Double? {
        switch self {
        case .int(let n): return Double(n)
        case .double(let d): return d
        default: return nil
        }
    }
    /// The value of a boolean.
    public var bool: Bool? { if case .bool(let b) = self { return b }; return nil }

    /// Decodes any JSON value (a number without a fraction as ``int(_:)``).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Int.self) { self = .int(n) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    /// Encodes the value as JSON.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let n): try c.encode(n)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}
