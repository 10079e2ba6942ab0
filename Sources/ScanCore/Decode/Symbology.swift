/// A barcode symbology by its lowercase name (`qrcode`, `ean13`, ...), as scripts and flags spell it.
public struct Symbology: RawRepresentable, Hashable, Sendable, CustomStringConvertible, Comparable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (a: Symbology, b: Symbology) -> Bool { a.rawValue < b.rawValue }

    /// One row of the symbology registry.
    public struct Entry: Sendable {
        /// What scripts, flags and records call it.
        public let name: String
        /// What `--format text` prints before the colon (zbarimg's name, from `zbar_get_symbol_name`).
        public let label: String
        /// zbar's `zbar_symbol_type_t` value, when zbar decodes it (checked against zbar by a test).
        public let zbarType: UInt32?
        /// On when `--symbologies` is not given.
        public let onByDefault: Bool
    }

    /// Every symbology a built-in decoder reads: the one list that flags, the prelude, the event
    /// strings, the decoders and the docs come from. Lua decoders add their own names at run time.
    public static let registry: [Entry] = [
        Entry(name: "qrcode", label: "QR-Code", zbarType: 64, onByDefault: true),
        Entry(name: "ean13", label: "EAN-13", zbarType: 13, onByDefault: true),
        Entry(name: "ean8", label: "EAN-8", zbarType: 8, onByDefault: true),
        Entry(name: "upca", label: "UPC-A", zbarType: 12, onByDefault: true),
        Entry(name: "upce", label: "UPC-E", zbarType: 9, onByDefault: true),
        // Off by default: its 10-digit text would replace the 13-digit EAN of every book.
        Entry(name: "isbn10", label: "ISBN-10", zbarType: 10, onByDefault: false),
        Entry(name: "isbn13", label: "ISBN-13", zbarType: 14, onByDefault: true),
        Entry(name: "ean2", label: "EAN-2", zbarType: 2, onByDefault: true),
        Entry(name: "ean5", label: "EAN-5", zbarType: 5, onByDefault: true),
        Entry(name: "i25", label: "I2/5", zbarType: 25, onByDefault: true),
        Entry(name: "databar", label: "DataBar", zbarType: 34, onByDefault: true),
        Entry(name: "databar-exp", label: "DataBar-Exp", zbarType: 35, onByDefault: true),
        Entry(name: "codabar", label: "Codabar", zbarType: 38, onByDefault: true),
        Entry(name: "code39", label: "CODE-39", zbarType: 39, onByDefault: true),
        Entry(name: "code93", label: "CODE-93", zbarType: 93, onByDefault: true),
        Entry(name: "code128", label: "CODE-128", zbarType: 128, onByDefault: true),
        Entry(name: "sqcode", label: "SQ-Code", zbarType: 80, onByDefault: true),
    ]

    private static let byName: [String: Entry] = Dictionary(uniqueKeysWithValues: registry.map { ($0.name, $0) })

    /// The registry's names, in the order `--help` lists them.
    public static let knownNames: [String] = registry.map(\.name)

    /// What is on when `--symbologies` is not given.
    public static let defaultSet: Set<Symbology> = Set(registry.filter(\.onByDefault).map { Symbology(rawValue: $0.name) })

    /// This symbology's registry row; nil for a Lua decoder's own name.
    public var entry: Entry? { Self.byName[rawValue] }

    /// The name `zbarimg` prints before the colon, for `--format text` (the name itself for Lua decoders).
    public var label: String { entry?.label ?? rawValue }
}
