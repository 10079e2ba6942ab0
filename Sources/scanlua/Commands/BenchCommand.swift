import Foundation
import ScanCore
import ScanScript

/// `scanlua bench --simulate N`: events per second through a trivial parser and rule.
enum BenchCommand {
    static let command = Command(
        name: "bench",
        abstract: "Measure the Lua pipeline: events per second through a trivial parser and rule.",
        usage: "scanlua bench --simulate N [--repeat R]",
        details: """
            OPTIONS:
              --simulate N            Push N synthetic QR events (1000 distinct texts, cycled) through a
                                      parser that claims them and a rule that returns an action for half of
                                      them. Prints the dispatch rate, and the rate including each record's
                                      NDJSON text (built, not written). No default scripts are loaded.
              --repeat R              Runs (default 5); each run's rate and the median are printed.
              -h, --help              Show help information.
            """,
        run: run)

    static let benchScript = """
        local scan = require "scan"
        scan.parser { name = "bench", symbologies = { "qrcode" }, match = "^BENCH%-",
          parse = function(ev) return { type = "bench", n = tonumber(ev.text:sub(7)) } end }
        scan.rule { name = "bench-even", on = "bench", when = function(p) return p.n % 2 == 0 end,
          run = function(p, ctx) return { type = "stop", reason = "even" } end }
        """

    static func run(_ args: inout ArgumentList) throws -> Int32 {
        var count = 0, repeats = 5
        while let option = args.nextOption() {
            switch option {
            case "--simulate": count = try args.intValue(for: option, in: 1...1_000_000_000)
            case "--repeat": repeats = try args.intValue(for: option, in: 1...100)
            default: throw UsageError("unknown option '\(option)'")
            }
        }
        guard count > 0 else { throw UsageError("missing '--simulate N'") }
        var options = ScriptOptions()
        options.defaultScripts = false
        let engine: ScriptEngine
        do { engine = try ScriptSetup.makeEngine(options, extraSource: (benchScript, "bench")) } catch {
            throw ScriptLoadFailure(error: error)
        }
        let info = FrameInfo(source: "bench")
        let symbols = (0..<1000).map { Symbol(symbology: Symbology(rawValue: "qrcode"), bytes: Array("BENCH-\($0)".utf8)) }
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
}
