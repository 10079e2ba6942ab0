import Foundation
import ScanCore
import ScanScript

/// `scanlua bench --simulate N`: events per second through a trivial parser and rule.
enum BenchCommand {
    static let command = Command(
        name: "bench",
        abstract: "Measure: Lua events per second, Lua decoders on a frame, or a video stream against zbarimg.",
        usage: "scanlua bench --simulate N [--repeat R] [--script FILE] [--text PREFIX]\n       scanlua bench --frame IMAGE --script FILE [--iterations N] [--repeat R] [--roi X,Y,W,H]\n       scanlua bench --stream [--frames N] [--image IMAGE]",
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
              --stream                Stream 640x480 and 1280x720 frames made from IMAGE (default
                                      examples/images/einvoice-pair.jpg, moving across the frame) through
                                      the watch pipeline with the shipped handlers: frames per second and
                                      the latency from frame arrival to the Lua handler (median, p99); then
                                      zbarimg on the same frames (as PGM files) for comparison.
              --frames N              Frames per stream (default 200).
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
        var stream = false, streamFrames = 200, streamImage = "examples/images/einvoice-pair.jpg"
        while let option = args.nextOption() {
            switch option {
            case "--simulate": count = try args.intValue(for: option, in: 1...1_000_000_000)
            case "--repeat": repeats = try args.intValue(for: option, in: 1...100)
            case "--script": script = try args.value(for: option)
            case "--text": prefix = try args.value(for: option)
            case "--frame": frame = try args.value(for: option)
            case "--stream": try args.noValue(for: option); stream = true
            case "--frames": streamFrames = try args.intValue(for: option, in: 1...100_000)
            case "--image": streamImage = try args.value(for: option)
            case "--iterations": iterations = try args.intValue(for: option, in: 1...100_000)
            case "--roi":
                let v = try args.value(for: option)
                guard case .success(let r) = Region.parse(v) else { throw UsageError("invalid value '\(v)' for '--roi'") }
                region = r
            default: throw UsageError("unknown option '\(option)'")
            }
        }
        if stream { return try benchStream(image: streamImage, frames: streamFrames) }
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

    /// Frames in memory, played as fast as the pipeline takes them (like a file or pipe).
    final class MemorySource: FrameSource {
        let name: String
        var isLive: Bool { false }
        var dropped: Int { 0 }
        let frames: [GrayImage]
        let fps: Double?
        var index = 0
        let start = Date()
        init(name: String, frames: [GrayImage], fps: Double? = nil) { self.name = name; self.frames = frames; self.fps = fps }
        func next(deadline: Date?) throws(SourceError) -> Frame? {
            guard index < frames.count else { return nil }
            defer { index += 1 }
            if let fps {  // a camera's pace: frame i is ready at i / fps
                let due = start.addingTimeInterval(Double(index) / fps).timeIntervalSinceNow
                if due > 0 { usleep(UInt32(due * 1e6)) }
            }
            let image = frames[index]
            return Frame(info: FrameInfo(source: name, index: index, time: Date(), width: image.width, height: image.height), image: image)
        }
    }

    /// `count` frames of `width` x `height`: the picture, scaled to fit, sliding across a gray background.
    static func makeFrames(_ picture: GrayImage, width: Int, height: Int, count: Int) -> [GrayImage] {
        let scale = min(1.0, min(Double(width) * 0.8 / Double(picture.width), Double(height) * 0.8 / Double(picture.height)))
        let pw = Int(Double(picture.width) * scale), ph = Int(Double(picture.height) * scale)
        var scaled = [UInt8](repeating: 0, count: pw * ph)
        for y in 0..<ph { for x in 0..<pw { scaled[y * pw + x] = picture[Int(Double(x) / scale), Int(Double(y) / scale)] } }
        return (0..<count).map { i in
            var pixels = [UInt8](repeating: 200, count: width * height)
            let ox = (i * 3) % max(1, width - pw), oy = (i * 2) % max(1, height - ph)
            for y in 0..<ph {
                pixels.replaceSubrange((oy + y) * width + ox..<(oy + y) * width + ox + pw, with: scaled[y * pw..<(y + 1) * pw])
            }
            return GrayImage(width: width, height: height, pixels: pixels)
        }
    }

    static func benchStream(image path: String, frames count: Int) throws -> Int32 {
        let picture: GrayImage
        do { picture = try ImageLoader().load(path: path) } catch {
            Console.error("scanlua: \(error)\n")
            return ExitStatus.failure
        }
        let engine: ScriptEngine
        do { engine = try ScriptSetup.makeEngine(ScriptOptions()) } catch { throw ScriptLoadFailure(error: error) }
        let symbologies = Set(Symbology.defaultNames.map(Symbology.init(rawValue:)))
        Console.write("stream of \(count) frames made from \(path), \(ProcessInfo.processInfo.activeProcessorCount) decoder threads:\n")
        for (w, h) in [(640, 480), (1280, 720)] {
            let frames = makeFrames(picture, width: w, height: h, count: count)
            // Throughput: frames as fast as the pipeline takes them. Latency: at a camera's 15 fps,
            // from the frame's arrival to its events having been through the Lua handlers.
            var results: [(fps: Double, codes: Int, median: Double, p99: Double)] = []
            for pace in [nil, 15.0] as [Double?] {
                let source = MemorySource(name: "bench \(w)x\(h)", frames: frames, fps: pace)
                var latencies: [Double] = [], codes = 0
                let start = DispatchTime.now().uptimeNanoseconds
                let scanner = StreamScanner(source: source, scanner: ImageScanner(symbologies: symbologies), limits: StreamLimits())
                try scanner.run { item in
                    for event in ScanEvent.events(of: item.symbols, info: item.frame.info) { _ = engine.process(event); codes += 1 }
                    latencies.append(Double(DispatchTime.now().uptimeNanoseconds - item.arrival.uptimeNanoseconds) / 1e6)
                    return true
                }
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                latencies.sort()
                results.append((Double(count) / seconds, codes, latencies[latencies.count / 2],
                                latencies[min(latencies.count - 1, latencies.count * 99 / 100)]))
            }
            Console.write(String(format: "  scanlua %dx%d: %.1f frames/s (%d codes); at 15 fps latency median %.1f ms, p99 %.1f ms\n",
                                 w, h, results[0].fps, results[0].codes, results[1].median, results[1].p99))
            // The same frames through zbarimg, one process over PGM files.
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            var paths: [String] = []
            for (i, f) in frames.enumerated() {
                let p = dir.appendingPathComponent(String(format: "%05d.pgm", i)).path
                var data = Data("P5\n\(f.width) \(f.height)\n255\n".utf8)
                data.append(contentsOf: f.pixels)
                try data.write(to: URL(fileURLWithPath: p))
                paths.append(p)
            }
            guard let zbarimg = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first(where: FileManager.default.isExecutableFile) else {
                Console.write("  zbarimg not installed (scripts/install-deps bench): no comparison\n")
                continue
            }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: zbarimg)
            p.arguments = ["-q", "--raw", "--nodbus"] + paths
            p.standardOutput = Pipe()
            p.standardError = FileHandle.nullDevice
            let zstart = DispatchTime.now().uptimeNanoseconds
            try p.run()
            let zout = (p.standardOutput as! Pipe).fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            let zseconds = Double(DispatchTime.now().uptimeNanoseconds - zstart) / 1e9
            let zcodes = String(decoding: zout, as: UTF8.self).split(separator: "\n").count
            Console.write(String(format: "  zbarimg %dx%d: %.1f frames/s, %d lines of output (one process, one thread)\n",
                                 w, h, Double(count) / zseconds, zcodes))
        }
        return ExitStatus.success
    }
}
