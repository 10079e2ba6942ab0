import Foundation
import ScanCore
import ScanScript

/// `scanlua bench --simulate N`: events per second through a trivial parser and rule.
enum BenchCommand {
    static let command = Command(
        name: "bench",
        abstract: "Measure the Lua pipeline: events per second through a trivial parser and rule.",
        usage: "scanlua bench --simulate N [--repeat R] [--script FILE] [--text PREFIX]\n       scanlua bench --frame IMAGE --script FILE [--iterations N] [--repeat R] [--roi X,Y,W,H]",
        details: """
            OPTIONS:
              --simulate N            Push N synthetic QR events (1000 distinct texts, cycled) through a
                                      trivial parser that claims them and a trivial rule. Prints the dispatch
                                      rate (event in, payload and actions back in Swift), and the rate including
                                      each record's NDJSON text (built, not written). No default scripts.
              --repeat R              Runs (default 5); each run's rate and the median are printed.
              --script FILE           Benchmark your own handlers instead of the built-in ones.
              --text PREFIX           The events' texts are PREFIX followed by 0...999 (default BENCH-).
              --frame IMAGE           Time the Lua decoders of --script on one frame (and zbar on the same
                                      frame, for comparison): milliseconds per frame, median of R runs.
              --iterations N          Frames per run with --frame (default 20).
              --roi X,Y,W,H           With --frame: decode only this region.
              -h, --help              Show help information.
            """,
        run: run)

    /// A trivial parser and rule, as the benchmark's contract says: the parser claims every
    /// BENCH- code with a payload built from a field of the event; the rule runs on every
    /// payload and acts (returns a stop action) on none of them. examples/bench/handlers.lua
    /// is a busier pair (a `when`, string work, an action for half the events).
    static let benchScript = """
        local scan = require "scan"
        scan.parser { name = "bench", symbologies = { "qrcode" }, match = "^BENCH%-",
          parse = function(ev) return { type = "bench", length = #ev.text } end }
        scan.rule { name = "bench-rule", on = "bench",
          run = function(p, ctx) if p.length > 100 then return { type = "stop" } end end }
        """

    static func run(_ args: inout ArgumentList) throws -> Int32 {
        var count = 0, repeats = 5
        var script: String?, prefix = "BENCH-", frame: String?, iterations = 20
        var region: Region?
        while let option = args.nextOption() {
            switch option {
            case "--simulate": count = try args.intValue(for: option, in: 1...1_000_000_000)
            case "--repeat": repeats = try args.intValue(for: option, in: 1...100)
            case "--script": script = try args.value(for: option)
            case "--text": prefix = try args.value(for: option)
            case "--frame": frame = try args.value(for: option)
            case "--iterations": iterations = try args.intValue(for: option, in: 1...100_000)
            case "--roi":
                let v = try args.value(for: option)
                guard case .success(let r) = Region.parse(v) else { throw UsageError("invalid value '\(v)' for '--roi'") }
                region = r
            default: throw UsageError("unknown option '\(option)'")
            }
        }
        if let frame {
            guard let script else { throw UsageError("--frame needs --script FILE with the decoders to time") }
            return try benchFrame(frame, script: script, iterations: iterations, repeats: repeats, region: region)
        }
        guard count > 0 else { throw UsageError("missing '--simulate N' or '--frame IMAGE'") }
        var options = ScriptOptions()
        options.defaultScripts = false
        let engine: ScriptEngine
        if let script { options.scripts = [script] }
        do { engine = try ScriptSetup.makeEngine(options, extraSource: script == nil ? (benchScript, "bench") : nil) } catch {
            throw ScriptLoadFailure(error: error)
        }
        let info = FrameInfo(source: "bench")
        let symbols = (0..<1000).map { Symbol(symbology: Symbology(rawValue: "qrcode"), bytes: Array("\(prefix)\($0)".utf8)) }
        // Two figures per run: the Lua dispatch alone (event pushed, parser and rule run, result read
        // back into Swift), and the same plus the NDJSON text of each record (not written anywhere).
        var dispatchRates: [Double] = [], recordRates: [Double] = []
        var recordBytes = 0
        func time(_ body: () -> Void) -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        for r in 1...repeats {
            let dispatchSeconds = time {
                for i in 0..<count { _ = engine.process(ScanEvent(symbol: symbols[i % symbols.count], info: info)) }
            }
            recordBytes = 0
            let recordSeconds = time {
                for i in 0..<count {
                    let symbol = symbols[i % symbols.count]
                    let result = engine.process(ScanEvent(symbol: symbol, info: info))
                    var record = ScanRecord(info: info, symbol: symbol)
                    record.payload = result.payload
                    record.actions = result.actions
                    record.errors = result.errors
                    var line: [UInt8] = []
                    line.reserveCapacity(512)
                    record.json.write(to: &line)
                    recordBytes += line.count + 1
                }
            }
            dispatchRates.append(Double(count) / dispatchSeconds)
            recordRates.append(Double(count) / recordSeconds)
            Console.write(String(format: "run %d: dispatch %.0f events/s, dispatch + NDJSON record %.0f events/s\n",
                                 r, dispatchRates.last!, recordRates.last!))
        }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        Console.write(String(format: "median of %d runs of %d events: dispatch %.0f events/s, dispatch + NDJSON record %.0f events/s (%d bytes/record)\n",
                             repeats, count, median(dispatchRates), median(recordRates), recordBytes / count))
        return ExitStatus.success
    }

    /// Milliseconds per frame for zbar and for the script's Lua decoders on one image.
    static func benchFrame(_ path: String, script: String, iterations: Int, repeats: Int, region: Region?) throws -> Int32 {
        let image: GrayImage
        do { image = try ImageLoader().load(path: path) } catch {
            Console.error("scanlua: \(error)\n")
            return ExitStatus.failure
        }
        var options = ScriptOptions()
        options.defaultScripts = false
        options.scripts = [script]
        let engine: ScriptEngine
        do { engine = try ScriptSetup.makeEngine(options) } catch { throw ScriptLoadFailure(error: error) }
        let info = FrameInfo(source: path, width: image.width, height: image.height)
        let zbar = ImageScanner(symbologies: Set(Symbology.defaultNames.map(Symbology.init(rawValue:))), region: region)
        func msPerFrame(_ body: () -> Int) -> (Double, Int) {
            var found = 0
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<iterations { found = body() }
            return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(iterations), found)
        }
        var zbarTimes: [Double] = [], luaTimes: [Double] = []
        var zbarFound = 0, luaFound: [Symbol] = []
        for _ in 0..<repeats {
            let (z, zn) = msPerFrame { zbar.scan(image).count }
            let (l, _) = msPerFrame { luaFound = engine.decode(image, region: region, info: info); return luaFound.count }
            zbarTimes.append(z)
            luaTimes.append(l)
            zbarFound = zn
        }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        Console.write(String(format: "frame %@ (%dx%d), median of %d runs of %d frames:\n", path, image.width, image.height, repeats, iterations))
        Console.write(String(format: "  zbar (all symbologies): %.2f ms/frame, %d symbols\n", median(zbarTimes), zbarFound))
        Console.write(String(format: "  Lua decoders of %@: %.2f ms/frame, found %@\n", script, median(luaTimes),
                             luaFound.isEmpty ? "nothing" : luaFound.map { "\($0.symbology):\($0.text)" }.joined(separator: ", ")))
        return ExitStatus.success
    }
}
