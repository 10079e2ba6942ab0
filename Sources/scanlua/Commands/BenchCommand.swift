import Foundation
import ScanCore
import ScanPipeline
import ScanScript

/// `scanlua bench`: Lua dispatch against a plain Lua loop, Lua decoders on a frame, a stream against zbarimg.
enum BenchCommand {
    static let command = Command(
        name: "bench",
        abstract: "Measure Lua events per second, Lua decoders on a frame, or a video stream against zbarimg.",
        usage: "scanlua bench --simulate N [--repeat R] [--script FILE] [--text PREFIX]\n       scanlua bench --frame IMAGE --script FILE [--iterations N] [--repeat R] [--roi X,Y,W,H]\n       scanlua bench --stream [--frames N] [--image IMAGE] [--decoders LIST] [--effort LEVEL]\n       scanlua bench --photo [--image JPEG] [--repeat R]\n       scanlua bench --pdf [--image PDF] [--repeat R]",
        options: Option.names(in: [.bench]) + ["roi", "decoders", "effort"],
        notes: "Figures are medians of the runs; compare ratios, not times, across machines.",
        run: run)

    static func run(_ args: inout ArgumentList, _ o: OptionValues) throws -> Int32 {
        if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
        let repeats = o[.repeatCount] ?? 5
        let script = o[.benchScript]
        func engine(_ extra: Bool) throws -> ScriptEngine {
            var options = ScriptOptions()
            options.defaultScripts = false
            if let script { options.loads = [.file(script)] } else if extra { options.loads = [.source(name: "bench", code: Benchmarks.simulateScript)] }
            do {
                return try ScriptSetup.makeEngine(options)
            } catch { throw ScriptLoadFailure(error: error) }
        }
        func load(_ path: String) -> GrayImage? {
            do { return try ImageLoader().load(path: path) } catch { Console.error("scanlua: \(error)\n"); return nil }
        }
        if o[.pdf] == true {
            let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            try Benchmarks.pdf(document: o[.image], runs: repeats, scanlua: exe, scriptsDirectory: ScriptSetup.shippedScriptsDirectory())
            return ExitStatus.success
        }
        if o[.photo] == true {
            let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            try Benchmarks.photo(image: o[.image], runs: repeats, scanlua: exe,
                                 scriptsDirectory: ScriptSetup.shippedScriptsDirectory())
            return ExitStatus.success
        }
        if o[.stream] == true {
            let path = o[.image] ?? "examples/images/einvoice-pair.jpg"
            guard let picture = load(path) else { return ExitStatus.failure }
            let settings: SessionSettings
            do { settings = try SessionSettings.resolve(o, config: OptionValues()) } catch { throw UsageError(error.message) }
            try Benchmarks.stream(picture, path: path, frames: o[.frames] ?? 200, settings: settings) { try makeEngine(OptionValues()) }
            return ExitStatus.success
        }
        if let path = o[.frame] {
            guard let script else { throw UsageError("--frame needs --script FILE with the decoders to time") }
            var region: Region?
            if let roi = o[.roi] {
                guard case .success(let r) = Region.parse(roi) else { throw UsageError("invalid value '\(roi)' for '--roi'") }
                region = r
            }
            let e = try engine(false)
            guard let image = load(path) else { return ExitStatus.failure }
            Benchmarks.frame(image, path: path, engine: e, iterations: o[.iterations] ?? 20, repeats: repeats, region: region,
                             scriptName: script)
            return ExitStatus.success
        }
        guard let count = o[.simulate] else { throw UsageError("missing '--simulate N', '--frame IMAGE', '--stream', '--photo' or '--pdf'") }
        try Benchmarks.simulate(engine: try engine(true), count: count, repeats: repeats, prefix: o[.prefix] ?? "BENCH-")
        return ExitStatus.success
    }
}
