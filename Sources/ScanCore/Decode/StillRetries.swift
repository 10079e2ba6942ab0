import Dispatch

/// Retries for a still image the decoders left open: zxing-cpp again on the image brightened
/// (gamma 0.5) and locally equalised (CLAHE). Measured on BoofCV's phone photos, most codes the
/// first read misses are in dark frames (median 4-19 grey levels: the code spans 20-30 levels,
/// which the binarizer takes for flat) or were found but failed their checksum (curved, glare,
/// damaged); small scans of linear codes that read as nothing gain from the equalised pass.
///
/// The passes run only when something is open, so an image read cleanly costs one QR-only check:
/// - the frame is dark (median brightness below 40): gamma 0.5;
/// - nothing was read, or a QR code was found but not decoded: gamma 0.5, CLAHE (8x8 tiles,
///   clip 2) enlarged 1.5x (small images) or 1.25x, CLAHE with clip 4, and gamma 1.5 (a
///   washed-out code darkened);
/// - nothing was read but a blurred product code the gray-level reader read (it goes first
///   where the first read found nothing): gamma 0.5 and the enlarged CLAHE pass only.
/// `--effort thorough` runs every pass on every still image. On images
/// of more than 2 megapixels the retries look for QR codes only (an all-formats read of 12 MP
/// costs ten times as much); smaller ones for every wanted format when nothing was read.
package final class StillRetries {
    private let every: ZXingDecoder
    /// QR only, with failed detections reported (the trigger); nil when QR codes are not wanted.
    private let qr: ZXingDecoder?
    private let thorough: Bool

    package static let darkBelow = 40
    package static let largePixels = 2_000_000
    private static let brighten = GrayImage.gammaTable(0.5)
    private static let darken = GrayImage.gammaTable(1.5)

    package init(symbologies: Set<Symbology>, effort: Effort) {
        every = ZXingDecoder(symbologies: symbologies, effort: .balanced)
        let qrcode = Symbology(rawValue: "qrcode")
        qr = symbologies.contains(qrcode) ? ZXingDecoder(symbologies: [qrcode], effort: .balanced, reportFailures: true) : nil
        thorough = effort == .thorough
    }

    /// What is open after the first read.
    package struct Open: Equatable, Sendable {
        package var dark = false
        package var nothingRead = false
        package var failedQR = false
        /// The binarizing readers read nothing, the gray-level reader a blurred product code:
        /// the brightened and equalised passes look for other codes (a dark or low-contrast one
        /// beside it); on the shared corpus the other two passes read nothing more there.
        package var onlyGrayRead = false
        package var any: Bool { dark || nothingRead || failedQR || onlyGrayRead }
        package init(dark: Bool = false, nothingRead: Bool = false, failedQR: Bool = false, onlyGrayRead: Bool = false) {
            self.dark = dark
            self.nothingRead = nothingRead
            self.failedQR = failedQR
            self.onlyGrayRead = onlyGrayRead
        }
    }

    /// Checks `image` (the frame at 1/`k` size) against what was read there (`found`, in
    /// full-size coordinates): returns what is open, and QR codes the check itself read.
    package func check(_ image: GrayImage, k: Int, found: [Symbol], region: Region?) -> (open: Open, read: [Symbol]) {
        var open = Open()
        open.dark = image.medianBrightness() < Self.darkBelow
        open.nothingRead = found.isEmpty
        if thorough { open.failedQR = true }
        guard let qr, !open.nothingRead, !thorough else { return (open, []) }
        let whole = Box(x: 0, y: 0, width: image.width, height: image.height)
        guard let box = region.map({ $0.box(inWidth: image.width, height: image.height) }) ?? whole else { return (open, []) }
        let r = qr.decodeReporting(box == whole ? image : image.cropped(to: box))
        let read = r.symbols.map { $0.offset(dx: box.x, dy: box.y).scaled(by: k) }
        let failures = r.failures.map { Box(x: ($0.x + box.x) * k, y: ($0.y + box.y) * k, width: $0.width * k, height: $0.height * k) }
        let all = found + read
        open.failedQR = failures.contains { f in !all.contains { $0.bbox.intersects(f) } }
        return (open, read)
    }

    /// The passes for what is `open`, on the full-size `image`: the symbols they read, and
    /// whether `deadline` (the image's time budget) cut some passes.
    package func retry(_ image: GrayImage, open: Open, region: Region?, deadline: DispatchTime? = nil) -> ([Symbol], skipped: Bool) {
        guard open.any else { return ([], false) }
        let large = image.width * image.height > Self.largePixels
        let decoder = large || !(open.nothingRead || open.onlyGrayRead) ? (qr ?? every) : every
        guard decoder.readsSomething else { return ([], false) }
        func read(_ picture: @autoclosure () -> GrayImage, scale: Double = 1) -> [Symbol]? {
            if let deadline, DispatchTime.now() >= deadline { return nil }
            return picture().decode(inside: region.map { scale == 1 ? $0 : $0.scaled(by: scale) }, decoder.decode)
                .map { scale == 1 ? $0 : $0.scaled(down: scale) }
        }
        var passes: [[Symbol]?] = [read(image.mapped(Self.brighten))]
        if open.nothingRead || open.failedQR || open.onlyGrayRead {
            let enlarge = image.width * image.height <= 1_000_000 ? 1.5 : 1.25
            passes.append(read(image.equalizedLocally(clip: 2).resized(by: enlarge), scale: enlarge))
        }
        if open.nothingRead || open.failedQR {
            passes.append(read(image.equalizedLocally(clip: 4)))
            passes.append(read(image.mapped(Self.darken)))
        }
        let symbols = passes.compactMap { $0 }.flatMap { $0 }
        return (symbols.map { $0.clamped(width: image.width, height: image.height) }, passes.contains { $0 == nil })
    }
}

extension Box {
    /// Whether the two boxes share any pixel.
    package func intersects(_ o: Box) -> Bool {
        x < o.x + o.width && o.x < x + width && y < o.y + o.height && o.y < y + height
    }
}

extension Region {
    /// The region of an image enlarged by `f`: pixel regions scale, fractions stay.
    func scaled(by f: Double) -> Region {
        guard !isFraction else { return self }
        return Region(x: (x * f).rounded(), y: (y * f).rounded(), width: (width * f).rounded(), height: (height * f).rounded(), isFraction: false)
    }
}

extension Symbol {
    /// The symbol of a pass on the image enlarged by `f`, in the image's own coordinates.
    func scaled(down f: Double) -> Symbol {
        var s = self
        s.points = points.map { Point(x: Int((Double($0.x) / f).rounded()), y: Int((Double($0.y) / f).rounded())) }
        s.bbox = Box(enclosing: s.points)
        return s
    }
}
