import Foundation
import ScanCore
import ScanScript

/// `scanlua watch SOURCE`: continuous scanning from a camera, a video stream or a watched folder.
enum WatchCommand {
    static let command = Command(
        name: "watch",
        abstract: "Scan continuously from a camera, a y4m or MJPEG stream, or a folder receiving images.",
        usage: "scanlua watch [--source camera|y4m|mjpeg|dir] [--duplicates MODE] [--once] [--roi X,Y,W,H] [...] SOURCE",
        details: """
            ARGUMENTS:
              SOURCE                  /dev/videoN (a V4L2 camera), a directory (new image files are scanned
                                      once each), a .y4m or MJPEG file, or - for a stream on stdin, e.g.
                                      ffmpeg -f v4l2 -i /dev/video0 -f yuv4mpegpipe - | scanlua watch -
                                      The kind is guessed from the path and the stream's first bytes.

            OPTIONS:
              --source KIND           camera, y4m, mjpeg or dir, when the guess is wrong.
            \(SessionFlags.help)
              --roi X,Y,W,H           Decode only this region (pixels or fractions); points stay in frame coordinates.
              --max-frames N          Stop after N frames.
              --max-fps F             Read at most F frames per second.
              --timeout SECONDS       Stop after this long.
              --size WxH              Camera frame size to ask for (the driver may pick the nearest).
              --torch on|off          The camera's torch (V4L2 flash LED control).
              --beep                  Ring the terminal bell for each accepted code.
              --quiet                 No live status line on stderr.
              --format ndjson|text    As for scan.
              --symbologies LIST      As for scan.
            \(ScriptFlags.help)
              -h, --help              Show help information.

            Defaults: --duplicates interval --interval 1. Records come in frame order; a camera's frames
            are dropped (and counted) when decoding falls behind; files and pipes are read at the
            decoders' pace. EXIT STATUS: 0 a code was accepted, 4 none, 1 the source failed, 2 usage.
            """,
        run: run)

    static func run(_ args: inout ArgumentList) throws -> Int32 {
        var session = SessionFlags(duplicates: .interval)
        var scripts = ScriptFlags()
        var kind: String?, region: Region?, limits = StreamLimits()
        var size: (Int, Int) = (0, 0), torch: Bool?, beep = false, quiet = false
        var format = OutputFormat.ndjson
        var symbologies = Set(Symbology.defaultNames.map(Symbology.init(rawValue:)))
        while let option = args.nextOption() {
            if try scripts.parse(option, &args) || session.parse(option, &args) { continue }
            switch option {
            case "--source":
                let v = try args.value(for: option)
                guard ["camera", "y4m", "mjpeg", "dir"].contains(v) else {
                    throw UsageError("invalid value '\(v)' for '--source': expected camera, y4m, mjpeg or dir")
                }
                kind = v
            case "--roi": region = try parseRegion(try args.value(for: option))
            case "--max-frames": limits.maxFrames = try args.intValue(for: option, in: 1...Int.max / 2)
            case "--max-fps":
                let v = try args.value(for: option)
                guard let f = Double(v), f > 0 else { throw UsageError("invalid value '\(v)' for '--max-fps'") }
                limits.maxFPS = f
            case "--timeout":
                let v = try args.value(for: option)
                guard let t = Double(v), t > 0 else { throw UsageError("invalid value '\(v)' for '--timeout'") }
                limits.timeout = t
            case "--size":
                let v = try args.value(for: option)
                let p = v.split(separator: "x").compactMap { Int($0) }
                guard p.count == 2, p[0] > 0, p[1] > 0 else { throw UsageError("invalid value '\(v)' for '--size': expected WxH") }
                size = (p[0], p[1])
            case "--torch":
                let v = try args.value(for: option)
                guard v == "on" || v == "off" else { throw UsageError("invalid value '\(v)' for '--torch': expected on or off") }
                torch = v == "on"
            case "--beep": try args.noValue(for: option); beep = true
            case "--quiet": try args.noValue(for: option); quiet = true
            case "--format":
                let v = try args.value(for: option)
                guard let f = OutputFormat(rawValue: v), f != .raw else { throw UsageError("invalid value '\(v)' for '--format'") }
                format = f
            case "--symbologies": symbologies = try ScanCommand.parseSymbologies(try args.value(for: option))
            default: throw UsageError("unknown option '\(option)'")
            }
        }
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw UsageError(args.positionals.isEmpty ? "missing SOURCE" : "one SOURCE at a time")
        }

        let engine = try scripts.makeEngine()
        if format == .text { engine.enableSummaries() }
        // The config's scan.options fill in what the flags did not say.
        try session.apply(config: engine.sessionOptions)
        let config = engine.sessionOptions
        if region == nil, case .string(let v)? = config["roi"] { region = try parseRegion(v) }
        if limits.maxFrames == nil, case .double(let v)? = config["max_frames"], v > 0 { limits.maxFrames = Int(v) }
        if limits.maxFPS == nil, case .double(let v)? = config["max_fps"], v > 0 { limits.maxFPS = v }
        if limits.timeout == nil, case .double(let v)? = config["timeout"], v > 0 { limits.timeout = v }
        if !beep, case .bool(let v)? = config["beep"] { beep = v }
        let source: FrameSource
        do { source = try open(path, kind: kind, size: size) } catch {
            Console.error("scanlua: \(error)\n")
            return ExitStatus.failure
        }
        if let torch {
            guard let camera = source as? CameraSource else { throw UsageError("--torch needs a camera SOURCE") }
            do { try camera.setTorch(torch) } catch { Console.error("scanlua: \(error)\n") }
        }
        let scanner = ImageScanner(symbologies: symbologies, region: region)
        let pipeline = ScriptPipeline(engine: engine, runner: ActionRunner(dryRun: scripts.dryRun, trusted: engine.limits.trust),
                                      writer: RecordWriter(format: format))
        var filter = session.filter
        let status = StatusLine(enabled: !quiet && isatty(2) != 0)
        let frameHooks = engine.hookCount("frame") > 0
        let luaDecoders = engine.hasDecoders
        var frames = 0
        engine.sessionStarted()
        let stream = StreamScanner(source: source, scanner: scanner, limits: limits)
        var failure: SourceError?
        do {
            try stream.run { item in
                frames += 1
                var symbols = item.symbols
                if luaDecoders { symbols += engine.decode(item.frame.image, region: region, info: item.frame.info) }
                if frameHooks { engine.frameScanned(item.frame.info, symbols: symbols) }
                let accepted = filter.accept(symbols, at: item.frame.info.time)
                if !accepted.isEmpty {
                    pipeline.process(accepted, info: item.frame.info)
                    if beep { Console.error("\u{7}") }
                }
                if let dir = source as? DirectoryWatchSource { report(dir.takeFailures(), pipeline) }
                status.update(frames: frames, accepted: filter.acceptedCount, dropped: stream.dropped)
                return !filter.isDone && !pipeline.runner.stopRequested
            }
        } catch {
            failure = error
        }
        if let dir = source as? DirectoryWatchSource { report(dir.takeFailures(), pipeline) }
        status.finish()
        engine.sessionStopped(frames: frames, accepted: filter.acceptedCount, dropped: stream.dropped)
        if stream.dropped > 0 && !quiet { Console.error("scanlua: \(stream.dropped) frames dropped while decoding was behind\n") }
        if let failure {
            Console.error("scanlua: \(failure)\n")
            return ExitStatus.failure
        }
        return filter.acceptedCount > 0 ? ExitStatus.success : ExitStatus.nothingFound
    }

    /// Picks the source from --source, the path (a /dev/video node, a directory), or the stream's first bytes.
    static func open(_ path: String, kind: String?, size: (Int, Int)) throws(SourceError) -> FrameSource {
        var k = kind
        if k == nil {
            var isDir: ObjCBool = false
            if path.hasPrefix("/dev/video") { k = "camera" }
            else if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue { k = "dir" }
            else if path == "-" { k = "stdin" }
            else if let head = FileHandle(forReadingAtPath: path)?.readData(ofLength: 9) {
                k = head.starts(with: Array("YUV4MPEG2".utf8)) ? "y4m" : (head.starts(with: [0xFF, 0xD8]) ? "mjpeg" : nil)
                if k == nil { throw SourceError("\(path): neither a YUV4MPEG2 nor an MJPEG stream (use --source)") }
            } else {
                throw SourceError("\(path): no such file, directory or camera")
            }
        }
        switch k {
        case "camera": return try CameraSource(device: path, width: size.0, height: size.1)
        case "dir": return try DirectoryWatchSource(directory: path)
        case "y4m": return try Y4MSource(path: path)
        case "mjpeg": return try MJPEGSource(path: path)
        default: return try StdinStreamSniffer.open()
        }
    }

    static func report(_ failures: [(path: String, error: ImageError)], _ pipeline: ScriptPipeline) {
        for f in failures {
            pipeline.writer.write(ScanRecord(info: FrameInfo(source: f.path), inputError: f.error.reason))
        }
    }
}

/// stdin is a y4m or an MJPEG stream: decided by its first bytes without losing them.
enum StdinStreamSniffer {
    static func open() throws(SourceError) -> FrameSource {
        // Both parsers read stdin through their own buffer; peek through a pipe-safe copy instead.
        let head = FileHandle.standardInput.readData(ofLength: 2)
        if head.starts(with: Array("YU".utf8)) { return try Y4MSource(handle: SplicedStdin(prefix: head).handle, name: "-") }
        if head.starts(with: [0xFF, 0xD8]) { return try MJPEGSource(handle: SplicedStdin(prefix: head).handle, name: "-") }
        throw SourceError("-: stdin is neither a YUV4MPEG2 nor an MJPEG stream (use --source)")
    }
}

/// A file handle that first yields `prefix`, then the rest of stdin (through a pipe and a thread).
final class SplicedStdin: @unchecked Sendable {
    let handle: FileHandle
    init(prefix: Data) {
        let pipe = Pipe()
        handle = pipe.fileHandleForReading
        let writer = pipe.fileHandleForWriting
        Thread.detachNewThread {
            writer.write(prefix)
            while let chunk = try? FileHandle.standardInput.read(upToCount: 1 << 16), !chunk.isEmpty { writer.write(chunk) }
            try? writer.close()
        }
    }
}

/// The live status line on stderr: frames, fps, accepted codes, dropped frames.
final class StatusLine {
    let enabled: Bool
    private let start = Date()
    private var lastDraw = Date.distantPast
    init(enabled: Bool) { self.enabled = enabled }

    func update(frames: Int, accepted: Int, dropped: Int) {
        guard enabled, Date().timeIntervalSince(lastDraw) >= 0.5 else { return }
        lastDraw = Date()
        let fps = Double(frames) / max(0.001, Date().timeIntervalSince(start))
        Console.error(String(format: "\rframes %d  %.1f fps  codes %d  dropped %d ", frames, fps, accepted, dropped))
    }

    func finish() { if enabled { Console.error("\n") } }
}
