import Foundation
import ScanCore
import ScanScript
import ScanStore

/// `scanlua scan PATH...`: decode every code in image files, directories and stdin.
enum ScanCommand {
    static let command = Command(
        name: "scan",
        abstract: "Decode every barcode and QR code in images and print one record per symbol.",
        usage: "scanlua scan [--format ndjson|text] [--raw] [--symbologies LIST] [--roi X,Y,W,H] [--max-pixels N] [--script FILE]... PATH...",
        details: """
            ARGUMENTS:
              PATH                    An image file (JPEG, PNG, PGM/PPM; format read from its bytes),
                                      a directory (scanned recursively for .jpg .jpeg .png .pgm .ppm .pnm,
                                      sorted by path), or - for an image on standard input.

            OPTIONS:
              --format ndjson|text    ndjson (default): one JSON object per symbol on stdout.
                                      text: zbarimg style, e.g. QR-Code:hello, with payloads below.
              --raw                   Print only the decoded texts, one per line (like zbarimg --raw).
              --symbologies LIST      Comma-separated zbar symbologies to decode (default: all but isbn10),
                                      or none (only Lua decoders): \(Symbology.zbarNames.joined(separator: ","))
              --roi X,Y,W,H           Decode only this region: pixels, or fractions of the frame
                                      (0.25,0.25,0.5,0.5); points stay in frame coordinates.
              --max-pixels N          Refuse images larger than N pixels, from the header (default 100000000).
            \(SessionFlags.help)
                                      (scan's default is --duplicates all: every image reports its codes.)
            \(ScriptFlags.help)
              -h, --help              Show help information.

            EXIT STATUS:
              0 something decoded in every input, 4 nothing found in at least one input,
              1 an input could not be read (its record says why), 2 usage error or a script that fails to load.
            """,
        run: run)

    static func run(_ args: inout ArgumentList) throws -> Int32 {
        var format = OutputFormat.ndjson
        var symbologies = Set(Symbology.defaultNames.map(Symbology.init(rawValue:)))
        var maxPixels = ImageLoader.defaultMaxPixels
        var region: Region?
        var scripts = ScriptFlags()
        var session = SessionFlags(duplicates: .all)
        while let option = args.nextOption() {
            if try scripts.parse(option, &args) || session.parse(option, &args) { continue }
            switch option {
            case "--format":
                let v = try args.value(for: option)
                guard v == "ndjson" || v == "text" else {
                    throw UsageError("invalid value '\(v)' for '--format': expected ndjson or text")
                }
                format = OutputFormat(rawValue: v)!
            case "--raw":
                try args.noValue(for: option)
                format = .raw
            case "--symbologies":
                symbologies = try parseSymbologies(try args.value(for: option))
            case "--max-pixels":
                maxPixels = try args.intValue(for: option, in: 1...Int(UInt32.max) * 16)
            case "--roi":
                region = try parseRegion(try args.value(for: option))
            default:
                throw UsageError("unknown option '\(option)'")
            }
        }
        guard !args.positionals.isEmpty else { throw UsageError("missing PATH: name an image, a directory or -") }

        // Scripts load before any image is read, so a broken script costs nothing.
        let engine = try scripts.makeEngine()
        if format == .text { engine.enableSummaries() }
        try session.apply(config: engine.sessionOptions)
        if region == nil, case .string(let v)? = engine.sessionOptions["roi"] { region = try parseRegion(v) }
        let pipeline = ScriptPipeline(engine: engine, runner: ActionRunner(dryRun: scripts.dryRun, trusted: engine.limits.trust),
                                      writer: RecordWriter(format: format))

        let inputs = Input.expand(args.positionals)
        let stdinData = inputs.contains(.stdin) ? FileHandle.standardInput.readDataToEndOfFile() : nil
        var scanner = ImageScanner(loader: ImageLoader(maxPixels: maxPixels), symbologies: symbologies, region: region)
        scanner.keepImages = engine.hasDecoders
        var filter = session.filter
        var failed = false, empty = inputs.isEmpty
        let frameHooks = engine.hookCount("frame") > 0
        var frames = 0
        engine.sessionStarted()
        if inputs.isEmpty { Console.error("scanlua: no images found in \(args.positionals.joined(separator: " "))\n") }
        scanner.scanAll(inputs, stdinData: stdinData) { result in
            switch result.outcome {
            case .failure(let error):
                failed = true
                pipeline.writer.write(ScanRecord(info: result.info, inputError: error.reason))
            case .success(var symbols):
                // Lua decoders run here, on the Lua thread, after zbar decoded the frame in parallel.
                if let image = result.image { symbols += engine.decode(image, region: region, info: result.info) }
                frames += 1
                if frameHooks { engine.frameScanned(result.info, symbols: symbols) }
                if symbols.isEmpty { empty = true }
                pipeline.process(filter.accept(symbols, at: result.info.time), info: result.info)
            }
            return !pipeline.runner.stopRequested && !filter.isDone
        }
        engine.sessionStopped(frames: frames, accepted: filter.acceptedCount, dropped: 0)
        return failed ? ExitStatus.failure : empty ? ExitStatus.nothingFound : ExitStatus.success
    }

    static func parseSymbologies(_ list: String) throws(UsageError) -> Set<Symbology> {
        if list.trimmingCharacters(in: .whitespaces).lowercased() == "none" { return [] }
        var set = Set<Symbology>()
        for name in list.split(separator: ",", omittingEmptySubsequences: true) {
            let n = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard Symbology.zbarNames.contains(n) else {
                throw UsageError("unknown symbology '\(n)'; known: \(Symbology.zbarNames.joined(separator: ","))")
            }
            set.insert(Symbology(rawValue: n))
        }
        guard !set.isEmpty else { throw UsageError("--symbologies needs at least one name, or none") }
        return set
    }
}

/// Symbols of one frame -> events -> scripts -> actions -> records on stdout. Shared by scan and simulate.
struct ScriptPipeline {
    let engine: ScriptEngine
    let runner: ActionRunner
    let writer: RecordWriter

    /// Every symbol of a frame, each with the others as siblings.
    func process(_ symbols: [Symbol], info: FrameInfo) {
        for event in ScanEvent.events(of: symbols, info: info) { process(event) }
    }

    /// One event in one store transaction: what its rules wrote commits only when none of them
    /// failed and this is not a dry run.
    func process(_ event: ScanEvent) {
        var storeErrors: [JSON] = []
        do { try engine.store.beginEvent() } catch {
            storeErrors.append(.object([("message", .string("store: \(error)"))]))
        }
        let result = engine.process(event)
        do { try engine.store.endEvent(commit: result.errors.isEmpty && !runner.dryRun) } catch {
            storeErrors.append(.object([("message", .string("store: \(error)"))]))
        }
        var record = ScanRecord(info: event.info, symbol: event.symbol)
        record.payload = result.payload
        record.actions = runner.carryOut(result.actions)
        record.emitted = result.emitted
        record.errors = result.errors + storeErrors
        record.summary = result.summary
        writer.write(record)
    }
}
