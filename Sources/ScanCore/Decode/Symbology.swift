/// A barcode symbology by its lowercase name (`qrcode`, `ean13`, ...), as scripts and flags spell it.
public struct Symbology: RawRepresentable, Hashable, Sendable, CustomStringConvertible, Comparable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (a: Symbology, b: Symbology) -> Bool { a.rawValue < b.rawValue }

    /// The symbologies zbar decodes, in the order `--help` lists them.
    public static let zbarNames: [String] = [
        "qrcode", "ean13", "ean8", "upca", "upce", "isbn10", "isbn13", "ean2", "ean5",
        "i25", "databar", "databar-exp", "codabar", "code39", "code93", "code128", "sqcode",
    ]

    /// What is on when `--symbologies` is not given: every zbar symbology except `isbn10`,
    /// whose 10-digit text would replace the 13-digit EAN of every book (ask for it by name).
    public static let defaultNames: [String] = zbarNames.filter { $0 != "isbn10" }

    /// The name `zbarimg` prints before the colon, for `--format text`.
    public var zbarLabel: String {
        switch rawValue {
        case "qrcode": return "QR-Code"
        case "ean13": return "EAN-13"
        case "ean8": return "EAN-8"
        case "upca": return "UPC-A"
        case "upce": return "UPC-E"
        case "isbn10": return "ISBN-10"
        case "isbn13": return "ISBN-13"
        case "ean2": return "EAN-2"
        case "ean5": return "EAN-5"
        case "i25": return "I2/5"
        case "databar": return "DataBar"
        case "databar-exp": return "DataBar-Exp"
        case "codabar": return "Codabar"
        case "code39": return "CODE-39"
        case "code93": return "CODE-93"
        case "code128": return "CODE-128"
        case "sqcode": return "SQ-Code"
        default: return rawValue
        }
    }
}
