/// A barcode symbology by its lowercase name (`qrcode`, `ean13`, ...), as scripts and flags spell it.
package struct Symbology: RawRepresentable, Hashable, Sendable, CustomStringConvertible, Comparable {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }
    package var description: String { rawValue }
    package static func < (a: Symbology, b: Symbology) -> Bool { a.rawValue < b.rawValue }

    /// One row of the symbology registry.
    package struct Entry: Sendable {
        /// What scripts, flags and records call it.
        package let name: String
        /// What `--format text` prints before the colon (zbarimg's name, from `zbar_get_symbol_name`).
        package let label: String
        /// zbar's `zbar_symbol_type_t` value, when zbar decodes it (checked against zbar by a test).
        package let zbarType: UInt32?
        /// zxing-cpp's format names for it (`ZXing_BarcodeFormatFromString`), when zxing-cpp reads it:
        /// the formats asked for, and how results are named (a result's own format, else its
        /// symbology's first entry here).
        package let zxing: [String]
        /// On when `--symbologies` is not given.
        package let onByDefault: Bool
        /// The symbology a reader without this variant reports it as (zbar reads a Code 32 as
        /// Code 39, a stacked DataBar as DataBar): the two readings are one code.
        package let readsAs: String?

        init(name: String, label: String, zbarType: UInt32? = nil, zxing: [String] = [], onByDefault: Bool = true,
             readsAs: String? = nil) {
            self.name = name
            self.label = label
            self.zbarType = zbarType
            self.zxing = zxing
            self.onByDefault = onByDefault
            self.readsAs = readsAs
        }
    }

    /// Every symbology a built-in decoder reads: the one list that flags, the prelude, the event
    /// strings, the decoders and the docs come from. Lua decoders add their own names at run time.
    package static let registry: [Entry] = [
        Entry(name: "qrcode", label: "QR-Code", zbarType: 64, zxing: ["QRCode"]),
        Entry(name: "ean13", label: "EAN-13", zbarType: 13, zxing: ["EAN13"]),
        Entry(name: "ean8", label: "EAN-8", zbarType: 8, zxing: ["EAN8"]),
        Entry(name: "upca", label: "UPC-A", zbarType: 12, zxing: ["UPCA"]),
        Entry(name: "upce", label: "UPC-E", zbarType: 9, zxing: ["UPCE"]),
        // Off by default: its 10-digit text would replace the 13-digit EAN of every book.
        Entry(name: "isbn10", label: "ISBN-10", zbarType: 10, onByDefault: false),
        Entry(name: "isbn13", label: "ISBN-13", zbarType: 14, zxing: ["ISBN"]),
        Entry(name: "ean2", label: "EAN-2", zbarType: 2, zxing: ["EAN2"]),
        Entry(name: "ean5", label: "EAN-5", zbarType: 5, zxing: ["EAN5"]),
        Entry(name: "i25", label: "I2/5", zbarType: 25, zxing: ["ITF", "ITF14"]),
        Entry(name: "databar", label: "DataBar", zbarType: 34, zxing: ["DataBarOmni"]),
        Entry(name: "databar-exp", label: "DataBar-Exp", zbarType: 35, zxing: ["DataBarExp"]),
        Entry(name: "codabar", label: "Codabar", zbarType: 38, zxing: ["Codabar"]),
        Entry(name: "code39", label: "CODE-39", zbarType: 39, zxing: ["Code39Std", "Code39Ext"]),
        Entry(name: "code93", label: "CODE-93", zbarType: 93, zxing: ["Code93"]),
        Entry(name: "code128", label: "CODE-128", zbarType: 128, zxing: ["Code128"]),
        Entry(name: "sqcode", label: "SQ-Code", zbarType: 80),
        // zxing-cpp only
        Entry(name: "datamatrix", label: "DataMatrix", zxing: ["DataMatrix"]),
        Entry(name: "pdf417", label: "PDF417", zxing: ["PDF417", "CompactPDF417"]),
        Entry(name: "micropdf417", label: "MicroPDF417", zxing: ["MicroPDF417"]),
        Entry(name: "aztec", label: "Aztec", zxing: ["Aztec"]),
        Entry(name: "microqr", label: "MicroQR", zxing: ["MicroQRCode"]),
        Entry(name: "rmqr", label: "rMQR", zxing: ["RMQRCode"]),
        Entry(name: "maxicode", label: "MaxiCode", zxing: ["MaxiCode"]),
        Entry(name: "databar-limited", label: "DataBar-Limited", zxing: ["DataBarLtd"]),
        Entry(name: "databar-stacked", label: "DataBar-Stacked", zxing: ["DataBarStk", "DataBarStkOmni"], readsAs: "databar"),
        Entry(name: "databar-exp-stacked", label: "DataBar-Exp-Stacked", zxing: ["DataBarExpStk"], readsAs: "databar-exp"),
        Entry(name: "code32", label: "Code32", zxing: ["Code32"], readsAs: "code39"),
        Entry(name: "pzn", label: "PZN", zxing: ["PZN"], readsAs: "code39"),
        Entry(name: "telepen", label: "Telepen", zxing: ["Telepen"]),
        Entry(name: "dxfilmedge", label: "DX-FilmEdge", zxing: ["DXFilmEdge"]),
    ]

    private static let byName: [String: Entry] = Dictionary(uniqueKeysWithValues: registry.map { ($0.name, $0) })

    /// The registry's names, in the order `--help` lists them.
    package static let knownNames: [String] = registry.map(\.name)

    /// Why `name` is no symbology of `known` (the registry's and the Lua decoders'), with the
    /// nearest name when one is close: what --symbologies and simulate --symbology say.
    package static func unknownName(_ name: String, known: [String]) -> String {
        let near = known.min { editDistance(name, $0) < editDistance(name, $1) }
            .flatMap { editDistance(name, $0) <= 2 ? " (did you mean '\($0)'?)" : nil } ?? ""
        return "unknown symbology '\(name)'\(near); known: \(known.joined(separator: ","))"
    }

    /// Levenshtein distance between two names, for "did you mean" in messages.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        var prev = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var cur = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return a.isEmpty ? b.count : prev[b.count]
    }

    /// What is on when `--symbologies` is not given.
    /// The EAN/UPC codes an EAN-2/EAN-5 add-on may follow.
    package static let eanUPC: Set<String> = ["ean13", "ean8", "upca", "upce", "isbn10", "isbn13"]
    /// The add-on symbologies.
    package static let addOns: Set<String> = ["ean2", "ean5"]
    /// The short product codes (UPC-E, EAN-8), which a reader can take from part of a long one
    /// (EAN-13, UPC-A, ISBN-13): see ``Symbol/isShortProductCode(inside:)``.
    package static let shortProductCodes: Set<String> = ["upce", "ean8"]
    package static let longProductCodes: Set<String> = ["ean13", "upca", "isbn13"]
    /// MaxiCode, which has a reader of its own for photos (``MaxiCodeReader``).
    package static let maxiCode = Symbology(rawValue: "maxicode")
    /// Matrix and stacked codes: no linear code is printed inside one (``Symbol/droppingLinearInsideMatrix(_:)``).
    package static let matrixCodes: Set<String> = ["qrcode", "microqr", "rmqr", "sqcode", "datamatrix", "aztec", "maxicode", "pdf417", "micropdf417"]

    package static let defaultSet: Set<Symbology> = Set(registry.filter(\.onByDefault).map { Symbology(rawValue: $0.name) })

    /// This symbology's registry row; nil for a Lua decoder's own name.
    package var entry: Entry? { Self.byName[rawValue] }

    /// The name `zbarimg` prints before the colon, for `--format text` (the name itself for Lua decoders).
    package var label: String { entry?.label ?? rawValue }
}
