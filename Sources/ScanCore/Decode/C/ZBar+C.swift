// The only Swift file that imports zbar. `c_foo` wraps nothing here: zbar's API is plain C
// and imports as is; this file owns the scanner handle and turns zbar symbols into ``Symbol``s.
internal import CZBar

/// Decodes every code zbar finds in a grayscale image.
///
/// Makes a fresh `zbar_image_scanner_t` for every image: zbar's QR reader draws from an ISAAC
/// random generator seeded once per scanner, so a reused scanner gave an image other corner
/// points depending on the images it had seen before (records then differed between thread
/// counts and folder neighbours). A scanner costs a few microseconds to make.
package final class ZBarDecoder: LinearDecoder {
    private let wanted: Set<String>
    private let enabled: [zbar_symbol_type_t]
    /// `enabled` without the matrix codes and EAN/UPC (``decodeLinear(_:region:info:)``).
    private let linear: [zbar_symbol_type_t]
    /// `enabled`'s EAN/UPC codes and add-ons (``decodeAddOns(_:)``).
    private let productCodes: [zbar_symbol_type_t]
    private let inverted: Bool

    /// zbar's symbol type for each registry name zbar decodes (``Symbology/registry``).
    private static let types: [String: zbar_symbol_type_t] = Dictionary(uniqueKeysWithValues:
        Symbology.registry.compactMap { e in e.zbarType.map { (e.name, zbar_symbol_type_t(rawValue: $0)) } })
    private static let names: [UInt32: String] = Dictionary(uniqueKeysWithValues: types.map { ($1.rawValue, $0) })

    /// zbar's own name for a symbol type: what `zbarimg` prints (the registry's label must match it).
    /// The corresponding C function is `zbar_get_symbol_name`.
    package static func zbarName(ofType type: UInt32) -> String {
        String(cString: zbar_get_symbol_name(zbar_symbol_type_t(rawValue: type)))
    }

    /// - Parameters: `symbologies`: the names to enable; names zbar does not decode are ignored.
    ///   `inverted`: retry on the inverted image when the normal pass finds nothing (off when
    ///   zxing-cpp, which tries inverted codes itself, reads the same frames).
    package init(symbologies: Set<Symbology>, inverted: Bool = true) {
        wanted = Set(symbologies.map(\.rawValue))
        var enable = wanted
        // zbar derives UPC-A and ISBN from an EAN-13 read: it needs EAN-13 on for them (filtered out below).
        if !enable.isDisjoint(with: ["upca", "isbn10", "isbn13"]) { enable.insert("ean13") }
        enabled = enable.sorted().compactMap { Self.types[$0] }
        // EAN/UPC beside another code is the gray-level reader's (DecodePlan): zbar's misread
        // EAN-13 4319213141902 beside a Code 39 took the place of its true reading (a review
        // helper's blurred product labels).
        linear = enable.subtracting(Symbology.matrixCodes).subtracting(Symbology.eanUPC).subtracting(Symbology.addOns)
            .sorted().compactMap { Self.types[$0] }
        productCodes = enable.intersection(Symbology.eanUPC.union(Symbology.addOns)).sorted().compactMap { Self.types[$0] }
        self.inverted = inverted
    }

    /// A scanner for `types` that scans every `density`-th row and column. The caller destroys it.
    private func makeScanner(_ types: [zbar_symbol_type_t], density: Int32) -> OpaquePointer {
        guard let scanner = zbar_image_scanner_create() else { preconditionFailure("zbar_image_scanner_create failed") }
        // Everything off first: zbar enables a default subset otherwise.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for type in types { zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_ENABLE, 1) }
        // Raw QR bytes: zbar's own charset guess tries Shift-JIS first and garbles Big5 and UTF-8.
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_SQCODE, ZBAR_CFG_BINARY, 1)
        // White-on-black codes: zbar retries on the inverted image when the normal pass finds nothing.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_TEST_INVERTED, inverted ? 1 : 0)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, density)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, density)
        return scanner
    }

    package func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] {
        guard !wanted.isEmpty else { return [] }
        return image.decode(inside: region) { decode($0, types: enabled) }
    }

    /// Linear codes only (beside a code zxing-cpp read): every fourth row and column, as a
    /// linear code's bars run across many (on the BoofCV photos, where this runs on most images,
    /// zbar's share of the CPU time went from 5% to 11% scanning every line, 8.5% so; a review
    /// helper's labels read the same).
    package func decodeLinear(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] {
        guard !linear.isEmpty else { return [] }
        return image.decode(inside: region) { decode($0, types: linear, density: 4) }
    }

    package func decodeAddOns(_ image: GrayImage) -> [Symbol] {
        guard wanted.contains(where: Symbology.addOns.contains) else { return [] }
        return decode(image, types: productCodes).filter { Symbology.addOns.contains($0.symbology.rawValue) }
    }

    /// Every symbol zbar finds in `image`, in zbar's order.
    /// The corresponding C function is `zbar_scan_image`.
    package func decode(_ image: GrayImage) -> [Symbol] { decode(image, types: enabled) }

    private func decode(_ image: GrayImage, types: [zbar_symbol_type_t], density: Int32 = 1) -> [Symbol] {
        guard image.width > 0, image.height > 0 else { return [] }
        let scanner = makeScanner(types, density: density)
        defer { zbar_image_scanner_destroy(scanner) }
        guard let zimage = zbar_image_create() else { preconditionFailure("zbar_image_create failed") }
        defer { zbar_image_destroy(zimage) }
        zbar_image_set_format(zimage, Self.fourcc("Y800"))
        zbar_image_set_size(zimage, UInt32(image.width), UInt32(image.height))
        return image.pixels.withUnsafeBufferPointer { buf -> [Symbol] in
            // zbar only reads the buffer during zbar_scan_image; no cleanup handler is needed.
            zbar_image_set_data(zimage, buf.baseAddress, UInt(buf.count), nil)
            guard zbar_scan_image(scanner, zimage) > 0 else { return [] }
            var symbols: [Symbol] = []
            var sym = zbar_image_first_symbol(zimage)
            while let s = sym {
                if let symbol = Self.symbol(from: s), wanted.contains(symbol.symbology.rawValue), Self.credible(symbol) { symbols.append(symbol) }
                sym = zbar_symbol_next(s)
            }
            // zbar puts QR corners one past the last module: inside the image they go.
            return Symbol.attachingAddOns(symbols).map { $0.clamped(width: image.width, height: image.height) }
        }
    }

    /// Linear symbologies whose check is weak or optional (I2/5 has none, Code 39 and Codabar an
    /// optional one): a stretch of another code's bars can decode as one of them.
    static let weakCheck: Set<String> = ["i25", "code39", "codabar"]

    /// Whether a zbar reading may stand. zbar keeps a linear reading that one scan line decoded;
    /// its quality counts the lines that did. On degraded codes, I2/5, Code 39 and Codabar
    /// readings from one or two lines were pieces of something else (`000000`, `636363` and
    /// `000000047763` in one Leitcode; `51991112` in a dark EAN-13; `03280563` beside the
    /// luggage tag's `0328056306`), while genuine ones on the corpus came from 4 lines or more
    /// (I2/5), 24 (Codabar) and 31 (Code 39). A reading with no data at all (a Code 128 of
    /// start, check and stop only) is not a linear code.
    static func credible(_ symbol: Symbol) -> Bool {
        guard !symbol.bytes.isEmpty || ["qrcode", "sqcode"].contains(symbol.symbology.rawValue) else { return false }
        return !weakCheck.contains(symbol.symbology.rawValue) || symbol.quality >= 3
    }

    private static func symbol(from s: OpaquePointer) -> Symbol? {
        var type = zbar_symbol_get_type(s)
        var bytes = data(of: s)
        var addon: String?
        // An EAN/UPC code with an add-on comes as a composite whose components are the main code and the add-on.
        if type == ZBAR_COMPOSITE, let set = zbar_symbol_get_components(s) {
            var part = zbar_symbol_set_first_symbol(set)
            var main: (zbar_symbol_type_t, [UInt8])?
            while let p = part {
                let t = zbar_symbol_get_type(p)
                if t == ZBAR_EAN2 || t == ZBAR_EAN5 {
                    addon = String(decoding: data(of: p), as: UTF8.self)
                } else {
                    main = (t, data(of: p))
                }
                part = zbar_symbol_next(p)
            }
            guard let main else { return nil }
            (type, bytes) = main
        }
        guard let name = names[type.rawValue] else { return nil }
        var points: [Point] = []
        let n = zbar_symbol_get_loc_size(s)
        for i in 0..<n {
            points.append(Point(x: Int(zbar_symbol_get_loc_x(s, i)), y: Int(zbar_symbol_get_loc_y(s, i))))
        }
        let orientation: String
        switch zbar_symbol_get_orientation(s) {
        case ZBAR_ORIENT_UP: orientation = "up"
        case ZBAR_ORIENT_RIGHT: orientation = "right"
        case ZBAR_ORIENT_DOWN: orientation = "down"
        case ZBAR_ORIENT_LEFT: orientation = "left"
        default: orientation = "unknown"
        }
        let mods = zbar_symbol_get_modifiers(s)
        var modifiers: [String] = []
        if mods & (1 << ZBAR_MOD_GS1.rawValue) != 0 { modifiers.append("gs1") }
        if mods & (1 << ZBAR_MOD_AIM.rawValue) != 0 { modifiers.append("aim") }
        var symbol = Symbol(symbology: Symbology(rawValue: name), bytes: bytes, points: Geometry.outline(points),
                            orientation: orientation, quality: Int(zbar_symbol_get_quality(s)), modifiers: modifiers, addon: addon)
        symbol.decoder = "zbar"
        return symbol
    }

    private static func data(of s: OpaquePointer) -> [UInt8] {
        let length = Int(zbar_symbol_get_data_length(s))
        guard length > 0, let ptr = zbar_symbol_get_data(s) else { return [] }
        return ptr.withMemoryRebound(to: UInt8.self, capacity: length) { [UInt8](UnsafeBufferPointer(start: $0, count: length)) }
    }

    private static func fourcc(_ code: String) -> UInt {
        code.utf8.enumerated().reduce(0) { $0 | UInt($1.element) << (8 * $1.offset) }
    }
}

@available(*, unavailable) extension ZBarDecoder: Sendable {}
