import Dispatch

/// Retries for a still image the decoders left open: zxing-cpp again on the image brightened
/// (gamma 0.5) and locally equalised (CLAHE). Measured on BoofCV's phone photos, most codes the
/// first read misses are in dark frames (median 4-19 grey levels: the code spans 20-30 levels,
/// which the binarizer takes for flat) or were found but failed their checksum (curved, glare,
/// damaged); small scans of linear codes that read as nothing gain from the equalised pass.
///
/// The passes run only when something is open, so an image read cleanly costs one check (QR
/// codes, and the kinds of ``placesRetried`` read there), or, where many codes of one kind of
/// ``tiledKinds`` were read, the check and the tiles:
/// - the frame is dark (median brightness below 40): gamma 0.5;
/// - nothing was read, or a QR code was found but not decoded: gamma 0.5, CLAHE (8x8 tiles,
///   clip 2) enlarged 1.5x (small images) or 1.25x, CLAHE with clip 4, and gamma 1.5 (a
///   washed-out code darkened);
/// - nothing was read but a blurred product code the gray-level reader read (it goes first
///   where the first read found nothing), in a frame not dark: gamma 0.5 and the enlarged CLAHE
///   pass on each region beside it that looks like a linear code (``Open/besideGray``), and gamma
///   0.5 and CLAHE (clip 2, not enlarged) on the whole image for matrix and stacked codes (QR
///   only over 2 MP);
/// - a code of ``placesRetried`` was found but not decoded beside others of its kind that were
///   (the check looks for these kinds only where one was read: a tray of DataMatrix labels, a
///   shelf of Code 128s): its place (its box and half as much again on each side, plus 8
///   pixels) is read again by itself, for that kind only: as it is, then gamma 0.5, the enlarged
///   CLAHE, CLAHE with clip 4 and gamma 1.5, until one reads a code at that place. In a crop of
///   its own the binarizer and the equalisation see that code alone (on the shared photo sets:
///   6 more codes, none wrong). Thorough gets these from the balanced plan it runs first.
/// - at least ``tilesFrom`` codes of one kind of ``tiledKinds`` were read (a tray, a sheet of
///   labels): the full-size image is read again in overlapping tiles, for those kinds only, in
///   one read a tile (``tileSide(codes:width:height:)``); zxing-cpp's detector passes some codes
///   by among dozens of others and finds them in a tile (skewed DataMatrix photos: 113 -> 121 of
///   146, none wrong). White-on-black codes are looked for in the tiles only where one of those
///   read was (``Open/tilesInverted``).
/// - a QR code was found but not decoded and no pass read it (where nothing at all was read, the
///   QR check runs for this after the passes): it is read on a grid fitted to its function
///   patterns (``QRGridFit``), from the failed read's corners and version.
/// The passes over the whole image look for dark-on-light codes only (the first read looked for
/// white-on-black ones; one that reads only brightened or equalised is left to thorough).
/// `--effort thorough` runs every pass on every still image, both ways. On images of more than
/// 2 megapixels the passes over the whole image look for QR codes only (an all-formats read of
/// 12 MP costs ten times as much); smaller ones for every wanted format when nothing was read.
/// Failed places and tiles are read at any size up to the plan's 16 MP.
package final class StillRetries {
    /// The passes over the whole image: every wanted format, and QR only (nil when QR codes are
    /// not wanted). White-on-black codes only with `thorough`: the first read looked for them
    /// already (zxing-cpp's `tryInvert`), and each read that finds nothing is twice the cost
    /// with it (Arte-Lab noaf 11% less time, OFF 10%, BoofCV 8%; the same records on the
    /// shared corpus, where no photo's code is white-on-black).
    private let every: ZXingDecoder
    private let qrOnly: ZXingDecoder?
    /// The wanted matrix and stacked codes (``Symbology/matrixCodes``), for the whole image
    /// beside a gray-level reading (see ``Open/besideGray``).
    private let matrixOnly: ZXingDecoder
    /// QR only, with failed detections reported (the trigger); nil when QR codes are not wanted.
    private let qrCheck: ZXingDecoder?
    private let thorough: Bool
    private let wanted: Set<Symbology>
    private let gridFit = QRGridFit()
    /// The checks with failed detections reported, by the kinds they look for, and the decoders
    /// of a few kinds for failed places and tiles: made when first needed (one plan's, one thread's).
    private var checks: [Set<Symbology>: ZXingDecoder] = [:]
    private var few: [Few: ZXingDecoder] = [:]
    private struct Few: Hashable {
        let kinds: Set<Symbology>
        let invert: Bool
    }

    /// Kinds whose codes found but not decoded are read again at their places: codes with a
    /// strong check (Reed-Solomon, Code 128's checksum), where another read gives the content or
    /// nothing, not other digits. (A QR code's failure reopens the whole image: see `failedQR`.)
    package static let placesRetried: Set<Symbology> = Set(["datamatrix", "aztec", "pdf417", "code128"].map(Symbology.init(rawValue:)))
    /// Kinds read again in tiles where many of their codes were read: those with Reed-Solomon
    /// checks (not Code 128, whose one check character a re-read of the whole image in tiles
    /// would put to the test on every tile).
    package static let tiledKinds: Set<Symbology> = Set(["datamatrix", "aztec", "pdf417"].map(Symbology.init(rawValue:)))
    /// At most this many failed places are read again per image.
    package static let placesAtMost = 16

    package static let darkBelow = 40
    package static let largePixels = 2_000_000
    private static let brighten = GrayImage.gammaTable(0.5)
    private static let darken = GrayImage.gammaTable(1.5)

    package init(symbologies: Set<Symbology>, effort: Effort) {
        every = ZXingDecoder(symbologies: symbologies, effort: .balanced, invert: effort == .thorough)
        let qrcode = Symbology(rawValue: "qrcode")
        let wantsQR = symbologies.contains(qrcode)
        qrOnly = wantsQR ? ZXingDecoder(symbologies: [qrcode], effort: .balanced, invert: effort == .thorough) : nil
        matrixOnly = ZXingDecoder(symbologies: symbologies.filter { Symbology.matrixCodes.contains($0.rawValue) }, effort: .balanced, invert: effort == .thorough)
        qrCheck = wantsQR ? ZXingDecoder(symbologies: [qrcode], effort: .balanced, reportFailures: true) : nil
        thorough = effort == .thorough
        wanted = symbologies
    }

    /// What is open after the first read.
    package struct Open: Equatable, Sendable {
        package var dark = false
        package var nothingRead = false
        package var failedQR = false
        /// The binarizing readers read nothing, the gray-level reader a blurred product code:
        /// the brightened and equalised passes look for other codes (a dark or low-contrast one
        /// beside it: see ``besideGray``); on the shared corpus the other two passes read nothing
        /// more there.
        package var onlyGrayRead = false
        /// Where only the gray-level reader read: the regions that look like linear codes left
        /// unread (full-size pixels, ``GrayLinear/unread(in:scale:skipping:)``, at most 4 of at
        /// most 2 MP each), which the passes read by themselves for every format, the whole image
        /// for matrix and stacked codes only (QR over 2 MP). Only where ``readsBesideGray``: a
        /// dark frame or a failed QR code (`thorough` counts as one) keeps the whole image for
        /// every format.
        package var besideGray: [Box]?
        /// Whether the passes read ``besideGray`` (and the whole image for matrix codes only)
        /// rather than the whole image for every format.
        package var readsBesideGray: Bool { onlyGrayRead && !(dark || nothingRead || failedQR) }
        /// Codes of ``placesRetried`` found but not decoded (full-size pixels), where none was read.
        package var failedPlaces: [ZXingDecoder.Failure] = []
        /// QR codes found but not decoded (full-size pixels), where none was read: if no pass reads
        /// one, it is read on a fitted grid (``QRGridFit``).
        package var failedQRCodes: [ZXingDecoder.Failure] = []
        /// Kinds of ``tiledKinds`` read at least ``tilesFrom`` times (a tray, a sheet of
        /// labels), each with the side of tiles its codes call for (full-size pixels;
        /// ``tileSide(codes:width:height:)``): the image is read again in tiles of the smallest.
        package var tiles: [Symbology: Int] = [:]
        /// Whether a code of a tiled kind was read white-on-black: only then do the tiles look for
        /// inverted codes too (a tray's labels share one print; skewed DataMatrix photos: 9% less
        /// time, the same records).
        package var tilesInverted = false
        package var any: Bool { dark || nothingRead || failedQR || onlyGrayRead || !failedPlaces.isEmpty || !tiles.isEmpty }
        /// Whether the passes over the whole image run (failed places alone are read by themselves).
        var wholeImage: Bool { dark || nothingRead || failedQR || onlyGrayRead }
        package init(dark: Bool = false, nothingRead: Bool = false, failedQR: Bool = false, onlyGrayRead: Bool = false,
                     failedPlaces: [ZXingDecoder.Failure] = [], tiles: [Symbology: Int] = [:], tilesInverted: Bool = false,
                     failedQRCodes: [ZXingDecoder.Failure] = []) {
            self.dark = dark
            self.nothingRead = nothingRead
            self.failedQR = failedQR
            self.onlyGrayRead = onlyGrayRead
            self.failedPlaces = failedPlaces
            self.tiles = tiles
            self.tilesInverted = tilesInverted
            self.failedQRCodes = failedQRCodes
        }
    }

    /// Checks `image` (the frame at 1/`k` size) against what was read there (`found`, in
    /// full-size coordinates): returns what is open, and QR codes the check itself read.
    package func check(_ image: GrayImage, k: Int, found: [Symbol], region: Region?) -> (open: Open, read: [Symbol]) {
        var open = Open()
        open.dark = image.medianBrightness() < Self.darkBelow
        open.nothingRead = found.isEmpty
        if thorough { open.failedQR = true }
        guard !open.nothingRead, !thorough else { return (open, []) }
        let whole = Box(x: 0, y: 0, width: image.width, height: image.height)
        guard let box = region.map({ $0.box(inWidth: image.width, height: image.height) }) ?? whole else { return (open, []) }
        for (kind, codes) in Dictionary(grouping: found.filter { Self.tiledKinds.contains($0.symbology) && wanted.contains($0.symbology) },
                                        by: \.symbology) where codes.count >= Self.tilesFrom {
            open.tiles[kind] = Self.tileSide(codes: codes, width: box.width * k, height: box.height * k)
            if codes.contains(where: { $0.inverted == true }) { open.tilesInverted = true }
        }
        guard let check = check(for: found) else { return (open, []) }
        let r = check.decodeReporting(box == whole ? image : image.cropped(to: box))
        let read = r.symbols.map { $0.offset(dx: box.x, dy: box.y).scaled(by: k) }
        let all = found + read
        // Failures where no code was read (a decoder may fail on a code another one read).
        let failures = r.failures.map { $0.moved(dx: box.x, dy: box.y, scale: k) }.filter { f in !all.contains { $0.bbox.intersects(f.box) } }
        // The QR reader names some failures Micro QR or rMQR (its family): all reopen the image.
        open.failedQR = qrCheck != nil && failures.contains { Self.qrFamily.contains($0.symbology.rawValue) }
        open.failedQRCodes = Self.fittable(failures)
        open.failedPlaces = Array(Self.joined(failures.filter { Self.placesRetried.contains($0.symbology) }).prefix(Self.placesAtMost))
        return (open, read)
    }

    /// Codes of one kind read in an image from which its other codes are looked for in tiles.
    package static let tilesFrom = 4

    /// The side of the tiles for a kind whose `codes` were read in a `width` x `height` part (the
    /// image, or `--roi`'s part of it, full-size pixels): three times their median size (with
    /// tiles overlapping by half, any code up to half a tile lies wholly in one, beside few
    /// others), and at least a quarter of the part's mean side and 256 pixels, so that there are
    /// about 64 tiles at most.
    package static func tileSide(codes: [Symbol], width: Int, height: Int) -> Int {
        let sides = codes.map { max($0.bbox.width, $0.bbox.height) }.sorted()
        let median = sides.isEmpty ? 0 : sides[sides.count / 2]
        return max(3 * median, 256, Int((Double(width * height) / 16).squareRoot()))
    }

    /// Tiles of side `side` over `bounds`, overlapping by half, row by row; none when `bounds`
    /// is not at least two tiles wide or high (the first read saw it whole).
    package static func tiles(side: Int, over bounds: Box) -> [Box] {
        guard side > 1, bounds.width >= 2 * side || bounds.height >= 2 * side else { return [] }
        let step = side / 2
        var out: [Box] = []
        for y in stride(from: 0, to: max(1, bounds.height - step), by: step) {
            for x in stride(from: 0, to: max(1, bounds.width - step), by: step) {
                out.append(Box(x: bounds.x + x, y: bounds.y + y, width: min(side, bounds.width - x), height: min(side, bounds.height - y)))
            }
        }
        return out
    }

    /// The QR failures ``QRGridFit`` reads (a version it fits), at most ``placesAtMost``.
    static func fittable(_ failures: [ZXingDecoder.Failure]) -> [ZXingDecoder.Failure] {
        Array(failures.filter { f in
            f.symbology.rawValue == "qrcode" && f.corners.count == 4 && f.version.map { (1...QRGridFit.largestVersion).contains($0) } == true
        }.prefix(placesAtMost))
    }

    /// The names a QR check's failures come under (an unnamed format counts as QR).
    static let qrFamily: Set<String> = ["qrcode", "microqr", "rmqr", ""]

    /// Failures of one kind whose boxes overlap are one place (zxing-cpp may report a code's
    /// failure twice, from two finders): their boxes joined, in the order first reported.
    package static func joined(_ failures: [ZXingDecoder.Failure]) -> [ZXingDecoder.Failure] {
        var out = failures
        // Until nothing more joins: a box grown by one may reach another.
        var joinedOne = true
        while joinedOne {
            joinedOne = false
            search: for i in out.indices {
                for j in out.indices where j > i && out[j].symbology == out[i].symbology && out[j].box.intersects(out[i].box) {
                    out[i].box = out[i].box.union(out[j].box)
                    out.remove(at: j)
                    joinedOne = true
                    break search
                }
            }
        }
        return out
    }

    /// The check for an image where `found` was read: QR codes (if wanted), and the kinds of
    /// ``placesRetried`` read there; nil when there is nothing to look for.
    private func check(for found: [Symbol]) -> ZXingDecoder? {
        let kinds = Set(found.map(\.symbology)).intersection(Self.placesRetried).intersection(wanted)
        if kinds.isEmpty { return qrCheck }
        let formats = kinds.union(qrCheck == nil ? [] : [Symbology(rawValue: "qrcode")])
        if let made = checks[formats] { return made }
        let made = ZXingDecoder(symbologies: formats, effort: .balanced, reportFailures: true)
        checks[formats] = made
        return made
    }

    /// The passes for what is `open`, on the full-size `image`: the symbols they read, and
    /// whether `deadline` (the image's time budget) cut some passes.
    package func retry(_ image: GrayImage, open: Open, region: Region?, deadline: DispatchTime? = nil) -> ([Symbol], skipped: Bool) {
        guard open.any else { return ([], false) }
        var (symbols, skipped) = open.wholeImage ? passes(image, open: open, region: region, deadline: deadline) : ([], false)
        let whole = Box(x: 0, y: 0, width: image.width, height: image.height)
        let bounds = region.map { $0.box(inWidth: image.width, height: image.height) } ?? whole
        for place in open.failedPlaces where !symbols.contains(where: { $0.bbox.intersects(place.box) }) {
            guard let bounds, let box = place.box.withMargins(inside: bounds) else { continue }
            if let deadline, DispatchTime.now() >= deadline { skipped = true; break }
            let inCrop = Box(x: place.box.x - box.x, y: place.box.y - box.y, width: place.box.width, height: place.box.height)
            let (read, cut) = passes(on: image.cropped(to: box), place: inCrop, kind: place.symbology, deadline: deadline)
            symbols += read.map { $0.offset(dx: box.x, dy: box.y) }
            skipped = skipped || cut
        }
        // Many codes of one kind read: the others are looked for tile by tile, for the tiled
        // kinds only (two kinds share one read a tile, at the smaller side). In a tile the
        // detector meets a few codes rather than dozens of edges and labels (a skewed tray of
        // DataMatrix labels: zxing-cpp's detector passes some by on the whole photo).
        if let bounds, let side = open.tiles.values.min() {
            let decoder = decoder(for: Set(open.tiles.keys), invert: open.tilesInverted)
            for tile in Self.tiles(side: side, over: bounds) {
                if let deadline, DispatchTime.now() >= deadline { return (symbols, true) }
                symbols += decoder.decode(image.cropped(to: tile)).map { $0.offset(dx: tile.x, dy: tile.y) }
            }
        }
        // QR codes found but not read by any pass: read on a grid fitted to their function
        // patterns. Where nothing at all was read, the check had not run: it runs now, for them,
        // at half size over 2 MP (a 12 MP check costs about as much as the fits it could lead to).
        var failedQR = open.failedQRCodes
        if open.nothingRead, symbols.isEmpty, let qrCheck, let bounds {
            if let deadline, DispatchTime.now() >= deadline { return (symbols, true) }
            let part = bounds == whole ? image : image.cropped(to: bounds)
            let k = part.width * part.height > Self.largePixels ? 2 : 1
            failedQR = Self.fittable(qrCheck.decodeReporting(k == 1 ? part : part.reduced(by: k)).failures
                .map { $0.moved(dx: 0, dy: 0, scale: k).moved(dx: bounds.x, dy: bounds.y, scale: 1) })
        }
        for failure in failedQR where !symbols.contains(where: { $0.bbox.intersects(failure.box) }) {
            if let deadline, DispatchTime.now() >= deadline { return (symbols, true) }
            if let symbol = gridFit.read(image, corners: failure.corners, version: failure.version ?? 0) { symbols.append(symbol) }
        }
        return (symbols, skipped)
    }

    /// The decoder of these kinds only (failed places, tiles), trying inverted codes or not:
    /// made when first needed.
    private func decoder(for kinds: Set<Symbology>, invert: Bool = true) -> ZXingDecoder {
        let key = Few(kinds: kinds, invert: invert)
        if let made = few[key] { return made }
        let made = ZXingDecoder(symbologies: kinds, effort: .balanced, invert: invert)
        few[key] = made
        return made
    }

    /// A failed place (`crop`, the failed code at `place` in it) read as it is, then brightened,
    /// equalised and enlarged, equalised harder and darkened, for its kind only, until one reads
    /// a code at that place (a neighbour in the margins does not stop the cascade).
    private func passes(on crop: GrayImage, place: Box, kind: Symbology, deadline: DispatchTime?) -> ([Symbol], skipped: Bool) {
        let decoder = decoder(for: [kind])
        let enlarge = 1.5
        let pictures: [() -> GrayImage] = [{ crop }, { crop.mapped(Self.brighten) }, { crop.equalizedLocally(clip: 2).resized(by: enlarge) },
                                           { crop.equalizedLocally(clip: 4) }, { crop.mapped(Self.darken) }]
        // Codes read beside the place (in its margins) are kept, but do not stop the cascade.
        var beside: [Symbol] = []
        for (i, picture) in pictures.enumerated() {
            if let deadline, DispatchTime.now() >= deadline { return (beside, true) }
            let read = decoder.decode(picture()).map { (i == 2 ? $0.scaled(down: enlarge) : $0).clamped(width: crop.width, height: crop.height) }
            // A linear code read on one line has a box one pixel thin (or none): a pixel round it counts.
            if read.contains(where: { Box(x: $0.bbox.x - 1, y: $0.bbox.y - 1, width: $0.bbox.width + 2, height: $0.bbox.height + 2).intersects(place) }) {
                return (beside + read, false)
            }
            beside += read
        }
        return (beside, false)
    }

    /// The passes over the whole `image` (or its region) for what is `open`.
    private func passes(_ image: GrayImage, open: Open, region: Region?, deadline: DispatchTime?) -> ([Symbol], skipped: Bool) {
        let large = image.width * image.height > Self.largePixels
        let places = open.readsBesideGray ? open.besideGray : nil
        let decoder = large || !(open.nothingRead || open.onlyGrayRead) ? (qrOnly ?? every) : every
        guard decoder.readsSomething else { return ([], false) }
        func read(_ picture: @autoclosure () -> GrayImage, with decoder: ZXingDecoder, region: Region?, scale: Double = 1) -> [Symbol]? {
            if let deadline, DispatchTime.now() >= deadline { return nil }
            return picture().decode(inside: region.map { scale == 1 ? $0 : $0.scaled(by: scale) }, decoder.decode)
                .map { scale == 1 ? $0 : $0.scaled(down: scale) }
        }
        func enlargement(_ picture: GrayImage) -> Double { picture.width * picture.height <= 1_000_000 ? 1.5 : 1.25 }
        var passes: [[Symbol]?] = []
        if let places {
            // Beside a blurred product code the gray-level reader read: the whole image brightened
            // and equalised for matrix and stacked codes, and each place that looks like a linear
            // code brightened and equalised (enlarged) for every format. Arte-Lab noaf: the retries
            // 3.9 -> 2.7 s on one thread, the same codes on the shared corpus and precision-check's
            // seeds; of 51 low-contrast DataMatrix, Aztec and PDF417 codes beside the blurred
            // EAN-13 fixture that the old passes read, 49 (the whole image enlarged for them
            // too: all 51, at the old passes' cost). Over 2 MP the whole image is read for QR
            // codes only, as elsewhere. The places first: where time runs out, they are the cheap
            // passes and the likelier reads.
            for place in places {
                let crop = image.cropped(to: place), enlarge = enlargement(crop)
                for pass in [read(crop.mapped(Self.brighten), with: every, region: nil),
                             read(crop.equalizedLocally(clip: 2).resized(by: enlarge), with: every, region: nil, scale: enlarge)] {
                    passes.append(pass.map { $0.map { $0.offset(dx: place.x, dy: place.y) } })
                }
            }
            if let whole = large ? qrOnly : matrixOnly, whole.readsSomething {
                passes.append(read(image.mapped(Self.brighten), with: whole, region: region))
                passes.append(read(image.equalizedLocally(clip: 2), with: whole, region: region))
            }
        } else {
            passes.append(read(image.mapped(Self.brighten), with: decoder, region: region))
            if open.nothingRead || open.failedQR || open.onlyGrayRead {
                let enlarge = enlargement(image)
                passes.append(read(image.equalizedLocally(clip: 2).resized(by: enlarge), with: decoder, region: region, scale: enlarge))
            }
            if open.nothingRead || open.failedQR {
                passes.append(read(image.equalizedLocally(clip: 4), with: decoder, region: region))
                passes.append(read(image.mapped(Self.darken), with: decoder, region: region))
            }
        }
        let symbols = passes.compactMap { $0 }.flatMap { $0 }
        return (symbols.map { $0.clamped(width: image.width, height: image.height) }, passes.contains { $0 == nil })
    }
}

extension Box {
    /// This box and half as much again on each side, plus 8 pixels, inside `bounds` (nil when
    /// nothing is left): a code's box with room for its quiet zones, for reading it by itself.
    package func withMargins(inside bounds: Box) -> Box? {
        grown(dx: width / 2 + 8, dy: height / 2 + 8, inside: bounds)
    }

    /// This box grown by `dx` left and right and `dy` above and below, inside `bounds` (nil when
    /// nothing is left).
    package func grown(dx: Int, dy: Int, inside bounds: Box) -> Box? {
        let x0 = max(bounds.x, x - dx), y0 = max(bounds.y, y - dy)
        let x1 = min(bounds.x + bounds.width, x + width + dx), y1 = min(bounds.y + bounds.height, y + height + dy)
        return x1 > x0 && y1 > y0 ? Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }

    /// Whether this box reaches a side of `place` (within a pixel) that lies inside `bounds`:
    /// what a crop of `place` shows of it may be cut off there.
    func reachesEdge(of place: Box, inside bounds: Box) -> Bool {
        x <= place.x + 1 && place.x > bounds.x
            || x + width >= place.x + place.width - 1 && place.x + place.width < bounds.x + bounds.width
            || y <= place.y + 1 && place.y > bounds.y
            || y + height >= place.y + place.height - 1 && place.y + place.height < bounds.y + bounds.height
    }

    /// The smallest box holding both.
    func union(_ o: Box) -> Box {
        let x0 = min(x, o.x), y0 = min(y, o.y)
        return Box(x: x0, y: y0, width: max(x + width, o.x + o.width) - x0, height: max(y + height, o.y + o.height) - y0)
    }

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
        if f != 1 { s.linesAtFullSize = 0 }
        return s
    }
}
