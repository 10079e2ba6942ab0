import Dispatch
import Foundation

/// The symbols found in one input, or why the input could not be read.
public struct ScanResult: Sendable {
    public var info: FrameInfo
    public var outcome: Result<[Symbol], ImageError>
    /// The decoded frame, kept when ``ImageScanner/keepImages`` is set (for Lua decoders).
    public var image: GrayImage?

    public init(info: FrameInfo, outcome: Result<[Symbol], ImageError>, image: GrayImage? = nil) {
        self.info = info
        self.outcome = outcome
        self.image = image
    }
}

/// Loads and decodes still images on all cores, handing results back in input order.
public struct ImageScanner: Sendable {
    public var loader: ImageLoader
    public var symbologies: Set<Symbology>
    /// Only this part of each frame is decoded; points stay in frame coordinates.
    public var region: Region?
    /// Keep each decoded frame in its ``ScanResult`` (Lua decoders read it afterwards).
    public var keepImages = false

    public init(loader: ImageLoader = ImageLoader(), symbologies: Set<Symbology>, region: Region? = nil) {
        self.loader = loader
        self.symbologies = symbologies
        self.region = region
    }

    /// Decodes one image with a fresh zbar scanner, inside ``region`` when one is set.
    public func scan(_ image: GrayImage) -> [Symbol] {
        guard !symbologies.isEmpty else { return [] }
        guard let region else { return ZBarDecoder(symbologies: symbologies).decode(image) }
        guard let box = region.box(inWidth: image.width, height: image.height) else { return [] }
        return ZBarDecoder(symbologies: symbologies).decode(image.cropped(to: box)).map { $0.offset(dx: box.x, dy: box.y) }
    }

    /// Loads and decodes one input. `stdinData` is the image read from standard input, if any.
    public func scan(_ input: Input, stdinData: Data? = nil) -> ScanResult {
        var info = FrameInfo(source: input.name)
        let image: GrayImage
        do throws(ImageError) {
            switch input {
            case .file(let path): image = try loader.load(path: path)
            case .stdin: image = try loader.decode(stdinData ?? Data(), name: "-")
            case .missing(let path, let reason): throw .unreadable(path: path, reason: reason)
            }
        } catch {
            return ScanResult(info: info, outcome: .failure(error))
        }
        info.width = image.width
        info.height = image.height
        return ScanResult(info: info, outcome: .success(scan(image)), image: keepImages ? image : nil)
    }

    /// Scans every input, decoding up to `2 * cores` images at once, and calls `body` for each
    /// result in input order until it returns false. Memory stays bounded by the window.
    public func scanAll(_ inputs: [Input], stdinData: Data? = nil, _ body: (ScanResult) -> Bool) {
        let window = max(1, ProcessInfo.processInfo.activeProcessorCount * 2)
        var start = 0
        while start < inputs.count {
            let batch = Array(inputs[start..<min(start + window, inputs.count)])
            let results = ResultSlots(count: batch.count)
            DispatchQueue.concurrentPerform(iterations: batch.count) { i in
                results.set(i, scan(batch[i], stdinData: stdinData))
            }
            for result in results.values where !body(result) { return }
            start += batch.count
        }
    }
}

/// Write-once slots filled concurrently by index, read after all writers finished.
private final class ResultSlots: @unchecked Sendable {
    private var slots: [ScanResult?]
    private let lock = NSLock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ value: ScanResult) {
        lock.lock()
        slots[i] = value
        lock.unlock()
    }

    var values: [ScanResult] { slots.map { $0! } }
}
