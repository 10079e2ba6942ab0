import Foundation
import ScanCore
import ScanScript

/// `scanlua simulate`: mock scans without images, through the same scripts and output as scan.
enum SimulateCommand {
    static let command = Command(
        name: "simulate",
        abstract: "Push mock scans through the scripts, as a scanner preview or UI test would.",
        usage: "scanlua simulate [--symbology NAME] (--text TEXT | --hex HEX) [--format ndjson|text] [--script FILE]...",
        details: """
            INPUT:
              With --text or --hex, one symbol. Otherwise NDJSON on standard input, one scan per line:
                {"symbology": "qrcode", "text": "..."}            or "bytes": "<base64>" instead of "text";
                optional "source": "...", and "siblings": [{"symbology": ..., "text"|"bytes": ...}, ...]
                for the other codes of the same frame (e.g. the other half of an e-invoice).
              A line that is not such an object gives an error record; the others go on (exit 1 at the end).

            OPTIONS:
              --symbology NAME        The symbology of --text/--hex (default qrcode).
              --text TEXT             The payload as UTF-8 text.
              --hex HEX               The payload as hex bytes (spaces allowed).
              --format ndjson|text    As for scan.
            \(ScriptFlags.help)
              -h, --help              Show help information.
            """,
        run: run)

    static func run(_ args: inout ArgumentList) throws -> Int32 {
        var scripts = ScriptFlags()
        var symbology = "qrcode"
        var payload: [UInt8]?
        var format = OutputFormat.ndjson
        while let option = args.nextOption() {
            if try scripts.parse(option, &args) { continue }
            switch option {
            case "--symbology": symbology = try args.value(for: option).lowercased()
            case "--text": payload = Array(try args.value(for: option).utf8)
            case "--hex":
                let hex = try args.value(for: option)
                guard let bytes = Self.hexBytes(hex) else { throw UsageError("invalid hex for '--hex': '\(hex)'") }
                payload = bytes
            case "--format":
                let v = try args.value(for: option)
                guard let f = OutputFormat(rawValue: v), f != .raw else {
                    throw UsageError("invalid value '\(v)' for '--format': expected ndjson or text")
                }
                format = f
            default: throw UsageError("unknown option '\(option)'")
            }
        }
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }

        let engine = try scripts.makeEngine()
        if format == .text { engine.enableSummaries() }
        let pipeline = ScriptPipeline(engine: engine, runner: ActionRunner(dryRun: scripts.dryRun, trusted: engine.limits.trust),
                                      writer: RecordWriter(format: format))
        if let payload {
            let symbol = Symbol(symbology: Symbology(rawValue: symbology), bytes: payload)
            pipeline.process([symbol], info: FrameInfo(source: "simulate"))
            return ExitStatus.success
        }
        var failed = false
        var lineNumber = 0
        while let line = readLine(strippingNewline: true) {
            lineNumber += 1
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            switch parse(line) {
            case .success(let (symbols, source)):
                let info = FrameInfo(source: source ?? "stdin:\(lineNumber)")
                pipeline.process(ScanEvent(symbol: symbols[0], info: info, siblings: Array(symbols.dropFirst())))
            case .failure(let reason):
                failed = true
                pipeline.writer.write(ScanRecord(info: FrameInfo(source: "stdin:\(lineNumber)"), inputError: reason.message))
            }
            if pipeline.runner.stopRequested { break }
        }
        return failed ? ExitStatus.failure : ExitStatus.success
    }

    struct LineError: Error { let message: String }

    /// One NDJSON line -> the main symbol and its siblings (the main symbol first).
    /// Only the main symbol gets a record; siblings are context.
    static func parse(_ line: String) -> Result<([Symbol], String?), LineError> {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            return .failure(LineError(message: "not a JSON object: \(line.prefix(60))"))
        }
        func symbol(_ o: [String: Any]) -> Result<Symbol, LineError> {
            let name = (o["symbology"] as? String ?? "qrcode").lowercased()
            if let text = o["text"] as? String {
                return .success(Symbol(symbology: Symbology(rawValue: name), bytes: Array(text.utf8)))
            }
            if let b64 = o["bytes"] as? String {
                guard let data = Data(base64Encoded: b64) else { return .failure(LineError(message: "'bytes' is not valid base64")) }
                return .success(Symbol(symbology: Symbology(rawValue: name), bytes: Array(data)))
            }
            return .failure(LineError(message: "needs \"text\" (a string) or \"bytes\" (base64)"))
        }
        var symbols: [Symbol] = []
        switch symbol(object) {
        case .success(let s): symbols.append(s)
        case .failure(let e): return .failure(e)
        }
        if let siblings = object["siblings"] {
            guard let list = siblings as? [[String: Any]] else { return .failure(LineError(message: "'siblings' must be a list of objects")) }
            for (i, o) in list.enumerated() {
                switch symbol(o) {
                case .success(let s): symbols.append(s)
                case .failure(let e): return .failure(LineError(message: "sibling \(i + 1): \(e.message)"))
                }
            }
        }
        return .success((symbols, object["source"] as? String))
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = text.filter { !$0.isWhitespace && $0 != ":" }
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var i = digits.startIndex
        while i < digits.endIndex {
            let j = digits.index(i, offsetBy: 2)
            guard let b = UInt8(digits[i..<j], radix: 16) else { return nil }
            bytes.append(b)
            i = j
        }
        return bytes
    }
}
