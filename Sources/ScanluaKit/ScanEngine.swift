import Foundation
import Synchronization
import ScanCore
import ScanPipeline
import ScanScript

/// Why an engine could not be made, or an input could not be scanned.
public enum ScanError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A setting out of range or unknown (a symbology or decoder name, a negative budget).
    case invalidSettings(String)
    /// A script (or the config) failed to compile or raised while loading; the message names the file and line.
    case scriptLoad(String)
    /// The input could not be read as an image: `source` and why.
    case unreadableInput(source: String, reason: String)
    /// The source of ``ScanEngine/records(from:)`` could not be opened or failed while reading.
    case source(String)

    /// The message, naming the input, setting or script.
    public var description: String {
        switch self {
        case .invalidSettings(let m), .scriptLoad(let m), .source(let m): return m
        case .unreadableInput(let source, let reason): return "\(source): \(reason)"
        }
    }
}

/// What ``ScanEngine/records(from:)`` reads.
public enum ScanSource: Sendable, Equatable {
    /// Image and document files (every page of a PDF or TIFF) and directories (scanned
    /// recursively, sorted by path), as `scanlua scan` takes them.
    case paths([String])
    /// A folder watched for new images and documents, as `scanlua watch DIR`: the images already in it first
    /// (unless `newOnly`), then each new or changed file once it has not changed for `settle`
    /// seconds (nil: the config's `settle`, else 1). It ends only when the sequence is cancelled.
    case folder(String, newOnly: Bool = false, settle: Double? = nil)
    /// A video stream: a YUV4MPEG2 or MJPEG file or FIFO, or a V4L2 camera (`/dev/video0`).
    case stream(String)
}

/// The scanning engine: decoders and the Lua scripts, configured once by ``ScanSettings``.
///
/// ```swift
/// let engine = try ScanEngine()                        // shipped handlers, balanced effort
/// for record in try engine.scan(file: "receipt.jpg") {
///     print(record.symbology ?? "", record.payload?["type"]?.string ?? "")
/// }
/// ```
///
/// An engine holds one Lua state: use it from one thread at a time (it is not `Sendable`).
/// Decoding itself runs on ``ScanSettings/threads`` threads inside each call. Records come back
/// in input order, byte for byte what `scanlua scan` prints for the same settings.
public final class ScanEngine {
    /// The settings the engine was made with.
    public let settings: ScanSettings
    private let engine: ScriptEngine
    private let session: ScanSession
    private let output = RecordDecoder()

    /// Loads the config (if ``ScanSettings/config`` names one), the shipped handlers and the
    /// scripts, and checks the settings.
    /// - Throws: ``ScanError/invalidSettings(_:)`` or ``ScanError/scriptLoad(_:)``.
    public init(_ settings: ScanSettings = ScanSettings()) throws(ScanError) {
        self.settings = settings
        (engine, session) = try Self.make(settings, output: output, defaults: "all")
    }

    /// The records of one image or document file (JPEG, PNG, PNM, TIFF, WebP, HEIF/AVIF, GIF, BMP,
    /// PDF; the format is read from its bytes; every page of a document, each record with its ``ScanRecord/page``).
    /// - Throws: ``ScanError/unreadableInput(source:reason:)`` when it cannot be read or is not an image.
    public func scan(file path: String) throws(ScanError) -> [ScanRecord] {
        try scan(FileListSource(inputs: [.file(path)], name: path, options: session.settings.decodeOptions))
    }

    /// The records of an encoded image or document in memory (any format ``scan(file:)`` reads);
    /// `name` is their `source`.
    public func scan(data: Data, name: String = "data") throws(ScanError) -> [ScanRecord] {
        try scan(FileListSource(inputs: [.data(data, name: name)], name: name, options: session.settings.decodeOptions))
    }

    /// The layout of a pixel buffer.
    public enum PixelFormat: Sendable {
        /// One byte per pixel, 0 black to 255 white.
        case gray
        /// Three bytes per pixel: red, green, blue.
        case rgb
    }

    /// The records of a pixel buffer, rows top to bottom without padding; it is read as a still
    /// image (every pass of the effort), as a file would be.
    /// - Throws: ``ScanError/unreadableInput(source:reason:)`` when `pixels` does not hold `width` x `height` pixels.
    public func scan(pixels: [UInt8], width: Int, height: Int, format: PixelFormat = .gray, name: String = "pixels") throws(ScanError) -> [ScanRecord] {
        let channels = format == .gray ? 1 : 3
        guard width > 0, height > 0, width.multipliedReportingOverflow(by: height * channels).partialValue == pixels.count else {
            throw .unreadableInput(source: name, reason: "expected \(width) x \(height) x \(channels) bytes, got \(pixels.count)")
        }
        // As a PGM/PPM image: the loader and the still-image plan take it like a file.
        var data = Data("\(format == .gray ? "P5" : "P6")\n\(width) \(height)\n255\n".utf8)
        data.append(contentsOf: pixels)
        return try scan(data: data, name: name)
    }

    private func scan(_ source: FileListSource) throws(ScanError) -> [ScanRecord] {
        output.records.removeAll()
        session.run(source, continuing: true)
        defer { output.records.removeAll() }
        if output.records.count == 1, let error = output.records[0].error {
            throw .unreadableInput(source: output.records[0].source, reason: error)
        }
        return output.records
    }

    /// Runs a source to its end (or until the task is cancelled or the loop breaks) and yields
    /// its records as they come. An input that cannot be read is a record with ``ScanRecord/error``
    /// set, and the rest goes on.
    ///
    /// The source runs on a thread of its own, in an engine of its own made with the same
    /// settings (a Lua state serves one thread); `scan.on_stop` runs when it ends.
    /// - Throws (from the sequence): ``ScanError`` when the engine cannot be made or the source cannot be opened.
    public func records(from source: ScanSource) -> AsyncThrowingStream<ScanRecord, any Error> {
        let settings = settings
        return AsyncThrowingStream(ScanRecord.self) { continuation in
            let cancelled = StopFlag()
            continuation.onTermination = { _ in cancelled.set() }
            Thread.detachNewThread {
                let output = RecordDecoder()
                output.forward = { continuation.yield($0) }
                do throws(ScanError) {
                    let isFiles = if case .paths = source { true } else { false }
                    let (engine, session) = try Self.make(settings, output: output, defaults: isFiles ? "all" : "interval")
                    let frames: FrameSource
                    switch source {
                    case .paths(let paths): frames = FileListSource(arguments: paths, options: session.settings.decodeOptions)
                    case .folder(let dir, let newOnly, let settle):
                        do {
                            frames = try SourceOpener.open(dir, kind: "dir", newOnly: newOnly, settle: settle ?? engine.configOptions[.settle] ?? 1,
                                                           options: session.settings.decodeOptions)
                        } catch { throw .source("\(error)") }
                    case .stream(let path):
                        do { frames = try SourceOpener.open(path, kind: nil) } catch { throw .source("\(error)") }
                    }
                    session.shouldStop = { cancelled.isSet }
                    let report = session.run(frames)
                    if let error = report.sourceError { throw .source(error.message) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
        }
    }

    deinit { session.end() }

    /// An engine and its session, as the CLI makes them from flags.
    private static func make(_ settings: ScanSettings, output: RecordDecoder, defaults duplicates: String) throws(ScanError) -> (ScriptEngine, ScanSession) {
        let values = try settings.optionValues()
        var options = ScriptOptions(values)
        options.findsConfig = false
        options.shippedDirectory = settings.shippedHandlersDirectory
        options.loads = settings.scripts.map {
            switch $0 {
            case .file(let path): return .file(path)
            case .directory(let path): return .directory(path)
            case .source(let name, let code): return .source(name: name, code: code)
            }
        }
        let engine: ScriptEngine
        do { engine = try ScriptSetup.makeEngine(options) } catch { throw .scriptLoad(error.message) }
        if settings.summaries { engine.enableSummaries() }
        var defaults = OptionValues()
        defaults[OptionKey<DuplicatePolicy>.duplicates.name] = .string(duplicates)
        do {
            let resolved = try SessionSettings.resolve(values, config: engine.configOptions, defaults: defaults,
                                                       luaSymbologies: engine.luaSymbologies)
            engine.enabledDecoderNames = resolved.luaDecoders
            return (engine, ScanSession(settings: resolved, engine: engine, sink: output.writer(emptyRecords: resolved.emptyRecords)))
        } catch {
            throw .invalidSettings(error.message)
        }
    }
}

@available(*, unavailable) extension ScanEngine: Sendable {}

/// The session's NDJSON records as typed values (each line decoded, so what the library returns
/// is what the CLI prints): kept for the caller, or handed on as they come.
private final class RecordDecoder {
    var records: [ScanRecord] = []
    /// Set: records go there as they come instead of into ``records``.
    var forward: ((ScanRecord) -> Void)?
    private let decoder = JSONDecoder()

    /// A writer of NDJSON records into this.
    func writer(emptyRecords: Bool) -> RecordWriter {
        let writer = RecordWriter(format: .ndjson)
        writer.writesEmptyRecords = emptyRecords
        writer.output = { line, summary in self.take(line, summary: summary) }  // no cycle: the writer does not hold it back
        return writer
    }

    private func take(_ line: [UInt8], summary: String?) {
        // The records are the library's own JSON: one that does not decode is a programming error.
        guard var record = try? decoder.decode(ScanRecord.self, from: Data(line)) else {
            preconditionFailure("record does not decode: \(String(decoding: line, as: UTF8.self))")
        }
        record.summary = summary
        if let forward { forward(record) } else { records.append(record) }
    }
}

/// Set from another thread (a cancelled sequence), read by the session between frames.
private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
}
