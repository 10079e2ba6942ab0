// The only Swift file that calls zxing-cpp (its C API, ZXingC.h). Every non-const pointer a
// ZXing_ function returns is ours to free (ZXing_free, or the matching _delete).
internal import CZXing
import Foundation

/// How hard zxing-cpp tries (`--effort`): the speed/coverage presets of scanner SDKs.
package enum Effort: String, CaseIterable, Sendable {
    /// One pass: no rotation, inversion or downscaling retries.
    case fast
    /// zxing-cpp's defaults minus `tryHarder`'s slowest searches on large frames.
    case balanced
    /// Every binarizer, inversion, rotation and downscale.
    case thorough
}

/// Decodes every code zxing-cpp 3.1 finds in a grayscale image.
///
/// Owns one `ZXing_ReaderOptions` (freed in deinit). zxing-cpp keeps no shared mutable state
/// but its thread-local last error, so one decoder per worker thread is safe.
package final class ZXingDecoder: FrameDecoder {
    private let options: OpaquePointer
    private let effort: Effort

    /// zxing-cpp's format for each format name of the registry, and back.
    private static let formats: [(name: String, format: ZXing_BarcodeFormat)] = Symbology.registry.flatMap { e in
        e.zxing.map { (e.name, ZXing_BarcodeFormatFromString($0)) }
    }
    private static let names: [UInt32: String] = Dictionary(formats.map { ($0.format.rawValue, $0.name) }, uniquingKeysWith: { a, _ in a })
    /// For results whose own format is not listed: the first registry name with a format of its symbology.
    private static let symbologyNames: [UInt32: String] = Dictionary(
        formats.map { (ZXing_BarcodeFormatSymbology($0.format).rawValue, $0.name) }, uniquingKeysWith: { a, _ in a })

    /// The registry's zxing format names that zxing-cpp does not know (a test keeps this empty).
    package static var unknownFormatNames: [String] {
        Symbology.registry.flatMap(\.zxing).filter { ZXing_BarcodeFormatFromString($0) == ZXing_BarcodeFormat_Invalid }
    }

    /// - Parameters: `symbologies` to enable (names zxing-cpp does not read are ignored);
    ///   `reportFailures`: also keep where codes were found but not decoded (``decodeReporting(_:)``);
    ///   `pure`: images of one code and nothing else, black 0 and white 255 (``MaxiCodeReader``'s);
    ///   `invert`: false to skip the effort's retry for white-on-black codes (``StillRetries``'
    ///   passes after the first read, which looked for them, and its tiles where the codes read
    ///   show that none is).
    package init(symbologies: Set<Symbology>, effort: Effort = .balanced, reportFailures: Bool = false, pure: Bool = false, invert: Bool = true) {
        guard let o = ZXing_ReaderOptions_new() else { preconditionFailure("ZXing_ReaderOptions_new failed") }
        options = o
        self.effort = effort
        var wanted = Self.formats.filter { symbologies.contains(Symbology(rawValue: $0.name)) }.map(\.format)
        // Add-ons are read with their EAN/UPC code (EanAddOnSymbol), not on their own.
        wanted.removeAll { $0 == ZXing_BarcodeFormat_EAN2 || $0 == ZXing_BarcodeFormat_EAN5 }
        ZXing_ReaderOptions_setFormats(options, wanted, Int32(wanted.count))
        ZXing_ReaderOptions_setTextMode(options, ZXing_TextMode_Plain)
        let addons = symbologies.contains(Symbology(rawValue: "ean2")) || symbologies.contains(Symbology(rawValue: "ean5"))
        ZXing_ReaderOptions_setEanAddOnSymbol(options, addons ? ZXing_EanAddOnSymbol_Read : ZXing_EanAddOnSymbol_Ignore)
        switch effort {
        case .fast:
            ZXing_ReaderOptions_setTryHarder(options, false)
            ZXing_ReaderOptions_setTryRotate(options, false)
            ZXing_ReaderOptions_setTryInvert(options, false)
            ZXing_ReaderOptions_setTryDownscale(options, false)
        case .balanced:
            ZXing_ReaderOptions_setTryHarder(options, true)
            ZXing_ReaderOptions_setTryRotate(options, true)
            ZXing_ReaderOptions_setTryInvert(options, true)
            ZXing_ReaderOptions_setTryDownscale(options, true)
        case .thorough:
            ZXing_ReaderOptions_setTryHarder(options, true)
            ZXing_ReaderOptions_setTryRotate(options, true)
            ZXing_ReaderOptions_setTryInvert(options, true)
            ZXing_ReaderOptions_setTryDownscale(options, true)
            ZXing_ReaderOptions_setMinLineCount(options, 1)
        }
        if !invert { ZXing_ReaderOptions_setTryInvert(options, false) }
        ZXing_ReaderOptions_setReturnErrors(options, reportFailures)
        if pure {
            ZXing_ReaderOptions_setIsPure(options, true)
            ZXing_ReaderOptions_setBinarizer(options, ZXing_Binarizer_FixedThreshold)
        }
        self.wantsNothing = wanted.isEmpty
        self.wanted = Set(symbologies.map(\.rawValue))
    }

    private let wantsNothing: Bool
    /// Results of other symbologies (a symbology's format reads all its variants) are dropped.
    private let wanted: Set<String>

    deinit { ZXing_ReaderOptions_delete(options) }

    package func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] {
        guard !wantsNothing else { return [] }
        return image.decode(inside: region, decode)
    }

    /// Whether any of the wanted formats is zxing-cpp's.
    package var readsSomething: Bool { !wantsNothing }

    /// Every valid symbol zxing-cpp finds in `image` (results with a checksum or format error are
    /// not symbols). The corresponding C function is `ZXing_ReadBarcodes`.
    package func decode(_ image: GrayImage) -> [Symbol] { decodeReporting(image).symbols }

    /// A code zxing-cpp found but could not decode (a checksum or format error): where a retry may read more.
    package struct Failure: Equatable, Sendable {
        package var symbology: Symbology
        package var box: Box
        /// Its corners as zxing-cpp placed them (top left, top right, bottom right, bottom left
        /// of the code as read), for ``QRGridFit``.
        package var corners: [Point]
        /// A QR code's version (1-40) as its failed read took it; nil for other codes and Micro QR.
        package var version: Int?
        package init(symbology: Symbology, box: Box, corners: [Point] = [], version: Int? = nil) {
            self.symbology = symbology
            self.box = box
            self.corners = corners
            self.version = version
        }

        /// The failure in an image `k` times as large, moved by (`dx`, `dy`) first.
        func moved(dx: Int, dy: Int, scale k: Int) -> Failure {
            Failure(symbology: symbology, box: Box(x: (box.x + dx) * k, y: (box.y + dy) * k, width: box.width * k, height: box.height * k),
                    corners: corners.map { Point(x: ($0.x + dx) * k, y: ($0.y + dy) * k) }, version: version)
        }
    }

    /// The valid symbols, and (with `reportFailures`) the codes zxing-cpp found but could not decode.
    package func decodeReporting(_ image: GrayImage) -> (symbols: [Symbol], failures: [Failure]) {
        guard image.width > 0, image.height > 0, !wantsNothing else { return ([], []) }
        return image.pixels.withUnsafeBufferPointer { buf -> ([Symbol], [Failure]) in
            // The view does not copy: the buffer outlives the read.
            guard let view = ZXing_ImageView_new_checked(buf.baseAddress, Int32(buf.count), Int32(image.width),
                                                         Int32(image.height), ZXing_ImageFormat_Lum, 0, 0) else { return ([], []) }
            defer { ZXing_ImageView_delete(view) }
            guard let list = ZXing_ReadBarcodes(view, options) else { return ([], []) }
            defer { ZXing_Barcodes_delete(list) }
            var symbols: [Symbol] = []
            var failures: [Failure] = []
            for i in 0..<ZXing_Barcodes_size(list) {
                guard let b = ZXing_Barcodes_at(list, i) else { continue }
                guard ZXing_Barcode_isValid(b), ZXing_Barcode_errorType(b) == ZXing_ErrorType_None else {
                    let p = ZXing_Barcode_position(b), format = ZXing_Barcode_format(b)
                    // A failure of a format this wrapper does not name keeps an empty name (the
                    // retries' check counts it as a QR code's: see StillRetries.qrFamily).
                    let name = Self.names[format.rawValue] ?? Self.symbologyNames[ZXing_BarcodeFormatSymbology(format).rawValue] ?? ""
                    let corners = [p.topLeft, p.topRight, p.bottomRight, p.bottomLeft].map { Point(x: Int($0.x), y: Int($0.y)) }
                    // "Version" is a QR code's number ("4"), Micro QR's "M2": only numbers are kept.
                    let version = Self.string(ZXing_Barcode_extra(b, "Version")).flatMap { Int($0) }
                    failures.append(Failure(symbology: Symbology(rawValue: name), box: Box(enclosing: corners), corners: corners, version: version))
                    continue
                }
                guard var symbol = Self.symbol(from: b) else { continue }
                symbol = Self.namedLikeZBar(symbol, wanted: wanted)
                guard wanted.contains(symbol.symbology.rawValue) else { continue }
                // zxing-cpp puts corners one past the last module: inside the image they go.
                symbols.append(symbol.clamped(width: image.width, height: image.height))
            }
            return (symbols, failures)
        }
    }

    /// zxing-cpp reports UPC-A and ISBN codes as EAN-13; zbar (and the registry) name them
    /// `upca` (12 digits) and `isbn13` when those are asked for, so both decoders agree.
    static func namedLikeZBar(_ s: Symbol, wanted: Set<String>) -> Symbol {
        if s.symbology.rawValue == "upce", s.bytes.count == 13, let short = Self.upceDigits(expanded: s.bytes) {
            // zxing-cpp 3 gives a UPC-E as its 13-digit EAN form; zbar (and the code itself) has 8.
            var renamed = Symbol(symbology: s.symbology, bytes: short, points: s.points, orientation: s.orientation,
                                 quality: s.quality, modifiers: s.modifiers, addon: s.addon)
            renamed.decoder = s.decoder
            renamed.symbologyID = s.symbologyID
            renamed.inverted = s.inverted
            renamed.mirrored = s.mirrored
            return renamed
        }
        guard s.symbology.rawValue == "ean13", s.bytes.count == 13 else { return s }
        var renamed: Symbol
        if s.bytes.first == UInt8(ascii: "0"), wanted.contains("upca") {
            renamed = Symbol(symbology: Symbology(rawValue: "upca"), bytes: Array(s.bytes.dropFirst()), points: s.points,
                             orientation: s.orientation, quality: s.quality, modifiers: s.modifiers, addon: s.addon)
        } else if s.bytes.starts(with: Array("978".utf8)) || s.bytes.starts(with: Array("979".utf8)), wanted.contains("isbn13") {
            renamed = Symbol(symbology: Symbology(rawValue: "isbn13"), bytes: s.bytes, points: s.points,
                             orientation: s.orientation, quality: s.quality, modifiers: s.modifiers, addon: s.addon)
        } else {
            return s
        }
        renamed.decoder = s.decoder
        renamed.symbologyID = s.symbologyID
        renamed.inverted = s.inverted
        renamed.mirrored = s.mirrored
        return renamed
    }

    /// The 8 digits of a UPC-E (number system, six digits, check) from its 13-digit EAN form
    /// (`0` and the UPC-A it expands to), or nil when no UPC-E expands to it.
    static func upceDigits(expanded bytes: [UInt8]) -> [UInt8]? {
        let d = bytes.map { Int($0) - 48 }
        guard d.count == 13, d[0] == 0, d.allSatisfy({ (0...9).contains($0) }), d[1] <= 1 else { return nil }
        let a = Array(d.dropFirst())  // UPC-A: number system, ten digits, check
        func expand(_ e: [Int]) -> [Int] {
            switch e[5] {
            case 0...2: return [a[0], e[0], e[1], e[5], 0, 0, 0, 0, e[2], e[3], e[4]]
            case 3: return [a[0], e[0], e[1], e[2], 0, 0, 0, 0, 0, e[3], e[4]]
            case 4: return [a[0], e[0], e[1], e[2], e[3], 0, 0, 0, 0, 0, e[4]]
            default: return [a[0], e[0], e[1], e[2], e[3], e[4], 0, 0, 0, 0, e[5]]
            }
        }
        let candidates = [[a[1], a[2], a[8], a[9], a[10], a[3]], [a[1], a[2], a[3], a[9], a[10], 3],
                          [a[1], a[2], a[3], a[4], a[10], 4], [a[1], a[2], a[3], a[4], a[5], a[10]]]
        guard let six = candidates.first(where: { expand($0) == Array(a[0..<11]) }) else { return nil }
        return ([a[0]] + six + [a[11]]).map { UInt8($0 + 48) }
    }

    private static func string(_ p: UnsafeMutablePointer<CChar>?) -> String? {
        guard let p else { return nil }
        defer { ZXing_free(p) }
        return String(cString: p)
    }

    private static func symbol(from b: OpaquePointer) -> Symbol? {
        let format = ZXing_Barcode_format(b)
        guard let name = names[format.rawValue] ?? symbologyNames[ZXing_BarcodeFormatSymbology(format).rawValue] else { return nil }
        var n: Int32 = 0
        guard let raw = ZXing_Barcode_bytes(b, &n) else { return nil }
        var bytes = [UInt8](UnsafeBufferPointer(start: raw, count: Int(n)))
        ZXing_free(raw)
        let id = string(ZXing_Barcode_symbologyIdentifier(b))
        let extra = string(ZXing_Barcode_extra(b, nil)).flatMap { JSON(parsing: Array($0.utf8)) }
        // EAN/UPC add-ons come right after the main digits (or after a space): the add-on goes to `addon`.
        var addon: String?
        if case .string(let a)? = extra?["EanAddOn"], !a.isEmpty, bytes.count > a.utf8.count,
           bytes.suffix(a.utf8.count).elementsEqual(a.utf8) {
            addon = a
            bytes = Array(bytes.dropLast(a.utf8.count))
            if bytes.last == 0x20 { bytes.removeLast() }
        }
        let p = ZXing_Barcode_position(b)
        let corners = [p.topLeft, p.topRight, p.bottomRight, p.bottomLeft].map { Point(x: Int($0.x), y: Int($0.y)) }
        let orientation = Symbol.orientation(degrees: Int(ZXing_Barcode_orientation(b)))
        let gs1 = ZXing_Barcode_contentType(b) == ZXing_ContentType_GS1
        var symbol = Symbol(symbology: Symbology(rawValue: name), bytes: bytes, points: corners, orientation: orientation,
                            quality: Int(max(1, ZXing_Barcode_lineCount(b))), modifiers: gs1 ? ["gs1"] : [], addon: addon)
        symbol.decoder = "zxing"
        symbol.symbologyID = id
        if case .string(let level)? = extra?["ECLevel"] { symbol.ecLevel = level }
        switch extra?["Version"] {
        case .string(let v)?: symbol.version = v
        case .int(let v)?: symbol.version = String(v)
        default: break
        }
        symbol.inverted = ZXing_Barcode_isInverted(b)
        symbol.mirrored = ZXing_Barcode_isMirrored(b)
        if ZXing_Barcode_hasECI(b), let eci = declaredECI(b) {
            // The code says what its text is: take zxing-cpp's conversion, name the charset.
            symbol.eci = eci
            if let text = string(ZXing_Barcode_text(b)) {
                symbol.text = text
                symbol.charset = ECI.charsetName(eci)
            }
        }
        let size = Int(ZXing_Barcode_sequenceSize(b))
        if size > 1 {
            symbol.sequence = Symbol.Sequence(index: Int(ZXing_Barcode_sequenceIndex(b)), size: size,
                                              id: string(ZXing_Barcode_sequenceId(b)) ?? "")
            symbol.eciPayload = eciPayload(b)
        }
        return symbol
    }

    /// The content with its ECI designators, after the three-byte symbology identifier of `bytesECI`.
    private static func eciPayload(_ b: OpaquePointer) -> [UInt8]? {
        var n: Int32 = 0
        guard let raw = ZXing_Barcode_bytesECI(b, &n) else { return nil }
        defer { ZXing_free(raw) }
        let bytes = [UInt8](UnsafeBufferPointer(start: raw, count: Int(n)))
        return bytes.count >= 3 && bytes[0] == UInt8(ascii: "]") ? Array(bytes.dropFirst(3)) : bytes
    }

    /// The first ECI of the content: `bytesECI` is the symbology identifier, then `\NNNNNN`.
    private static func declaredECI(_ b: OpaquePointer) -> Int? {
        var n: Int32 = 0
        guard let raw = ZXing_Barcode_bytesECI(b, &n) else { return nil }
        defer { ZXing_free(raw) }
        let bytes = [UInt8](UnsafeBufferPointer(start: raw, count: Int(n)))
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "\\")), slash + 7 <= bytes.count else { return nil }
        return Int(String(decoding: bytes[(slash + 1)..<(slash + 7)], as: UTF8.self))
    }
}

@available(*, unavailable) extension ZXingDecoder: Sendable {}
