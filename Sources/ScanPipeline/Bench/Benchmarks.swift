import Foundation
import ScanCore
import ScanScript

/// The measurements of `scanlua bench`. Each prints its figures on stdout; ratios are against
/// a baseline run in the same process (or zbarimg on the same frames) in the same run.
package enum Benchmarks {
    /// A trivial parser and rule: the parser claims every BENCH- code with a payload built from
    /// a field of the event; the rule runs on every payload and acts on none of them.
    package static let simulateScript = """
        local scan = require "scan"
        scan.parser { name = "bench", symbologies = { "qrcode" }, match = "^BENCH%-",
          parse = function(ev) return { type = "bench", length = #ev.text } end }
        scan.rule { name = "bench-rule", on = "bench",
          run = function(p, ctx) if p.length > 100 then return { type = "stop" } end end }
        """

    /// The same work as a plain Lua 5.4 loop, in this process and library: build the event table
    /// the host builds (fields + read-only proxy), run the matching parser and the rule.
    static let plainLoop = """
        local parts, n, prefix = ...
        local NESTED, NO_NESTED, fields_mt, readonly_error, proxy_pairs = parts[1], parts[2], parts[3], parts[4], parts[5]
        local texts = {}
        for i = 0, 999 do texts[i + 1] = prefix .. i end
        local sfind, setmetatable = string.find, setmetatable
        local parser = { symbologies = { qrcode = true }, match = "^BENCH%-",
          parse = function(ev) return { type = "bench", length = #ev.text } end }
        local rule = { on = { bench = true }, run = function(p, ctx) if p.length > 100 then return { type = "stop" } end end }
        local ctx, now = {}, os.time()
        for i = 1, n do
          local text = texts[(i - 1) % 1000 + 1]
          local fields = setmetatable({ symbology = "qrcode", text = text, bytes = text, charset = "utf-8",
            orientation = "unknown", quality = 0, source = "bench", frame = 0, time = now, time_ms = now * 1000, decoder = "",
            [NESTED] = NO_NESTED }, fields_mt)
          local ev = setmetatable({}, { __index = fields, __newindex = readonly_error, __pairs = proxy_pairs,
            __metatable = "read-only" })
          local payload
          if parser.symbologies[fields.symbology] and sfind(fields.text, parser.match) then payload = parser.parse(ev) end
          payload = payload or { type = "raw" }
          if rule.on[payload.type] then rule.run(payload, ctx) end
        end
        """

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }

    /// `--simulate N`: events/s through the engine in batches, alone and with each record's
    /// NDJSON text, against the plain Lua loop; medians of `repeats` runs and their ratios.
    package static func simulate(engine: ScriptEngine, count: Int, repeats: Int, prefix: String) throws {
        let info = FrameInfo(source: "bench")
        let symbols = (0..<1000).map { Symbol(symbology: Symbology(rawValue: "qrcode"), bytes: Array("\(prefix)\($0)".utf8)) }
        let batch = ScriptEngine.batchSize
        var plain: [Double] = [], dispatch: [Double] = [], records: [Double] = []
        var recordBytes = 0
        for r in 1...repeats {
            let p = try seconds { try engine.runBaseline(source: plainLoop, count: count, prefix: prefix) }
            let d = seconds {
                var i = 0
                while i < count {
                    let n = min(batch, count - i)
                    _ = engine.process((i..<i + n).map { ScanEvent(symbol: symbols[$0 % symbols.count], info: info) })
                    i += n
                }
            }
            recordBytes = 0
            let w = seconds {
                var i = 0
                var line: [UInt8] = []
                line.reserveCapacity(512)
                while i < count {
                    let n = min(batch, count - i)
                    let events = (i..<i + n).map { ScanEvent(symbol: symbols[$0 % symbols.count], info: info) }
                    for (event, result) in zip(events, engine.process(events)) {
                        var record = ScanRecord(info: info, symbol: event.symbol)
                        record.payload = result.payload
                        record.actions = result.actions
                        record.errors = result.errors
                        line.removeAll(keepingCapacity: true)
                        record.write(to: &line)
                        recordBytes += line.count + 1
                    }
                    i += n
                }
            }
            plain.append(Double(count) / p)
            dispatch.append(Double(count) / d)
            records.append(Double(count) / w)
            Console.write(String(format: "run %d: plain Lua loop %.0f events/s, dispatch %.0f events/s, dispatch + NDJSON record %.0f events/s\n",
                                 r, plain.last!, dispatch.last!, records.last!))
        }
        // Each ratio is the median of the runs' own ratios: on a shared machine the speed drifts
        // between runs more than between the three parts of one run.
        let mp = median(plain), md = median(dispatch), mr = median(records)
        let rd = median(zip(dispatch, plain).map { $0 / $1 }), rr = median(zip(records, plain).map { $0 / $1 })
        Console.write(String(format: "median of %d runs of %d events (batches of %d): plain Lua loop %.0f events/s; "
                             + "dispatch %.0f events/s (%.2fx the plain loop); dispatch + NDJSON record %.0f events/s (%.2fx; %d bytes/record)\n",
                             repeats, count, batch, mp, md, rd, mr, rr, recordBytes / max(1, count)))
    }

    /// `--frame IMAGE`: milliseconds per frame for zbar and for the engine's Lua decoders.
    package static func frame(_ image: GrayImage, path: String, engine: ScriptEngine, iterations: Int, repeats: Int, region: Region?,
                             scriptName: String) {
        let info = FrameInfo(source: path, width: image.width, height: image.height)
        let zbar = ZBarDecoder(symbologies: Symbology.defaultSet)
        func msPerFrame(_ body: () -> Int) -> (Double, Int) {
            var found = 0
            let s = seconds { for _ in 0..<iterations { found = body() } }
            return (s * 1000 / Double(iterations), found)
        }
        var zbarTimes: [Double] = [], luaTimes: [Double] = []
        var zbarFound = 0, luaFound: [Symbol] = []
        for _ in 0..<repeats {
            let (z, zn) = msPerFrame { zbar.decode(image, region: region, info: info).count }
            let (l, _) = msPerFrame { luaFound = engine.decode(image, region: region, info: info); return luaFound.count }
            zbarTimes.append(z)
            luaTimes.append(l)
            zbarFound = zn
        }
        Console.write(String(format: "frame %@ (%dx%d), median of %d runs of %d frames:\n", path, image.width, image.height, repeats, iterations))
        Console.write(String(format: "  zbar (all symbologies): %.2f ms/frame, %d symbols\n", median(zbarTimes), zbarFound))
        Console.write(String(format: "  Lua decoders of %@: %.2f ms/frame, found %@\n", scriptName, median(luaTimes),
                             luaFound.isEmpty ? "nothing" : luaFound.map { "\($0.symbology):\($0.text)" }.joined(separator: ", ")))
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

    /// A sink that only counts (latency is timed by the session's onFrameDecoded).
    final class CountingSink: RecordSink {
        var count = 0
        func write(_ record: ScanRecord) { count += 1 }
    }

    /// `--stream`: frames/s through a whole session with the shipped handlers, latency to the
    /// handlers at 15 fps, then zbarimg on the same frames (PGM files, one process).
    package static func stream(_ picture: GrayImage, path: String, frames count: Int, settings: SessionSettings,
                              makeEngine: () throws -> ScriptEngine) throws {
        Console.write("stream of \(count) frames made from \(path), \(ProcessInfo.processInfo.activeProcessorCount) decoder threads, "
                      + "decoders \(settings.decoders.sorted().joined(separator: "+")), effort \(settings.effort.rawValue):\n")
        for (w, h) in [(640, 480), (1280, 720)] {
            let frames = makeFrames(picture, width: w, height: h, count: count)
            var results: [(fps: Double, codes: Int, median: Double, p99: Double)] = []
            for pace in [nil, 15.0] as [Double?] {
                let sink = CountingSink()
                let session = ScanSession(settings: settings, engine: try makeEngine(), sink: sink)
                var latencies: [Double] = []
                session.onFrameDecoded = { arrival in
                    latencies.append(Double(DispatchTime.now().uptimeNanoseconds - arrival.uptimeNanoseconds) / 1e6)
                }
                let s = seconds { session.run(MemorySource(name: "bench \(w)x\(h)", frames: frames, fps: pace)) }
                latencies.sort()
                results.append((Double(count) / s, sink.count, latencies[latencies.count / 2],
                                latencies[min(latencies.count - 1, latencies.count * 99 / 100)]))
            }
            Console.write(String(format: "  scanlua %dx%d: %.1f frames/s (%d codes); at 15 fps latency median %.1f ms, p99 %.1f ms\n",
                                 w, h, results[0].fps, results[0].codes, results[1].median, results[1].p99))
            try zbarimg(frames, label: "\(w)x\(h)")
        }
    }

    static func zbarimg(_ frames: [GrayImage], label: String) throws {
        guard let zbarimg = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first(where: FileManager.default.isExecutableFile) else {
            Console.write("  zbarimg not installed (scripts/install-deps bench): no comparison\n")
            return
        }
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
        let p = Process()
        p.executableURL = URL(fileURLWithPath: zbarimg)
        p.arguments = ["-q", "--raw", "--nodbus"] + paths
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        var zout = Data()
        let s = try seconds {
            try p.run()
            zout = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
        }
        let lines = String(decoding: zout, as: UTF8.self).split(separator: "\n").count
        Console.write(String(format: "  zbarimg %@: %.1f frames/s, %d lines of output (one process, one thread)\n",
                             label, Double(frames.count) / s, lines))
    }

    /// `--photo`: a 12 MP photo (made by scripts/make-photo unless `image` is given) through
    /// `scanlua scan` and the other readers, each as its own process, `runs` times: median wall
    /// time, peak memory, what each found, and the ratios.
    package static func photo(image: String?, runs: Int, scanlua: String, scriptsDirectory: String?) throws {
        var path = image ?? ""
        var cleanup: URL?
        if image == nil {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-photo-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            cleanup = dir
            path = dir.appendingPathComponent("photo-12mp.jpg").path
            let maker = (scriptsDirectory ?? "scripts") + "/make-photo"
            guard FileManager.default.isExecutableFile(atPath: maker), runCommand(maker, [path])?.status == 0 else {
                Console.write("bench --photo: cannot make the photo with \(maker) (scripts/install-deps test installs its tools)\n")
                return
            }
        }
        defer { if let cleanup { try? FileManager.default.removeItem(at: cleanup) } }
        let readers: [(name: String, path: String, args: [String])] = [
            ("scanlua scan", scanlua, ["scan", "--raw", "--no-default-scripts", path]),
            ("zbarimg", "/usr/bin/zbarimg", ["-q", "--raw", "--nodbus", path]),
            ("ZXingReader -noscale", "/usr/bin/ZXingReader", ["-noscale", path]),
        ]
        Console.write("photo \(path), median of \(runs) runs, one process each:\n")
        var medians: [String: Double] = [:]
        for r in readers {
            guard FileManager.default.isExecutableFile(atPath: r.path) else {
                Console.write("  \(r.name): not installed (scripts/install-deps bench)\n")
                continue
            }
            var times: [Double] = [], rss = 0, found = ""
            for _ in 0..<runs {
                guard let run = runCommand(r.path, r.args) else { continue }
                times.append(run.seconds)
                rss = max(rss, run.maxRSSKiB)
                found = run.stdout
            }
            guard !times.isEmpty else { continue }
            let codes = found.split(separator: "\n").filter {
                r.name.hasPrefix("ZXing") ? $0.hasPrefix("Text:") : !$0.isEmpty
            }.map { $0.replacingOccurrences(of: "Text:", with: "").trimmingCharacters(in: .whitespaces) }
            medians[r.name] = median(times)
            Console.write(String(format: "  %@: %.3f s, peak %.0f MB, %d codes: %@\n", r.name, median(times), Double(rss) / 1024,
                                 codes.count, codes.joined(separator: ", ")))
        }
        if let s = medians["scanlua scan"] {
            for (name, t) in medians where name != "scanlua scan" {
                Console.write(String(format: "  scanlua / %@: %.2fx the wall time\n", name, s / t))
            }
        }
    }

    /// `--pdf`: a 20-page 300-dpi PDF (made by scripts/make-pdf unless `document` is given)
    /// through `scanlua scan` (pages rendered and decoded side by side), against what a user does
    /// without it: `pdftoppm -r 300` into a folder, then `scanlua scan` of the folder. Median wall
    /// times of `runs` runs each, what each read, and the ratio.
    package static func pdf(document: String?, runs: Int, scanlua: String, scriptsDirectory: String?) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-pdf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var path = document ?? ""
        if document == nil {
            path = dir.appendingPathComponent("batch-20.pdf").path
            let maker = (scriptsDirectory ?? "scripts") + "/make-pdf"
            guard FileManager.default.isExecutableFile(atPath: maker), runCommand(maker, [path])?.status == 0 else {
                Console.write("bench --pdf: cannot make the PDF with \(maker) (scripts/install-deps test installs its tools)\n")
                return
            }
        }
        guard let pdftoppm = ["/usr/bin/pdftoppm", "/usr/local/bin/pdftoppm"].first(where: FileManager.default.isExecutableFile) else {
            Console.write("bench --pdf: pdftoppm not installed (scripts/install-deps build installs poppler-utils)\n")
            return
        }
        Console.write("PDF \(path), median of \(runs) runs, \(ProcessInfo.processInfo.activeProcessorCount) cores:\n")
        var direct: [Double] = [], rendered: [Double] = [], render: [Double] = [], folder: [Double] = []
        var directCodes = 0, folderCodes = 0
        for run in 0..<runs {
            // Interleaved, so a busy moment of the machine falls on both ways alike.
            if let r = runCommand(scanlua, ["scan", "--raw", "--no-default-scripts", "--quiet", path]) {
                direct.append(r.seconds)
                directCodes = r.stdout.split(separator: "\n").count
            }
            let pages = dir.appendingPathComponent("pages-\(run)")
            try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
            guard let a = runCommand(pdftoppm, ["-r", "300", "-gray", path, pages.appendingPathComponent("p").path]),
                  let b = runCommand(scanlua, ["scan", "--raw", "--no-default-scripts", "--quiet", pages.path]) else { continue }
            render.append(a.seconds)
            folder.append(b.seconds)
            rendered.append(a.seconds + b.seconds)
            folderCodes = b.stdout.split(separator: "\n").count
            try? FileManager.default.removeItem(at: pages)
        }
        guard !direct.isEmpty, !rendered.isEmpty else { return }
        Console.write(String(format: "  scanlua scan doc.pdf: %.2f s, %d codes\n", median(direct), directCodes))
        Console.write(String(format: "  pdftoppm -r 300 -gray into a folder: %.2f s, then scanlua scan of the folder: %.2f s (%d codes); together %.2f s\n",
                             median(render), median(folder), folderCodes, median(rendered)))
        Console.write(String(format: "  scanlua scan doc.pdf / (pdftoppm + scan of the folder): %.2fx the wall time\n",
                             median(direct) / median(rendered)))
    }
}
