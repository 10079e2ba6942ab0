import Foundation
import ScanCore
import ScanPipeline

/// `scanlua watch SOURCE`: continuous scanning from a camera, a video stream or a watched folder.
enum WatchCommand {
    static let command = Command(
        name: "watch",
        abstract: "Scan continuously from a camera, a y4m or MJPEG stream, or a folder receiving images.",
        usage: "scanlua watch [stream options] [preview options] [session options] [output options] [decoding options] [script options] SOURCE",
        arguments: """
            ARGUMENTS:
              SOURCE                  /dev/videoN (a V4L2 camera), a directory (each file once it is complete,
                                      once per content: see --settle; read by content, every page of a
                                      PDF or TIFF; a file that is no image is named), a .y4m or MJPEG file, or -
                                      for a stream on stdin, e.g.
                                      ffmpeg -f v4l2 -i /dev/video0 -f yuv4mpegpipe - | scanlua watch -
                                      The kind is guessed from the path and the stream's first bytes.
            """,
        options: Option.names(in: [.stream, .preview, .session, .output, .decoding, .scripts]),
        notes: """
            Defaults: --duplicates interval --interval 1. Records come in frame order; a camera's frames
            are dropped (and counted) when decoding falls behind; files and pipes are read at the
            decoders' pace. With --serve the page stays up after the source ends, until Ctrl-C.
            EXIT STATUS: 0 a code was accepted, 4 none, 1 the source failed or a file in a watched folder
            could not be read (its record says why), 2 usage, 3 a script raised an
            error on some record (its errors say where).
            """,
        run: run)

    static func run(_ args: inout ArgumentList, _ o: OptionValues) throws -> Int32 {
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw UsageError(args.positionals.isEmpty ? "missing SOURCE" : "one SOURCE at a time")
        }
        let size = try o.value(.size) ?? (0, 0)
        if let listen = o[.serve], let problem = PreviewServer.check(listen) { throw UsageError(problem) }
        let engine = try makeEngine(o)
        let session = try makeSession(o, engine: engine, defaults: OptionValues([("duplicates", .string("interval"))]))
        let loader = ImageLoader(maxPixels: session.settings.maxPixels)
        var preview: PreviewServer?
        do {
            if let dir = o[.saveFrames] { session.observers.append(try FrameSaver(directory: dir, loader: loader)) }
            // The page is up before the source opens (a pipe may take a while to send its header).
            if let listen = o[.serve] {
                let server = try PreviewServer(listen: listen, source: path, loader: loader)
                Console.error("scanlua: preview at \(server.url)\n")
                if server.isPublic { Console.error("scanlua: --serve: anyone who can reach \(server.url) sees the frames and can switch the torch\n") }
                session.observers.append(server)
                preview = server
            }
        } catch {
            Console.error("scanlua: \(error)\n")
            return ExitStatus.failure
        }
        let source: FrameSource
        // A stream that sends nothing is given up at --timeout; SIGINT/SIGTERM end the wait.
        let deadline = session.settings.limits.timeout.map { Date().addingTimeInterval($0) }
        do { source = try SourceOpener.open(path, kind: o[.source], size: size, newOnly: o[.newOnly] == true,
                                               settle: o[.settle] ?? engine.configOptions[.settle] ?? 1,
                                               options: session.settings.decodeOptions, deadline: deadline,
                                               stop: { Signals.received != nil }) } catch {
            preview?.stop()
            if let signal = Signals.received { return 128 + signal }
            Console.error("scanlua: \(error)\n")
            return ExitStatus.failure
        }
        if let camera = (source as? CameraSource).flatMap({ $0.hasTorch ? $0 : nil }) {
            // The page's switch runs on an HTTP thread: the reading thread carries the command out.
            preview?.setTorch { on throws in try camera.requestTorch(on) }
        }
        if let torch = o[.torch] {
            guard let camera = source as? CameraSource else { throw UsageError("--torch needs a camera SOURCE") }
            do { try camera.setTorch(torch == "on") } catch { Console.error("scanlua: \(error)\n") }
        }
        let quiet = o[.quiet] ?? false
        let status = StatusLine(enabled: !quiet && Console.stderrIsTerminal)
        session.onFrame = { report, acceptedNow in
            if acceptedNow > 0 && session.settings.beep { Console.error("\u{7}") }
            status.update(frames: report.frames, accepted: report.accepted, dropped: report.dropped)
        }
        let report = session.run(source)
        status.finish()
        if let preview {
            // A person is looking at the page: it stays until they stop it.
            if report.signal == nil {
                Console.error("scanlua: the source ended; the preview stays at \(preview.url) until Ctrl-C\n")
                while Signals.received == nil { usleep(100_000) }
            }
            preview.stop()
        }
        if report.dropped > 0 && !quiet { Console.error("scanlua: \(report.dropped) frames dropped while decoding was behind\n") }
        if let failure = report.sourceError {
            Console.error("scanlua: \(failure)\n")
            return finalStatus(report, ExitStatus.failure)
        }
        // As scan: a file in a watched folder that could not be read is a failure (a stream's
        // corrupt frame is that frame's error record, and the stream goes on).
        if source is DirectoryWatchSource && report.failedInputs > 0 { return finalStatus(report, ExitStatus.failure) }
        return finalStatus(report, report.accepted > 0 ? ExitStatus.success : ExitStatus.nothingFound)
    }
}
