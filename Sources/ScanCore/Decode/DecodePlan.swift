import Dispatch
import Foundation
import Synchronization

/// The plan for one frame: what each of one worker thread's decoders reads, at which scale, and
/// what is tried again where something is left open. ``FrameScanner`` keeps only the threads
/// and the order; a plan runs without them (its unit tests call ``decode(_:arrival:)``).
///
/// For an image file (one chance per photo):
/// 1. A large image is decoded small first (the scale pyramid: a JPEG straight from its DCT
///    coefficients at 1/2, 1/4 or 1/8). The small pass's reading is kept as the answer only when
///    it found codes that are neither too fine there (QR modules under 2.5 pixels) nor small
///    there (under 96 pixels): otherwise the full-size pass runs too, so a small code found does
///    not end the search for the others. An image file reduced by 4 or more that goes on to full
///    size is read at 1/2 too (not `fast`). Where the small pass is the answer, the regions of its
///    copy that look like linear codes (``GrayLinear/candidates(in:)``) and hold no code read are
///    read at full size, each by itself (at most ``unreadRegions``).
/// 2. The decoders in their order (``StillOrder``): zxing-cpp, then zbar where it found only
///    codes of ``DecoderList/recheck`` (EAN/UPC and Code 128); where it found others (a matrix
///    code), zbar for linear codes only (``LinearDecoder``); where it found nothing, zbar waits
///    for 3 (in `balanced`; a video frame and `fast` get it at once).
/// 3. Where nothing was read, the gray-level EAN/UPC reader (``GrayLinear``) first, then zbar
///    where that read nothing either (on the image of the first pass, small or full); then
///    ``StillRetries`` where the image is dark, nothing was read or a QR code failed its checksum
///    (after a gray-level reading, the brightened and equalised passes look for other codes in
///    the regions beside it that look like linear codes, and for matrix and stacked codes in the
///    whole image, unless the frame is dark or a QR code failed; a code of another kind they read
///    at the gray-level reading's place takes that place);
///    where a DataMatrix, Aztec, PDF417 or Code 128 code was found but not decoded beside others
///    of its kind that were, its place is read again by itself; where at least four DataMatrix,
///    Aztec or PDF417 codes of one kind were read, the image is read again in tiles for them;
///    a QR code found but not decoded that none of these read is read on a grid fitted to its
///    function patterns (``QRGridFit``).
/// 4. Where no MaxiCode was read, ``MaxiCodeReader`` looks for MaxiCode bullseyes (zxing-cpp reads
///    only pure images of that symbology): in the small copy, then, where none was found there,
///    in the full-size image if it was loaded; one found small but not read is read again in a
///    full-size crop around it.
/// 5. Every EAN/UPC reading, from any decoder and pass, must have no bars right past its ends
///    (``QuietZones``): a UPC-E read from half an EAN-13 is left out; and its digits must make the
///    bars in the image (``BarPattern``): a Code 11 read as an EAN-13 is left out. Then the
///    readings that disagree at one place are settled (``Symbol/resolvingEANConflicts(_:)``).
///    An M1 Micro QR reading must have its quiet zone (``QuietZones``): a QR code's finder
///    pattern reads as one.
/// 6. The gray-level EAN/UPC reader (``GrayLinear``), if it has not run, where no EAN/UPC code
///    was read (a UPC-E or EAN-8 only zbar read does not count), skipping the regions of codes
///    already read; its readings are judged as in 5, and conflicts settled again.
/// 7. Where it has not run, the gray-level reader reads the place of each EAN/UPC code only
///    zxing-cpp read that ``BarPattern`` could not judge (on the full-size image, when it was
///    loaded): the same digits confirm it, others make a conflict (both go).
/// 8. Every frame: a linear reading whose outline lies inside a matrix code read there is left out
///    (``Symbol/droppingLinearInsideMatrix(_:)``), and so is an I2/5 reading whose digits are part
///    of a longer one's beside it (``Symbol/droppingPiecesOfI25(_:)``).
/// A video frame gets 1, 2, 5 and 8, in the fallback order: the next frame has another chance.
///
/// `--effort thorough` runs balanced's plan first on each image file (``DecoderList/baseline``),
/// then its own (every image at full size, zbar and zxing-cpp's thorough settings on every image,
/// every retry), and keeps both readings; where one of its own EAN/UPC readings disagrees with
/// balanced's at the same place, balanced's stands. So thorough reads at least what balanced reads.
///
/// **The time budget** (`--time-budget`, per image): checked between passes; once it is spent,
/// the passes left are skipped and the record says which in its `warnings`. One decoder call
/// is not interrupted, so an image costs at most the budget and one pass.
package final class DecodePlan {
    /// This worker's decoder instances, in the list's order.
    private let workers: [FrameDecoder]
    private let list: DecoderList
    private let retries: StillRetries?
    private let maxiCode: MaxiCodeReader?
    private let loader: ImageLoader
    private let region: Region?
    private let pyramid: Pyramid
    private let stillOrder: StillOrder
    private let keepImages: Bool
    private let keepFrames: Bool
    private let timeBudget: TimeInterval?
    /// The pixels shared by every worker's plan.
    private let pixels: PixelBudget
    /// thorough: balanced's plan, run first on image files.
    private let baseline: DecodePlan?
    /// Set by ``run(on:info:order:afterSmallPass:region:deferring:)`` when the main decoders found
    /// nothing and the fallback ones were left for after the gray-level reader (one image at a time).
    private var fallbackDeferred = false

    /// A still image whose small pass found a code under this many pixels (its longer side, in
    /// the small image) is read at full size too: a photo of many small codes (a tray of
    /// DataMatrix labels, a shipping label) holds more that the small pass could not resolve.
    /// (The skewed-DataMatrix photos' 14x14 codes are 50-77 pixels there; the 12 MP bench
    /// photo's QR code 109 and its EAN-13 243.) A video frame keeps the small pass's reading (the
    /// next frame has another chance).
    package static let smallCodeBelow = 96
    /// At most this many unread regions of a small pass taken as the answer are read at full size.
    package static let unreadRegions = 4

    /// Whether a code the small pass found (points in full-size pixels, the pass at 1/`k`) is small there.
    package static func hasSmallCodes(_ symbols: [Symbol], k: Int) -> Bool {
        symbols.contains { max($0.bbox.width, $0.bbox.height) / max(k, 1) < smallCodeBelow }
    }

    /// - Parameters: `list`: the session's decoders (this plan makes its own instances of the
    ///   worker decoders); `pixels`: the budget shared by every worker; `timeBudget`: seconds per
    ///   image (nil: none).
    package init(list: DecoderList, loader: ImageLoader = ImageLoader(), region: Region? = nil, pyramid: Pyramid = Pyramid(effort: .balanced),
                stillOrder: StillOrder = .together, keepFrames: Bool = false, timeBudget: TimeInterval? = nil,
                pixels: PixelBudget = PixelBudget(capacity: PixelBudget.shared)) {
        self.list = list
        workers = list.makeWorkerDecoders()
        retries = list.retries?()
        maxiCode = list.maxiCodes?()
        self.loader = loader
        self.region = region
        // A region in pixels is in full-frame terms: no reduced pass then.
        self.pyramid = region.map { $0.isFraction } ?? true ? pyramid : Pyramid(effort: .thorough)
        self.stillOrder = stillOrder
        keepImages = !list.sessionDecoders.isEmpty
        self.keepFrames = keepFrames
        self.timeBudget = timeBudget
        self.pixels = pixels
        baseline = list.baseline.first.map {
            DecodePlan(list: $0, loader: loader, region: region, pyramid: Pyramid(effort: .balanced), stillOrder: .recheck,
                       timeBudget: timeBudget, pixels: pixels)
        }
    }

    /// Loads the item if it is a file and reads it as the plan says. `arrival`: when the source
    /// handed it over.
    package func decode(_ item: SourceItem, arrival: DispatchTime) -> DecodedFrame {
        guard let baseline, case .file(let input) = item else { return decodeOwn(item, arrival: arrival) }
        // The file is read once for both plans (an unreadable one: its error comes from decodeOwn).
        var once = item
        if case .file(let path) = input, let data = try? loader.read(path: path) { once = .file(.data(data, name: path)) }
        let first = baseline.decode(once, arrival: arrival)
        var frame = decodeOwn(once, arrival: arrival)
        guard case .success(let balanced) = first.outcome, case .success(let more) = frame.outcome else { return frame }
        frame.outcome = .success(Self.keeping(balanced, more))
        for w in first.info.warnings where !frame.info.warnings.contains(w) { frame.info.warnings.append(w) }
        return frame
    }

    /// The readings of balanced's plan and thorough's own, one symbol per code; a thorough
    /// EAN/UPC reading that disagrees with a balanced one at the same place is left out.
    package static func keeping(_ balanced: [Symbol], _ more: [Symbol]) -> [Symbol] {
        Symbol.merged(balanced + more.filter { s in !balanced.contains { s.disagrees(with: $0) } })
    }

    /// Whether an image of this size gets the level between (a still, not `fast`, reduced by 4
    /// or more for the small pass, not tiled).
    private func mayDecodeHalfSize(width: Int, height: Int, still: Bool, order: StillOrder) -> Bool {
        still && order != .fallback && (pyramid.reduction(width: width, height: height) ?? 1) >= 4 && width * height <= Self.tiledAbove
    }

    private func decodeOwn(_ item: SourceItem, arrival: DispatchTime) -> DecodedFrame {
        var held = 0
        defer { pixels.release(held) }
        fallbackDeferred = false
        let clock = TimeBudget(budget: timeBudget)
        var info: FrameInfo
        var full: GrayImage?
        var data: Data?
        var symbols: [Symbol] = []
        var order = StillOrder.fallback
        var still = false
        /// The page of a document decoded here (0-based), in the bytes `data` holds.
        var page = 0
        do throws(ImageError) {
            switch item {
            case .frame(let f):
                info = f.info
                full = f.image
            case .file(let input):
                info = FrameInfo(source: input.name)
                still = true
                order = stillOrder
                switch input {
                case .file(let path):
                    // A large file is read and decoded by one thread at a time: it takes the whole
                    // shared budget, so four of them never sit in memory at once.
                    if let size = regularFileSize(path), size > Self.largeFile, size <= loader.options.maxFileBytes {
                        held = pixels.acquire(Int.max)
                    }
                    data = try loader.read(path: path)
                case .data(let d, _): data = d
                case .stdin: data = FileHandle.standardInput.readDataToEndOfFile()
                case .missing(let path, let reason): throw .unreadable(path: path, reason: reason)
                case .skipped(let path, let reason): throw .skipped(path: path, reason: reason)
                case .failed(let error): throw error
                case .page(let doc, let i):
                    (data, page) = doc.bytes(of: i)
                    if doc.numbering == .pages { info.page = i + 1 } else { info.index = i }
                    // The same page of the same bytes is the same scan (idempotency keys).
                    info.content = doc.content + "#\(i)"
                }
            }
            if let data, info.content == nil { info.content = ContentHash.hex(data) }
            // Its size from the header, read once, before anything is decoded (over --max-pixels:
            // the loader refuses it below, holding nothing).
            let codec = data.flatMap { ImageFormat.sniff($0).codec }
            let header = data.flatMap { d in codec?.pageSize(d, page: page, options: loader.options) }
            if held == 0, let data, data.count > Self.largeFile { held = pixels.acquire(Int.max) }
            // A header's sizes may overflow their product (a TIFF claiming 2^32 x 2^32): then the
            // decoder refuses it below, holding nothing.
            if held == 0, let size = header, case (let area, false) = size.width.multipliedReportingOverflow(by: size.height),
               area <= loader.maxPixels {
                // With the half-size copy the level between may make (below), asked for at once:
                // taking more later while holding this could leave two threads waiting on each other.
                // A format whose decode holds intermediate rasters reserves them too.
                let decoding = area * max(1, codec?.bytesPerPixel ?? 1)
                held = pixels.acquire(max(decoding, area + (mayDecodeHalfSize(width: size.width, height: size.height, still: still, order: order) ? area / 4 : 0)))
            }
            // The small pass: a JPEG file is decoded small from its DCT coefficients.
            var small: (image: GrayImage, k: Int)?
            if let data, let size = header, ImageFormat.sniff(data) == .jpeg,
               let k = pyramid.reduction(width: size.width, height: size.height) {
                let image = try loader.decode(data, name: info.source, reduction: k)
                small = (image, k)
                info.warnings = image.warnings
                // The header's size: libjpeg's scaled output is rounded up (ceil(w/k)).
                info.width = size.width
                info.height = size.height
            } else {
                if full == nil, let data {
                    full = try loader.decode(data, name: info.source, page: page)
                    if case .file(.page) = item { clock.restart() }
                }
                // A format whose header gives no cheap size (TIFF, WebP, HEIF, a PDF page): its
                // pixels join the shared budget once decoded, for the passes that copy them.
                if held == 0, header == nil, let image = full { held = pixels.acquire(image.width * image.height) }
                if let image = full { info.warnings = image.warnings; info.width = image.width; info.height = image.height }
                if let image = full, let k = pyramid.reduction(width: image.width, height: image.height) {
                    small = (image.reduced(by: k), k)
                }
            }
            var trustSmall = false
            if let small {
                symbols = run(on: small.image, info: info, order: order, deferring: still).map { $0.scaled(by: small.k) }
                trustSmall = !symbols.isEmpty && !Self.hasTinyModules(symbols, k: small.k)
                    && !(still && Self.hasSmallCodes(symbols, k: small.k))
            }
            if !trustSmall || keepImages, clock.allows("the full-size pass", &info) {
                if full == nil, let data { full = try loader.decode(data, name: info.source, page: page) }
                if let image = full {
                    info.width = image.width
                    info.height = image.height
                    if info.warnings.isEmpty { info.warnings = image.warnings }
                    // Nothing found small, or codes so fine there that smaller ones may have been missed.
                    if !trustSmall {
                        symbols = Symbol.merged(fullSize(image, info: &info, order: order, afterSmallPass: small != nil, deferring: still, clock: clock) + symbols)
                        // The level between, for an image file (not `fast`): a code's modules
                        // binarize well at some scales only, and 1/4 and full size (with
                        // zxing-cpp's own 1/3) leave a gap at 1/2.
                        if small != nil, mayDecodeHalfSize(width: image.width, height: image.height, still: still, order: order),
                           clock.allows("the half-size pass", &info) {
                            let half = run(on: image.reduced(by: 2), info: info, order: order, afterSmallPass: true)
                            symbols = Symbol.merged(symbols + half.map { $0.scaled(by: 2) })
                        }
                    }
                }
            }
            // Where the small pass is the answer, each region of its copy that looks like a linear
            // code and holds none of the codes read is read at full size by itself (its box and a
            // margin): a small Code 128 beside a big one on a shipping label has modules under a
            // pixel at 1/4, where only the big one reads.
            // Not `fast` (one read at one scale), as the half-size pass; a crop over 16 MP would be
            // one long call the time budget cannot cut (the full-size pass tiles those).
            if trustSmall, still, order != .fallback, let small, clock.allows("the unread regions", &info) {
                let bounds = Self.bounds(region, width: info.width, height: info.height)
                let boxes = Self.unreadLinearRegions(in: small.image, k: small.k, skipping: symbols.map(\.bbox), inside: bounds, atMost: Self.tiledAbove)
                if !boxes.isEmpty {
                    if full == nil, let data { full = try loader.decode(data, name: info.source) }
                    if let image = full, image.width == info.width, image.height == info.height {
                        for box in boxes {
                            guard clock.allows("the unread regions", &info) else { break }
                            symbols += run(on: image.cropped(to: box), info: info, order: order, afterSmallPass: true, region: nil)
                                .map { $0.offset(dx: box.x, dy: box.y) }
                        }
                        symbols = Symbol.merged(symbols)
                    }
                }
            }
            // Precision first: an EAN/UPC reading with bars right past its ends is part of something
            // longer, and one whose digits do not make the bars in the image is another code. Before
            // the conflicts are settled and the gray-level reader's turn is decided: a reading left
            // out here neither takes a true one with it nor keeps the gray-level reader away.
            func judged(_ read: [Symbol]) -> [Symbol] {
                guard let (image, k) = full.map({ ($0, 1) }) ?? small else { return read }
                return read.filter { QuietZones.pass($0, in: image, k: k) && BarPattern.fits($0, in: image, k: k) }
            }
            // Blurred product codes the binarizing readers lost: the gray-level reader, where no
            // EAN/UPC code was read, skipping the regions of codes already read.
            // When the image was read small only, its small copy says first whether any region
            // looks like a linear code not read yet (a QR photo then costs no full-size decode).
            // A UPC-E or EAN-8 only zbar read may be part of a longer code that blur kept the
            // quiet-zone check from judging: the gray-level reader reads its place too (a longer
            // code it reads there wins, see resolvingEANConflicts).
            var grayRan = false
            func readGray() throws(ImageError) {
                func unconfirmedShort(_ s: Symbol) -> Bool { s.decoder == "zbar" && Symbology.shortProductCodes.contains(s.symbology.rawValue) }
                let readBoxes = symbols.filter { !unconfirmedShort($0) }.map(\.bbox)
                guard still, !grayRan, let gray = list.grayLinear, !symbols.contains(where: { $0.isProductCode && !unconfirmedShort($0) }),
                      full != nil || gray.readsSomething && small.map({ !GrayLinear.unread(in: $0.image, scale: $0.k, skipping: readBoxes).isEmpty }) ?? true,
                      clock.allows("the gray-level reader", &info) else { return }
                grayRan = true
                if full == nil, let data { full = try loader.decode(data, name: info.source) }
                if let image = full {
                    symbols = Symbol.resolvingEANConflicts(Symbol.merged(symbols + judged(image.decode(inside: region) { part in
                        gray.decode(part, skipping: region == nil ? readBoxes : [], deadline: clock.deadline ?? .distantFuture)
                    })))
                }
            }
            // Where the first read found nothing, the gray-level reader goes before the retries:
            // where it reads a blurred product code, the retries' brightened and equalised passes
            // look for other codes beside it (see StillRetries.Open.besideGray); what else is open
            // (a dark frame, a QR code found but not decoded) is retried as before. Arte-Lab noaf:
            // 12.5 -> 10.7 s on one thread, the same records on the shared corpus.
            let grayFirst = symbols.isEmpty
            if grayFirst { try readGray() }
            let onlyGrayRead = grayFirst && !symbols.isEmpty
            // zbar, where zxing-cpp found nothing on the image it left zbar (see `run`): after the
            // gray-level reader, and only where that read nothing either, or (below) where a retry
            // disagrees with its reading. On blurred product photos zbar read little the
            // gray-level reader did not, at a third of the time (Arte-Lab noaf).
            var fallbackPending = fallbackDeferred
            let fallbacks = workers.indices.filter { list.fallback[$0] }.map { workers[$0] }
            func runFallback() {
                guard fallbackPending, let (image, k) = small ?? full.map({ ($0, 1) }), clock.allows("zbar", &info) else { return }
                fallbackPending = false
                symbols = Symbol.merged(symbols + runTogether(fallbacks, on: image, info: info, region: region).map { $0.scaled(by: k) })
            }
            if !onlyGrayRead { runFallback() }
            // zbar is the only reader of EAN-2/EAN-5 add-ons: where it was left out after a
            // gray-level reading, it reads the place beside each code read so (three quarters
            // of its length each way, half its height more, inside --roi): an add-on that lies on
            // the code's rows right of it is attached and kept (a review helper's blurred magazine
            // codes: 15 of 650 add-ons lost without this).
            if fallbackPending && onlyGrayRead, let image = full,
               let zbar = fallbacks.lazy.compactMap({ $0 as? LinearDecoder }).first {
                let inside = Self.bounds(region, width: image.width, height: image.height)
                for code in symbols where code.decoder == "gray" && code.isProductCode {
                    let b = code.bbox
                    guard let place = b.grown(dx: 3 * b.width / 4, dy: b.height / 4, inside: inside) else { continue }
                    let addOns = zbar.decodeAddOns(image.cropped(to: place)).map { $0.offset(dx: place.x, dy: place.y) }
                    let attached = Symbol.attachingAddOns([code] + addOns)
                    guard let text = attached.first?.addon else { continue }
                    symbols = symbols.map { $0 == code ? attached[0] : $0 } + addOns.filter { $0.text == text }.prefix(1)
                }
            }
            // A still image gets one more chance where something is left open (a dark photo,
            // nothing read, a QR code found but not decoded): see StillRetries.
            // Not above 16 MP: the retries read the whole image in one call each (the tiles are
            // the full-size pass's), which on a crafted image is what the tiles are there to avoid.
            if still, let retries, let (image, k) = full.map({ ($0, 1) }) ?? small,
               image.width * image.height * k * k <= Self.tiledAbove, clock.allows("the retries", &info) {
                // EAN/UPC codes only zbar read (zxing-cpp found nothing) are a second opinion
                // short: the retries run as if nothing was read, to confirm them or to disagree
                // (see resolvingEANConflicts). Images over 2 MP retry for QR codes only.
                let zbarOnly = !symbols.isEmpty && image.width * image.height * k * k <= StillRetries.largePixels
                    && symbols.allSatisfy { $0.decoder == "zbar" && Symbology.eanUPC.contains($0.symbology.rawValue) }
                var (open, read) = retries.check(image, k: k, found: zbarOnly ? [] : symbols, region: region)
                open.onlyGrayRead = onlyGrayRead
                if open.readsBesideGray {
                    // The places beside it that look like linear codes (a Code 128 beside a blurred
                    // EAN-13), as the unread regions of a small pass are chosen; none over 2 MP
                    // (the retries' bound on an all-formats read).
                    open.besideGray = Self.unreadLinearRegions(in: image, k: k, skipping: symbols.map(\.bbox),
                                                             inside: Self.bounds(region, width: image.width * k, height: image.height * k),
                                                             atMost: StillRetries.largePixels)
                }
                if !read.isEmpty { symbols = Symbol.merged(symbols + read) }
                if open.any {
                    if full == nil, let data { full = try loader.decode(data, name: info.source) }
                    if let image = full {
                        let (read, skipped) = retries.retry(image, open: open, region: region, deadline: clock.deadline)
                        symbols = Symbol.merged(symbols + read)
                        if skipped { clock.ranOut("some retries", &info) }
                    }
                }
            }
            // The gray-level reader skips the places of codes read before it; where it went first,
            // a code of another kind the retries read at its reading's place takes that place (a
            // motion-blurred Telepen read as EAN-13 4111111214289 by the gray-level reader).
            if onlyGrayRead {
                let others = symbols.filter { $0.decoder != "gray" && !$0.isProductCode }.map(\.bbox)
                symbols.removeAll { s in s.decoder == "gray" && others.contains { $0.holds(Double(s.bbox.x) + Double(s.bbox.width) / 2, Double(s.bbox.y) + Double(s.bbox.height) / 2) } }
            }
            // MaxiCode in photos: zxing-cpp reads one only from a pure image (see MaxiCodeReader).
            // Where none was read, its bullseyes are looked for in the small copy first (the
            // finder's thresholds come from blocks a fraction of the image's side: a ring wider than
            // them is missed, so large modules are found there), then, if none was found there, in
            // the full-size image when it is loaded (small modules); a bullseye found small but not
            // read is read again in the full-size image, in its own box. Still images only: on a
            // video stream the finder cost every frame about a tenth of the frame rate (`bench --stream`).
            if still, let maxiCode, !symbols.contains(where: { $0.symbology == .maxiCode }),
               let (image, k) = small ?? full.map({ ($0, 1) }), clock.allows("the MaxiCode reader", &info) {
                // The whole image or --roi's part of it: (symbols in full-size pixels, bullseyes in the image's).
                func find(in image: GrayImage, k: Int) -> (symbols: [Symbol], unread: [MaxiCodeReader.Bullseye])? {
                    let whole = Box(x: 0, y: 0, width: image.width, height: image.height)
                    // Not above 16 MP: the finder's cost grows with the pixels (a large image's small copy is searched first).
                    guard let bounds = region.map({ $0.box(inWidth: image.width, height: image.height) }) ?? whole,
                          bounds.width * bounds.height <= Self.tiledAbove else { return nil }
                    let (read, unread) = maxiCode.decode(bounds == whole ? image : image.cropped(to: bounds))
                    return (read.map { $0.offset(dx: bounds.x, dy: bounds.y).scaled(by: k) },
                            unread.map { MaxiCodeReader.Bullseye(x: $0.x + Double(bounds.x), y: $0.y + Double(bounds.y), module: $0.module) })
                }
                if let (read, unread) = find(in: image, k: k) {
                    symbols += read
                    if k > 1, read.isEmpty, clock.allows("the MaxiCode reader", &info) {
                        if !unread.isEmpty, full == nil, let data { full = try loader.decode(data, name: info.source) }
                        if let image = full, image.width == info.width, image.height == info.height {
                            if unread.isEmpty {
                                symbols += find(in: image, k: 1)?.symbols ?? []
                            } else {
                                let inside = Self.bounds(region, width: image.width, height: image.height)
                                for eye in unread.prefix(2) {
                                    guard let box = eye.box(inside: inside, scale: k) else { continue }
                                    symbols += maxiCode.decode(image.cropped(to: box)).symbols.map { $0.offset(dx: box.x, dy: box.y) }
                                }
                            }
                        }
                    }
                }
            }
            // A retry's EAN/UPC reading that disagrees with the gray-level reader's: zbar's opinion
            // first (a reading two decoders agree on wins the conflict, see resolvingEANConflicts).
            // A motion-blurred, a dark and a keystoned code of precision-check's seed 7 lost
            // their true reading so.
            var settled = judged(symbols)
            if fallbackPending && Symbol.resolvingEANConflicts(settled).count < settled.count {
                runFallback()
                settled = judged(symbols)
            }
            symbols = Symbol.resolvingEANConflicts(settled)
            try readGray()
            // A product code zxing-cpp alone read, which BarPattern could not judge (noise, blur,
            // modules near a pixel), gets the gray-level reader's opinion of its place: the same
            // digits confirm it (zxing+gray), other digits make a conflict, settled as any other
            // (both go). Of 400 generated EAN/UPC codes rich in 1, 2, 7 and 8 (blurred, noisy,
            // small), zxing-cpp 3.1.1 alone misread 15, zbarimg 4.
            if still, !grayRan, let gray = list.grayLinear, let image = full {
                let doubtful = symbols.filter { $0.isProductCode && $0.decoder == "zxing" && (BarPattern.misfits($0, in: image)?.count ?? 0) < 2 }
                if !doubtful.isEmpty, clock.allows("the gray-level reader", &info) {
                    let inside = Self.bounds(region, width: image.width, height: image.height)
                    let opinions = doubtful.flatMap { s -> [Symbol] in
                        // Its box and half as much again on each side (the reader's margins and quiet
                        // zones), inside the region; only readings of its place count.
                        guard let place = s.bbox.withMargins(inside: inside) else { return [] }
                        return gray.decode(image.cropped(to: place), deadline: clock.deadline ?? .distantFuture)
                            .map { $0.offset(dx: place.x, dy: place.y) }.filter { $0.overlaps(s) }
                    }
                    symbols = Symbol.resolvingEANConflicts(Symbol.merged(symbols + judged(opinions)))
                }
            }
            // A PDF page (not `fast`): each region that looks like a linear code and holds none
            // read is rendered again at twice the resolution, by itself (small codes, which
            // paperless-ngx users read at 600 dpi); a page of text has none and is rendered once.
            if still, order != .fallback, let data, let image = full, PDFCodec.matches([UInt8](data.prefix(ImageFormat.headLength))),
               clock.allows("the PDF regions at twice the resolution", &info) {
                for box in Self.pdfRegions(in: image, skipping: symbols.map(\.bbox)) {
                    guard clock.allows("the PDF regions at twice the resolution", &info) else { break }
                    let twice = Box(x: box.x * 2, y: box.y * 2, width: box.width * 2, height: box.height * 2)
                    guard let crop = try? PDFCodec.render(data, page: page, dpi: loader.options.dpi * 2, crop: twice, name: info.source,
                                                          options: loader.options) else { continue }
                    let read = run(on: crop, info: info, order: order, afterSmallPass: true, region: nil)
                    symbols = Symbol.merged(symbols + read.map { $0.scaled(down: 2).offset(dx: box.x, dy: box.y) })
                }
            }
        } catch {
            var failed = FrameInfo(source: info.source, index: info.index)
            failed.page = info.page
            return DecodedFrame(info: failed, outcome: .failure(error), image: nil, arrival: arrival)
        }
        // A region that misses the frame entirely is a mistake to name, not an empty frame.
        if let region, info.width > 0, info.height > 0, region.box(inWidth: info.width, height: info.height) == nil {
            return DecodedFrame(info: FrameInfo(source: info.source, index: info.index),
                                outcome: .failure(.regionOutside(path: info.source, region: region.text, width: info.width, height: info.height)),
                                image: nil, arrival: arrival)
        }
        // Decoders put corners one past the last module, and a scaled pass rounds outwards: points
        // stay inside the frame.
        // A page resampled to square pixels (a fax): points in the page's own pixels.
        if let image = full, let own = image.ownSize {
            let sx = Double(own.width) / Double(image.width), sy = Double(own.height) / Double(image.height)
            symbols = symbols.map { $0.resampled(x: sx, y: sy) }
            info.width = own.width
            info.height = own.height
        }
        let inside = Symbol.droppingPiecesOfI25(Symbol.droppingLinearInsideMatrix(symbols)).map { $0.clamped(width: info.width, height: info.height) }
        // Frame observers get a still's bytes (a copy in color and in its format) and a video frame's pixels.
        var decoded = DecodedFrame(info: info, outcome: .success(inside), image: keepImages || (keepFrames && !still) ? full : nil,
                                   arrival: arrival)
        decoded.still = still
        if keepFrames && still {
            decoded.bytes = data
            decoded.page = page
        }
        return decoded
    }

    /// The regions of `image` (scaled by `k`) that look like linear codes (see
    /// GrayLinear.Candidate.isCodeShaped) and hold none of `skipping`, as boxes inside `bounds`
    /// of at most `atMost` pixels: at most ``unreadRegions``.
    static func unreadLinearRegions(in image: GrayImage, k: Int, skipping: [Box], inside bounds: Box, atMost pixels: Int) -> [Box] {
        Array(GrayLinear.unread(in: image, scale: k, skipping: skipping)
            .filter(\.isCodeShaped).compactMap { $0.box(inside: bounds) }
            .filter { $0.width * $0.height <= pixels }.prefix(unreadRegions))
    }

    /// The regions of a rendered PDF page worth rendering again at twice its resolution: those
    /// that look like linear codes and hold none of `skipping`, at most ``unreadRegions``.
    package static func pdfRegions(in page: GrayImage, skipping: [Box]) -> [Box] {
        unreadLinearRegions(in: page, k: 1, skipping: skipping, inside: Box(x: 0, y: 0, width: page.width, height: page.height),
                            atMost: tiledAbove / 4)
    }

    /// The part of a `width` x `height` image that `region` names, or the whole image (a region
    /// that misses the image is named as an error once decoding ends).
    static func bounds(_ region: Region?, width: Int, height: Int) -> Box {
        region.flatMap { $0.box(inWidth: width, height: height) } ?? Box(x: 0, y: 0, width: width, height: height)
    }

    /// Whether a code the small pass found had modules under 2.5 pixels there (from its size and
    /// QR version): then smaller codes in the frame may have been too fine to read at that scale.
    package static func hasTinyModules(_ symbols: [Symbol], k: Int) -> Bool {
        symbols.contains { s in
            guard s.symbology.rawValue == "qrcode", let v = s.version.flatMap(Int.init), v >= 1 else { return false }
            let modules = Double(17 + 4 * v)
            return Double(max(s.bbox.width, s.bbox.height)) / Double(k) / modules < 2.5
        }
    }

    /// Files over this many bytes (16 MiB) are read and decoded one at a time (the whole pixel budget).
    static let largeFile = 16 << 20

    /// Images over this many pixels are read at full size in tiles (with the time budget asked
    /// between them): zxing-cpp's time grows faster than the pixels on some images (a 49 MP
    /// grid of QR finder patterns: 85 s in one call), so one call must stay small enough.
    package static let tiledAbove = 16_000_000
    /// Tiles are at most 2048 pixels a side. After a small pass they overlap by 256: a code up
    /// to 256 pixels wide lies whole in one of them, and larger ones are read by the small pass.
    /// Without one (`thorough`, a region in pixels) they overlap by half a tile, so a code up to
    /// 1024 pixels wide lies whole in one.
    static let tileSide = 2048, tileOverlap = 256

    /// The full-size pass: the whole image (or its region), or a large one tile by tile.
    private func fullSize(_ image: GrayImage, info: inout FrameInfo, order: StillOrder, afterSmallPass: Bool, deferring: Bool, clock: TimeBudget) -> [Symbol] {
        let area: Box
        if let region {
            guard let box = region.box(inWidth: image.width, height: image.height) else { return [] }  // named as an error later
            area = box
        } else {
            area = Box(x: 0, y: 0, width: image.width, height: image.height)
        }
        guard area.width * area.height > Self.tiledAbove else {
            return run(on: image, info: info, order: order, afterSmallPass: afterSmallPass, region: region, deferring: deferring)
        }
        // The tiles cover the region (or the image); each is decoded whole.
        var symbols: [Symbol] = []
        let overlap = afterSmallPass ? Self.tileOverlap : Self.tileSide / 2
        let step = Self.tileSide - overlap, right = area.x + area.width, bottom = area.y + area.height
        for y in stride(from: area.y, to: bottom, by: step) {
            for x in stride(from: area.x, to: right, by: step) {
                if x > area.x && x + overlap >= right || y > area.y && y + overlap >= bottom { continue }
                if (x > area.x || y > area.y) && !clock.allows("the rest of the full-size pass", &info) { return Symbol.merged(symbols) }
                let box = Box(x: x, y: y, width: min(Self.tileSide, right - x), height: min(Self.tileSide, bottom - y))
                symbols += run(on: image.cropped(to: box), info: info, order: order, afterSmallPass: afterSmallPass, region: nil)
                    .map { $0.offset(dx: box.x, dy: box.y) }
            }
        }
        return Symbol.merged(symbols)
    }

    /// The decoders on one image: the main ones side by side on their own threads (a large
    /// photo's work spread over the cores), then the fallback ones if those found nothing (or,
    /// in the `recheck` order, only codes of ``DecoderList/recheck``). Each decoder instance is
    /// still used by one thread at a time.
    /// `afterSmallPass`: the frame was decoded small first, so the small-pass-only decoders sit this one out.
    /// `region`: where in `image` to decode (the plan's region, or nil for a tile of it).
    private func run(on image: GrayImage, info: FrameInfo, order: StillOrder, afterSmallPass: Bool = false, deferring: Bool = false) -> [Symbol] {
        run(on: image, info: info, order: order, afterSmallPass: afterSmallPass, region: region, deferring: deferring)
    }

    /// `deferring`: in the `recheck` order, where the main decoders find nothing, the fallback
    /// ones do not run here: ``fallbackDeferred`` says so, and the plan runs them after the
    /// gray-level reader if that reads nothing either.
    private func run(on image: GrayImage, info: FrameInfo, order: StillOrder, afterSmallPass: Bool, region: Region?, deferring: Bool = false) -> [Symbol] {
        let all = workers
        let used = all.indices.filter { !(afterSmallPass && list.smallPassOnly[$0]) }
        if order == .together { return runTogether(used.map { all[$0] }, on: image, info: info, region: region) }
        let main = used.filter { !list.fallback[$0] }.map { all[$0] }
        let symbols = runTogether(main, on: image, info: info, region: region)
        let recheck = order == .recheck && !symbols.isEmpty && symbols.allSatisfy { list.recheck.contains($0.symbology.rawValue) }
        guard main.count < used.count else { return symbols }
        if order == .recheck && !symbols.isEmpty && !recheck {
            // Beside a matrix code (or another code zbar has no say on), the fallback decoders
            // look for linear codes other than EAN/UPC (``LinearDecoder``): a Code 128 beside a
            // shipping label's PDF417 that zxing-cpp passed over. Readings of a place a main
            // decoder read as another linear code are left out (one inside a matrix code goes at
            // the end).
            let read = used.filter { list.fallback[$0] }.compactMap { all[$0] as? LinearDecoder }
                .flatMap { $0.decodeLinear(image, region: region, info: info) }
                .filter { s in !symbols.contains { !Symbology.matrixCodes.contains($0.symbology.rawValue) && $0.overlaps(s) && $0.bytes != s.bytes } }
            return Symbol.merged(symbols + read)
        }
        guard symbols.isEmpty || recheck else { return symbols }
        if deferring && order == .recheck && symbols.isEmpty && list.grayLinear != nil {
            fallbackDeferred = true
            return []
        }
        let fallbacks = used.filter { list.fallback[$0] }.map { all[$0] }
        var more: [Symbol]
        if recheck {
            // A second opinion on the codes read: the fallback decoders read the place of each
            // (its box and three quarters of its longer side plus 8 pixels each way, inside the
            // region or tile: a rotated code and its add-on lie inside), not the whole image,
            // unless those places add up to the whole image's area. On Open Food Facts a
            // whole-image zbar read was a quarter of the full-size pass's time; it read nothing
            // more on the shared corpus or a review helper's 1,000 generated photos. A UPC-E or
            // EAN-8 reading that reaches a place's edge inside the image may be part of a code
            // the place cuts (zbar reads a blurred EAN-13's left half as a UPC-E): left out. (Other
            // readings there stay: a cut across its bars leaves a longer code invalid, and one
            // along its bars leaves it whole.)
            // Their readings of other symbologies, and other text where a code was read (zbar
            // took a rotated Code 128 for ITF, or read one with two characters wrong), are left
            // out. EAN/UPC readings stay: a disagreement there is settled with both in view
            // (``Symbol/resolvingEANConflicts(_:)``).
            let bounds = Self.bounds(region, width: image.width, height: image.height)
            let places = symbols.compactMap { code -> Box? in
                let b = code.bbox, reach = 3 * max(b.width, b.height) / 4 + 8
                return b.grown(dx: reach, dy: reach, inside: bounds)
            }
            if places.reduce(0, { $0 + $1.width * $1.height }) >= bounds.width * bounds.height {
                more = runTogether(fallbacks, on: image, info: info, region: region)
            } else {
                more = Symbol.merged(places.flatMap { place in
                    runTogether(fallbacks, on: image.cropped(to: place), info: info, region: nil)
                        .map { $0.offset(dx: place.x, dy: place.y) }
                        .filter { !(Symbology.shortProductCodes.contains($0.symbology.rawValue) && $0.bbox.reachesEdge(of: place, inside: bounds)) }
                })
            }
            more = more.filter { s in
                let kind = s.symbology.rawValue
                guard list.recheck.contains(kind) else { return false }
                return Symbology.eanUPC.contains(kind) || Symbology.addOns.contains(kind)
                    || !symbols.contains { $0.overlaps(s) && $0.bytes != s.bytes }
            }
        } else {
            more = runTogether(fallbacks, on: image, info: info, region: region)
        }
        return Symbol.merged(symbols + more)
    }

    private func runTogether(_ decoders: [FrameDecoder], on image: GrayImage, info: FrameInfo, region: Region?) -> [Symbol] {
        // One decoder may read a code twice too (an EAN's rows above its add-on): merged as well.
        guard decoders.count > 1 else { return Symbol.merged(decoders.first?.decode(image, region: region, info: info) ?? []) }
        let results = SymbolSlots(count: decoders.count)
        let shared = UncheckedDecoders(decoders)
        DispatchQueue.concurrentPerform(iterations: decoders.count) { i in
            results.set(i, shared.decoders[i].decode(image, region: region, info: info))
        }
        return Symbol.merged(results.all)
    }
}

/// How an image file (one chance per photo) goes through the fallback decoders.
package enum StillOrder: Sendable, Equatable {
    /// Every decoder on every image (`--effort thorough`).
    case together
    /// The fallback decoders where the main ones found nothing, or only codes the fallback ones
    /// read as well and misread less often (zbar on EAN/UPC): `balanced`.
    case recheck
    /// The fallback decoders only where the main ones found nothing (`fast`, and video frames).
    case fallback
}

/// One image's time budget: passes ask it before they start; the record says what was skipped.
private final class TimeBudget {
    private(set) var deadline: DispatchTime?
    let budget: TimeInterval?
    private var said = false
    init(budget: TimeInterval?) {
        self.budget = budget
        deadline = budget.map { DispatchTime.now() + $0 }
    }

    /// Starts the budget again: a document page's rendering (a child process) is not a pass.
    func restart() { deadline = budget.map { DispatchTime.now() + $0 } }

    /// Whether `stage` may start; when the budget is spent, says so once in `info.warnings`.
    func allows(_ stage: String, _ info: inout FrameInfo) -> Bool {
        guard let deadline, DispatchTime.now() >= deadline else { return true }
        ranOut(stage, &info)
        return false
    }

    func ranOut(_ stage: String, _ info: inout FrameInfo) {
        guard !said, let budget else { return }
        said = true
        info.warnings.append("time budget of \(budget.formatted()) s per image spent: \(stage) and what follows skipped (--time-budget)")
    }
}

extension TimeInterval {
    /// 2, 0.5: no trailing zeros.
    fileprivate func formatted() -> String { self == rounded() ? String(Int(self)) : String(self) }
}

/// A worker's decoders handed to the threads of one image: each index goes to one thread only.
private struct UncheckedDecoders: @unchecked Sendable {
    let decoders: [FrameDecoder]
    init(_ decoders: [FrameDecoder]) { self.decoders = decoders }
}

/// Write-once slots for the decoders of one image, filled concurrently, read after all finished.
private final class SymbolSlots: Sendable {
    private let slots: Mutex<[[Symbol]]>
    init(count: Int) { slots = Mutex(Array(repeating: [], count: count)) }
    func set(_ i: Int, _ symbols: [Symbol]) { slots.withLock { $0[i] = symbols } }
    var all: [Symbol] { slots.withLock { $0.flatMap { $0 } } }
}

extension Symbol {
    /// The symbol with its points scaled by `x` across and `y` down.
    func resampled(x: Double, y: Double) -> Symbol {
        var s = self
        s.points = points.map { Point(x: Int((Double($0.x) * x).rounded()), y: Int((Double($0.y) * y).rounded())) }
        s.bbox = Box(enclosing: s.points)
        return s
    }
}
