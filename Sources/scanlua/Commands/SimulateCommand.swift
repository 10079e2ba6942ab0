import Foundation
import ScanCore
import ScanPipeline
import ScanScript

/// `scanlua simulate`: mock scans without images, through the same scripts and output as scan.
enum SimulateCommand {
    static let command = Command(
        name: "simulate",
        abstract: "Push mock scans through the scripts, as a scanner preview or UI test would.",
        usage: "scanlua simulate [--symbology NAME] (--text TEXT | --hex HEX) [output options] [script options]",
        arguments: """
            INPUT:
              With --text or --hex, one symbol. Otherwise NDJSON on standard input, one scan per line:
                {"symbology": "qrcode", "text": "..."}            or "bytes": "<base64>" instead of "text";
                optional "source": "...", and "siblings": [{"symbology": ..., "text"|"bytes": ...}, ...]
                for the other codes of the same frame (e.g. the other half of an e-invoice).
              A line that is not such an object gives an error record; the others go on (exit 1 at the end).
            """,
        options: Option.names(in: [.simulate, .output, .scripts]),
        run: run)

    static func run(_ args: inout ArgumentList, _ o: OptionValues) throws -> Int32 {
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        var payload = o.string("text").map { Array($0.utf8) }
        if let hex = o.string("hex") {
            guard let bytes = MockScan.hexBytes(hex) else { throw UsageError("invalid hex for '--hex': '\(hex)'") }
            payload = bytes
        }
        let engine = try makeEngine(o)
        let session = try makeSession(o, engine: engine)
        defer { session.finish() }
        if let payload {
            let symbol = Symbol(symbology: Symbology(rawValue: (o.string("symbology") ?? "qrcode").lowercased()), bytes: payload)
            session.process([ScanEvent(symbol: symbol, info: FrameInfo(source: "simulate"))])
            return ExitStatus.success
        }
        var failed = false
        var lineNumber = 0
        while let line = readLine(strippingNewline: true) {
            lineNumber += 1
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            switch MockScan.parse(line) {
            case .success(let scan):
                // Only the main symbol gets a record; the siblings are its frame's other codes.
                let info = FrameInfo(source: scan.source ?? "stdin:\(lineNumber)")
                session.process([ScanEvent(symbol: scan.symbols[0], info: info, siblings: Array(scan.symbols.dropFirst()))])
            case .failure(let reason):
                failed = true
                session.writeInputError(reason.message, source: "stdin:\(lineNumber)")
            }
            if session.sink.flush() != nil { return ExitStatus.failure }  // main says why
            if session.runner.stopRequested || Signals.received != nil { break }
        }
        if let signal = Signals.received { return 128 + signal }
        if session.engine.storeFailures > 0 { return ExitStatus.failure }
        return failed ? ExitStatus.failure : ExitStatus.success
    }
}
