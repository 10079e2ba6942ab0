import Dispatch
import Foundation

/// One item of a source after the worker decoders: in source order, with when it arrived.
public struct DecodedFrame: Sendable {
    public var info: FrameInfo
    /// The symbols the worker decoders read, or why the file could not be loaded.
    public var outcome: Result<[Symbol], ImageError>
    /// The frame's pixels, kept when the session has decoders of its own to run on them (or
    /// frame observers to draw them).
    public var image: GrayImage?
    /// When the source handed the item over.
    public var arrival: DispatchTime
    /// Whether the item was an image file (or stdin), not a frame of a stream.
    public var still = false
    /// An image file's bytes, kept for frame observers (a copy in color, in its own format).
    public var bytes: Data?
}

/// How an image file (one chance per photo) goes through the fallback decoders.
public enum StillOrder: Sendable, Equatable {
    /// Every decoder on every image (`--effort thorough`).
    case together
    /// The fallback decoders where the main ones found nothing, or only codes the fallback ones
    /// read as well and misread less often (zbar on EAN/UPC): `balanced`.
    case recheck
    /// The fallback decoders only where the main ones found nothing (`fast`, and video frames).
    case fallback
}

/// Limits of a scanning session.
public struct StreamLimits: Sendable, Equatable {
    public var maxFrames: Int?
    public var maxFPS: Double?
    public var timeout: TimeInterval?
    public init(maxFrames: Int? = nil, maxFPS: Double? = nil, timeout: TimeInterval? = nil) {
        self.maxFrames = maxFrames
        self.maxFPS = maxFPS
        self.timeout = timeout
    }
}

/// Reads a source on its own thread, loads and decodes its items on a pool of workers (each with
/// its own instances of the worker decoders), and hands the results to the caller's thread in
/// source order. A live source's frames are dropped (and counted) when the decoders are behind,
/// so memory stays bounded; files and pipes wait for the decoders, so every frame is decoded.
public final class FrameScanner: @unchecked Sendable {
    private let source: FrameSource
    private let decoders: DecoderList
    private let loader: ImageLoader
    private let region: Region?
    private let keepImages: Bool
    /// Hand over what frame observers draw on: a video frame's pixels, an image file's bytes.
    private let keepFrames: Bool
    private let pyramid: Pyramid
    /// How image files use the fallback decoders; video frames always use the fallback order
    /// (the next frame has another chance).
    private let stillOrder: StillOrder
    private let limits: StreamLimits
    private let workers: Int
    private let capacity: Int

    private let lock = NSCondition()
    private var queue: [(Int, SourceItem, DispatchTime)] = []
    private var results: [Int: DecodedFrame] = [:]
    private var readCount = 0
    private var readerDone = false
    private var stopped = false
    private var sourceError: SourceError?
    /// Decoder threads still running: `run` waits for them, so no decoder is inside zxing-cpp
    /// (C++ with static state) when the process exits.
    private var runningWorkers = 0
    /// Frames this scanner dropped because the decoders were behind a live source.
    public private(set) var droppedByDecoder = 0

    public init(source: FrameSource, decoders: DecoderList, loader: ImageLoader = ImageLoader(), region: Region? = nil,
                limits: StreamLimits = StreamLimits(), pyramid: Pyramid = Pyramid(effort: .balanced),
                stillOrder: StillOrder = .together, keepFrames: Bool = false, workers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)) {
        self.stillOrder = stillOrder
        // A region in pixels is in full-frame terms: no reduced pass then.
        self.pyramid = region.map { $0.isFraction } ?? true ? pyramid : Pyramid(effort: .thorough)
        self.source = source
        self.decoders = decoders
        self.loader = loader
        self.region = region
        self.keepImages = !decoders.sessionDecoders.isEmpty
        self.keepFrames = keepFrames
        self.limits = limits
        self.workers = workers
        self.capacity = workers * 2
    }

    /// Frames dropped by the driver or by this scanner.
    public var dropped: Int { source.dropped + droppedByDecoder }

    /// Runs until the source ends, a limit is reached, or `body` returns false. `body` runs on
    /// the calling thread, in source order.
    /// - Throws: the source's error (after the items before it were handed over).
    /// `stop` is asked a few times a second while no frame is ready (a signal arrived).
    public func run(stop: () -> Bool = { false }, _ body: (DecodedFrame) -> Bool) throws(SourceError) {
        let deadline = limits.timeout.map { Date().addingTimeInterval($0) }
        let reader = Thread { [self] in readLoop(deadline: deadline) }
        reader.start()
        lock.lock()
        runningWorkers = workers
        lock.unlock()
        for _ in 0..<workers { Thread { [self] in decodeLoop() }.start() }
        var next = 0
        while true {
            lock.lock()
            var asked = false
            while results[next] == nil && !(readerDone && next >= readCount) {
                if stop() { asked = true; break }
                _ = lock.wait(until: Date().addingTimeInterval(0.2))
            }
            guard !asked, let item = results.removeValue(forKey: next) else {
                lock.unlock()
                break
            }
            lock.broadcast()
            lock.unlock()
            next += 1
            if !body(item) { break }
        }
        lock.lock()
        stopped = true
        lock.broadcast()
        while runningWorkers > 0 { lock.wait() }
        let error = sourceError
        lock.unlock()
        if let error { throw error }
    }

    private func readLoop(deadline: Date?) {
        var lastRead: DispatchTime?
        while true {
            lock.lock()
            let stop = stopped || limits.maxFrames.map { readCount >= $0 } ?? false
            lock.unlock()
            if stop { break }
            if let fps = limits.maxFPS, fps > 0, let last = lastRead {
                let gap = UInt64(1e9 / fps)
                let now = DispatchTime.now().uptimeNanoseconds
                if now < last.uptimeNanoseconds + gap { Thread.sleep(forTimeInterval: Double(last.uptimeNanoseconds + gap - now) / 1e9) }
            }
            let item: SourceItem?
            do { item = try source.next(deadline: deadline) } catch {
                lock.lock()
                sourceError = error
                lock.unlock()
                break
            }
            guard let item else { break }
            lastRead = DispatchTime.now()
            lock.lock()
            if source.isLive && queue.count + results.count >= capacity {
                droppedByDecoder += 1  // the decoders are behind a live camera: skip this frame
            } else {
                while !stopped && queue.count + results.count >= capacity { lock.wait() }
                queue.append((readCount, item, lastRead!))
                readCount += 1
                lock.broadcast()
            }
            lock.unlock()
        }
        lock.lock()
        readerDone = true
        lock.broadcast()
        lock.unlock()
    }

    private func decodeLoop() {
        // This thread's own decoder instances, reused for every frame it decodes.
        let mine = decoders.makeWorkerDecoders()
        let retries = decoders.retries?()
        while true {
            lock.lock()
            while queue.isEmpty && !readerDone && !stopped { lock.wait() }
            if queue.isEmpty || stopped {
                runningWorkers -= 1
                lock.broadcast()
                lock.unlock()
                return
            }
            let (n, item, arrival) = queue.removeFirst()
            lock.unlock()
            let result = decode(item, with: mine, retries: retries, arrival: arrival)
            lock.lock()
            results[n] = result
            lock.broadcast()
            lock.unlock()
        }
    }

    /// Loads the item if it is a file, and runs the worker decoders: on a large frame first at a
    /// reduced size (the scale pyramid), at full size only if that found nothing.
    /// Pixels the decoding threads may hold at once (their images and the decoders' copies of
    /// them): a crafted file's megapixels cost memory whatever its size on disk, so two large
    /// images decode one after the other. With the default `--max-pixels` (50 MP) a scan stays
    /// under about 300 MB whatever the number of threads.
    public static let sharedPixels = 64_000_000
    private let budget = PixelBudget(capacity: FrameScanner.sharedPixels)

    private func decode(_ item: SourceItem, with decoders: [FrameDecoder], retries: StillRetries?, arrival: DispatchTime) -> DecodedFrame {
        var held = 0
        defer { budget.release(held) }
        var info: FrameInfo
        var full: GrayImage?
        var data: Data?
        var symbols: [Symbol] = []
        var order = StillOrder.fallback
        var still = false
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
                case .file(let path): data = try loader.read(path: path)
                case .data(let d, _): data = d
                case .stdin: data = FileHandle.standardInput.readDataToEndOfFile()
                case .missing(let path, let reason): throw .unreadable(path: path, reason: reason)
                }
                // Its size from the header, before anything is decoded (over --max-pixels: the
                // loader refuses it below, holding nothing).
                if let data, let size = ImageHeader.size(data), size.width * size.height <= loader.maxPixels {
                    held = budget.acquire(size.width * size.height)
                }
            }
            // The small pass: a JPEG file is decoded small from its DCT coefficients.
            var small: (image: GrayImage, k: Int)?
            if let data, ImageFormat.sniff(data) == .jpeg, let k = jpegReduction(data) {
                let image = try loader.decode(data, name: info.source, reduction: k)
                small = (image, k)
                info.warnings = image.warnings
                info.width = image.width * k
                info.height = image.height * k
            } else {
                if full == nil, let data { full = try loader.decode(data, name: info.source) }
                if let image = full { info.warnings = image.warnings }
                if let image = full, let k = pyramid.reduction(width: image.width, height: image.height) {
                    small = (image.reduced(by: k), k)
                }
            }
            var trustSmall = false
            if let small {
                symbols = run(decoders, on: small.image, info: info, order: order).map { $0.scaled(by: small.k) }
                trustSmall = !symbols.isEmpty && !Self.hasTinyModules(symbols, k: small.k)
                    && !(still && Self.coveredFraction(symbols, width: info.width, height: info.height) < Self.smallCodesBelow)
            }
            if !trustSmall || keepImages {
                if full == nil, let data { full = try loader.decode(data, name: info.source) }
                if let image = full {
                    info.width = image.width
                    info.height = image.height
                    if info.warnings.isEmpty { info.warnings = image.warnings }
                    // Nothing found small, or codes so fine there that smaller ones may have been missed.
                    if !trustSmall {
                        symbols = Symbol.merged(run(decoders, on: image, info: info, order: order, afterSmallPass: small != nil) + symbols)
                    }
                }
            }
            // A still image gets one more chance where something is left open (a dark photo,
            // nothing read, a QR code found but not decoded): see StillRetries.
            if still, let retries, let (image, k) = full.map({ ($0, 1) }) ?? small {
                let (open, read) = retries.check(image, k: k, found: symbols, region: region)
                if !read.isEmpty { symbols = Symbol.merged(symbols + read) }
                if open.any {
                    if full == nil, let data { full = try loader.decode(data, name: info.source) }
                    if let image = full { symbols = Symbol.merged(symbols + retries.retry(image, open: open, region: region)) }
                }
            }
            // Blurred product codes the binarizing readers lost: the gray-level reader, where no
            // EAN/UPC code was read.
            if still, let gray = self.decoders.grayLinear, !symbols.contains(where: { Symbology.eanUPC.contains($0.symbology.rawValue) }) {
                if full == nil, let data { full = try loader.decode(data, name: info.source) }
                if let image = full {
                    let read = symbols.map(\.bbox)
                    symbols = Symbol.merged(symbols + image.decode(inside: region) { part in
                        gray.decode(part, skipping: region == nil ? read : [])
                    })
                }
            }
        } catch {
            return DecodedFrame(info: FrameInfo(source: info.source), outcome: .failure(error), image: nil, arrival: arrival)
        }
        // A region that misses the frame entirely is a mistake to name, not an empty frame.
        if let region, info.width > 0, info.height > 0, region.box(inWidth: info.width, height: info.height) == nil {
            return DecodedFrame(info: FrameInfo(source: info.source, index: info.index),
                                outcome: .failure(.regionOutside(path: info.source, region: region.text, width: info.width, height: info.height)),
                                image: nil, arrival: arrival)
        }
        // Decoders put corners one past the last module, and a scaled pass rounds outwards: points
        // stay inside the frame.
        let inside = symbols.map { $0.clamped(width: info.width, height: info.height) }
        // Frame observers get a still's bytes (a copy in color and in its format) and a video frame's pixels.
        var decoded = DecodedFrame(info: info, outcome: .success(inside), image: keepImages || (keepFrames && !still) ? full : nil,
                                   arrival: arrival)
        decoded.still = still
        if keepFrames && still { decoded.bytes = data }
        return decoded
    }

    /// A still image whose small pass found codes covering less than this fraction of it is read
    /// at full size too: a photo of many small codes (a tray of DataMatrix labels, a shipping
    /// label) holds more that the small pass could not resolve. A video frame keeps the small
    /// pass's reading (the next frame has another chance).
    static let smallCodesBelow = 0.2

    /// The fraction of a `width` x `height` frame the symbols' boxes cover (overlaps counted twice).
    static func coveredFraction(_ symbols: [Symbol], width: Int, height: Int) -> Double {
        guard width > 0, height > 0 else { return 1 }
        return Double(symbols.reduce(0) { $0 + $1.bbox.width * $1.bbox.height }) / Double(width * height)
    }

    /// Whether a code the small pass found had modules under 2.5 pixels there (from its size and
    /// QR version): then smaller codes in the frame may have been too fine to read at that scale.
    static func hasTinyModules(_ symbols: [Symbol], k: Int) -> Bool {
        symbols.contains { s in
            guard s.symbology.rawValue == "qrcode", let v = s.version.flatMap(Int.init), v >= 1 else { return false }
            let modules = Double(17 + 4 * v)
            return Double(max(s.bbox.width, s.bbox.height)) / Double(k) / modules < 2.5
        }
    }

    /// The JPEG's reduction for its small pass, from its header (nil: small enough already).
    private func jpegReduction(_ data: Data) -> Int? {
        guard let (w, h) = JPEGHeader.size(data) else { return nil }
        return pyramid.reduction(width: w, height: h)
    }

    /// The decoders on one image: the main ones side by side on their own threads (a large
    /// photo's work spread over the cores), then the fallback ones if those found nothing (or,
    /// in the `recheck` order, only codes of ``DecoderList/recheck``). Each decoder instance is
    /// still used by one thread at a time.
    /// `afterSmallPass`: the frame was decoded small first, so the small-pass-only decoders sit this one out.
    private func run(_ all: [FrameDecoder], on image: GrayImage, info: FrameInfo, order: StillOrder, afterSmallPass: Bool = false) -> [Symbol] {
        let used = all.indices.filter { !(afterSmallPass && decoders.smallPassOnly[$0]) }
        if order == .together { return runTogether(used.map { all[$0] }, on: image, info: info) }
        let main = used.filter { !decoders.fallback[$0] }.map { all[$0] }
        let symbols = runTogether(main, on: image, info: info)
        let recheck = order == .recheck && !symbols.isEmpty && symbols.allSatisfy { decoders.recheck.contains($0.symbology.rawValue) }
        guard symbols.isEmpty || recheck, main.count < used.count else { return symbols }
        return Symbol.merged(symbols + runTogether(used.filter { decoders.fallback[$0] }.map { all[$0] }, on: image, info: info))
    }

    private func runTogether(_ decoders: [FrameDecoder], on image: GrayImage, info: FrameInfo) -> [Symbol] {
        // One decoder may read a code twice too (an EAN's rows above its add-on): merged as well.
        guard decoders.count > 1 else { return Symbol.merged(decoders.first?.decode(image, region: region, info: info) ?? []) }
        let results = SymbolSlots(count: decoders.count)
        let region = self.region
        let shared = UncheckedDecoders(decoders)
        DispatchQueue.concurrentPerform(iterations: decoders.count) { i in
            results.set(i, shared.decoders[i].decode(image, region: region, info: info))
        }
        return Symbol.merged(results.all)
    }
}

/// A worker's decoders handed to the threads of one image: each index goes to one thread only.
private struct UncheckedDecoders: @unchecked Sendable {
    let decoders: [FrameDecoder]
    init(_ decoders: [FrameDecoder]) { self.decoders = decoders }
}

/// Write-once slots for the decoders of one image, filled concurrently, read after all finished.
private final class SymbolSlots: @unchecked Sendable {
    private var slots: [[Symbol]]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: [], count: count) }
    func set(_ i: Int, _ symbols: [Symbol]) {
        lock.lock()
        slots[i] = symbols
        lock.unlock()
    }
    var all: [Symbol] { slots.flatMap { $0 } }
}

/// A count of pixels shared by the decoding threads: `acquire` waits until its amount is free
/// (an amount over the whole capacity takes all of it).
final class PixelBudget: @unchecked Sendable {
    private let capacity: Int
    private var free: Int
    private let condition = NSCondition()

    init(capacity: Int) {
        self.capacity = capacity
        free = capacity
    }

    /// Waits for `pixels` (at most the capacity) and returns what it took.
    func acquire(_ pixels: Int) -> Int {
        let n = min(max(pixels, 0), capacity)
        condition.lock()
        while free < n { condition.wait() }
        free -= n
        condition.unlock()
        return n
    }

    func release(_ n: Int) {
        guard n > 0 else { return }
        condition.lock()
        free += n
        condition.broadcast()
        condition.unlock()
    }
}
