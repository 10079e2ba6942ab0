import Foundation
import ScanCore
import ScanPipeline

/// `scanlua scan PATH...`: decode every code in image files, directories and stdin.
enum ScanCommand {
    static let command = Command(
        name: "scan",
        abstract: "Decode every barcode and QR code in images and print one record per symbol.",
        usage: "scanlua scan [output options] [decoding options] [session options] [script options] [batch options] PATH...",
        arguments: """
            ARGUMENTS:
              PATH                    An image or document (JPEG, PNG, PNM, TIFF, WebP, HEIF/AVIF, GIF, BMP,
                                      PDF; the format is read from its bytes, every page of a PDF or TIFF),
                                      a directory (every file in it and below, sorted by path; one that
                                      is no image is named on stderr), or - for standard input (images
                                      one after another are each read).
            """,
        options: Option.names(in: [.output, .decoding, .session, .scripts, .batch]),
        notes: """
            scan's default is --duplicates all: every image reports its codes.

            EXIT STATUS:
              0 something decoded in every input (a document's or animation's pages together), 4 nothing
              found in at least one input,
              1 an input could not be read (its record says why), 2 usage error or a script that fails to load,
              3 a script raised an error on some record (its errors say where; over 0 and 4).
            """,
        run: run)

    static func run(_ args: inout ArgumentList, _ o: OptionValues) throws -> Int32 {
        guard !args.positionals.isEmpty else { throw UsageError("missing PATH: name an image, a directory or -") }
        // Scripts load before any image is read, so a broken script costs nothing.
        let engine = try makeEngine(o)
        let session = try makeSession(o, engine: engine, defaults: OptionValues([("duplicates", .string("all"))]))
        let shard = try o.value(.shard)
        let source = FileListSource(arguments: args.positionals, shard: shard, excluding: o[.annotate], options: session.settings.decodeOptions)
        if let writer = session.sink as? RecordWriter {
            writer.saysNothingFound = true
            writer.namesSources = source.inputs.count > 1
        }
        if let dir = o[.annotate] {
            let inputs = source.inputs.compactMap { if case .file(let path) = $0 { return path }; return nil }
            do { session.observers.append(try AnnotatedImageWriter(directory: dir, loader: ImageLoader(maxPixels: session.settings.maxPixels), inputs: inputs)) } catch {
                Console.error("scanlua: \(error)\n")
                return ExitStatus.failure
            }
        }
        if source.inputs.isEmpty && shard != nil {
            Console.error("scanlua: shard \(o[.shard] ?? "") has no inputs (fewer inputs than shards)\n")
            return ExitStatus.success
        }
        if source.inputs.isEmpty { Console.error("scanlua: no images found in \(args.positionals.joined(separator: " "))\n") }
        // Many inputs and a person watching: a progress line (cleared before each record).
        let progress = StatusLine(enabled: Console.stderrIsTerminal && source.inputs.count >= 10 && o[.quiet] != true)
        let total = source.inputs.count
        session.onFrame = { report, _ in progress.progress(done: report.frames + report.failedInputs + report.skippedFiles, total: total) }
        let started = DispatchTime.now()
        let report = session.run(source)
        progress.finish(keep: false)
        let quiet = o[.quiet] ?? false
        if total > 1 && !quiet && report.outputError == nil {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            Console.error(summary(report, seconds: seconds) + "\n")
        }
        if report.failedInputs > 0 { return finalStatus(report, ExitStatus.failure) }
        return finalStatus(report, source.inputs.isEmpty || report.emptyInputs > 0 ? ExitStatus.nothingFound : ExitStatus.success)
    }

    /// The closing line of a scan of many inputs, as zbarimg's "scanned N barcode symbols from M
    /// images": with --empty-records its counts are the NDJSON lines by kind.
    static func summary(_ r: SessionReport, seconds: Double) -> String {
        func n(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }
        return "scanlua: scanned " + n(r.frames + r.failedInputs, "image", "images") + " in " + String(format: "%.1f s", seconds) + ": "
            + ([n(r.accepted, "code", "codes"), n(r.emptyFrames, "image without a code", "images without a code")]
               + (r.repeatOnlyFrames > 0 ? [n(r.repeatOnlyFrames, "image with only codes read before", "images with only codes read before")] : [])
               + [n(r.failedInputs, "unreadable input", "unreadable inputs")]
               + (r.skippedFiles > 0 ? [n(r.skippedFiles, "file that is no image", "files that are no image")] : [])).joined(separator: ", ")
    }
}

