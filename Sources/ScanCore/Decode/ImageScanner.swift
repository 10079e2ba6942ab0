import Dispatch
import Foundation

/// The symbols found in one input, or why the input could not be read.
public struct ScanResult: Sendable {
    public var info: FrameInfo
    public var outcome: Result<[Symbol], ImageError>

    public init(info: FrameInfo, outcome: Result<[Symbol], ImageError>) {
        self.info = info
        self.outcome = outcome
    }
}

/// Loads and decodes still images on all cores, handing results back in input order.
public struct ImageScanner: Sendable {
    public var loader: ImageLoader
    public var symbologies: Set<Symbology>

    public init(loader: ImageLoader = ImageLoader(), symbologies: Set<Symbology>) {
        self.loader = loader
        self.symbologies = symbologies
    }

    /// Decodes one image with a fresh zbar scanner.
    public func scan(_ image: GrayImage) -> [Symbol] {
        ZBarDecoder(symbologies: symbologies).decode(image)
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
        return ScanResult(info: info, outcome: .success(scan(image)))
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
