import Foundation
import ScanCore
import ScanPipeline
import ScanScript

/// `scanlua simulate`: mock scans without images, through the same scripts and output as scan.
enum SimulateCommand {
    static let command = Command(
        name: "simulate",
        abstract: "Push mock scans through the scripts, as a scanner preview or UI test would.",
        usage: "scanlua simulate [--symbology NAME] (--text TEXT | --hex HEX) [--perform ACTIONS] [output options] [script options]",
        arguments: """
            INPUT:
              With --text or --hex, one symbol. Otherwise NDJSON on standard input, one scan per line:
                {"symbology": "qrcode", "text": "..."}            or "bytes": "<base64>" instead of "text";
                optional "source": "...", "time": seconds since 1970, "modifiers": ["gs1"],
                "symbology_id": "]C1" (GS1-128: implies gs1), and "siblings": [{"symbology": ...,
                "text"|"bytes": ...}, ...] for the other codes of the same frame (e.g. the other half
                of an e-invoice). A symbology is a name of --symbologies or of a loaded Lua decoder.
              A line that is not such an object (an unknown field, an unknown symbology) gives an
              error record; the others go on (exit 1 at the end).
            """,
        options: Option.names(in: [.simulate, .output, .scripts]),
        notes: """
            Mock scans reach nothing: the rules' append, http and mqtt actions are in the records,
            marked dry-run, unless --perform names them (stderr says so once per type).
            EXIT STATUS: 0 done, 1 a line was not a mock scan, 2 usage, 3 a script raised an error on
            some record (its errors say where).
            """,
        run: run)

    static func run(_ args: inout ArgumentList, _ o: OptionValues) throws -> Int32 {
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        var payload = o[.text].map { Array($0.utf8) }
        if let hex = o[.hex] {
            guard let bytes = MockScan.hexBytes(hex) else { throw UsageError("invalid hex for '--hex': '\(hex)'") }
            payload = bytes
        }
        // Mock scans reach nothing unless asked: only the action types of --perform are carried out.
        var performs = Set<ActionType>()
        for name in (o[.perform] ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !name.isEmpty {
            if name == "all" { performs.formUnion(ActionType.allCases); continue }
            guard let type = ActionType(rawValue: name) else {
                throw UsageError("invalid value '\(name)' for '--perform': expected \(ActionType.allCases.filter { $0 != .stop }.map(\.rawValue).joined(separator: ", ")) or all")
            }
            performs.insert(type)
        }
        let engine = try makeEngine(o)
        let session = try makeSession(o, engine: engine)
        session.runner.performs = performs
        defer { session.finish() }
        // A symbology is one scan would give: a registry name or a loaded Lua decoder's.
        let known = Symbology.knownNames + engine.luaSymbologies
        func unknown(_ name: String) -> String? { known.contains(name) ? nil : Symbology.unknownName(name, known: known) }
        if let payload {
            let name = (o[.symbology] ?? "qrcode").lowercased()
            if let problem = unknown(name) { throw UsageError("invalid value '\(name)' for '--symbology': \(problem)") }
            let symbol = Symbol(symbology: Symbology(rawValue: name), bytes: payload)
            session.process([ScanEvent(symbol: symbol, info: FrameInfo(source: "simulate"))])
            return finalStatus(session.report, ExitStatus.success)
        }
        var failed = false
        var lineNumber = 0
        while let line = readLine(strippingNewline: true) {
            lineNumber += 1
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            switch MockScan.parse(line) {
            case .success(let scan):
                if let problem = scan.symbols.lazy.compactMap({ unknown($0.symbology.rawValue) }).first {
                    failed = true
                    session.writeInputError(problem, source: "stdin:\(lineNumber)")
                    continue
                }
                // Only the main symbol gets a record; the siblings are its frame's other codes.
                let info = FrameInfo(source: scan.source ?? "stdin:\(lineNumber)", time: scan.time ?? Date())
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
        return failed ? ExitStatus.failure : finalStatus(session.report, ExitStatus.success)
    }
}
