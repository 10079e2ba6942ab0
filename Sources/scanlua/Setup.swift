import ScanCore
import ScanPipeline
import ScanScript

/// A script failed to compile or load: reported before any input is read, exit 2.
struct ScriptLoadFailure: Error {
    let error: ScriptError
}

/// The engine the script options ask for: config, shipped handlers, --scripts, --script.
func makeEngine(_ o: OptionValues, _ adjust: (inout ScriptOptions) -> Void = { _ in }) throws(ScriptLoadFailure) -> ScriptEngine {
    var options = ScriptOptions(o)
    adjust(&options)
    do { return try ScriptSetup.makeEngine(options) } catch { throw ScriptLoadFailure(error: error) }
}

/// The session of scan, watch and simulate: settings from the flags over the config over
/// `defaults`, records to stdout in the chosen format.
func makeSession(_ o: OptionValues, engine: ScriptEngine, defaults: OptionValues = OptionValues()) throws(UsageError) -> ScanSession {
    let format: OutputFormat = o[.raw] == true ? .raw : (o[.format].flatMap(OutputFormat.init(rawValue:)) ?? .ndjson)
    if format == .text { engine.enableSummaries() }
    do {
        let settings = try SessionSettings.resolve(o, config: engine.configOptions, defaults: defaults, luaSymbologies: engine.luaSymbologies)
        engine.enabledDecoderNames = settings.luaDecoders
        let writer = RecordWriter(format: format)
        writer.writesEmptyRecords = settings.emptyRecords
        return ScanSession(settings: settings, engine: engine, sink: writer)
    } catch {
        throw UsageError(error.message)
    }
}

extension OptionValues {
    /// Values from name/value pairs: a command's defaults.
    init(_ pairs: [(String, JSON)]) {
        self.init()
        for (k, v) in pairs { self[k] = v }
    }
}

/// What ends every session the same way: a signal (128 + it), output that could not be written
/// or store commits that failed (1, with a message); else the command's own status.
func finalStatus(_ report: SessionReport, _ status: Int32) -> Int32 {
    if let signal = report.signal { return 128 + signal }
    // main says "cannot write output" when its last flush fails too.
    if report.outputError != nil { return ExitStatus.failure }
    if report.storeFailures > 0 {
        Console.error("scanlua: \(report.storeFailures) store transaction(s) could not be committed (see the records' errors)\n")
        return ExitStatus.failure
    }
    if report.scriptErrors + report.decoderFailures > 0 && (status == ExitStatus.success || status == ExitStatus.nothingFound) {
        if report.scriptErrors > 0 {
            Console.error("scanlua: \(report.scriptErrors == 1 ? "1 record carries" : "\(report.scriptErrors) records carry") script errors"
                          + " (its errors name the handler and file:line); exit status 3\n")
        }
        if report.decoderFailures > 0 {
            Console.error("scanlua: a Lua decoder failed on \(report.decoderFailures == 1 ? "1 frame" : "\(report.decoderFailures) frames") (see above); exit status 3\n")
        }
        return ExitStatus.scriptErrors
    }
    return status
}
