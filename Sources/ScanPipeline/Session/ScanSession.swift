import Foundation
import ScanCore
import ScanScript
import ScanStore

/// What a session did: for exit statuses and the status line.
package struct SessionReport: Sendable {
    /// Frames (images) decoded, input errors not counted.
    package var frames = 0
    /// Frames in which no decoder found anything.
    package var emptyFrames = 0
    /// Inputs none of whose frames had a code (a document with one blank page is not one): what
    /// scan's exit status 4 counts, as zbarimg's does per file.
    package var emptyInputs = 0
    /// Frames whose codes were all accepted before (duplicates the session filter dropped).
    package var repeatOnlyFrames = 0
    /// Inputs that could not be read (each has its error record).
    package var failedInputs = 0
    /// Files found in folders that are no image or document (each said on stderr, or a record
    /// with --empty-records); they do not make a scan fail.
    package var skippedFiles = 0
    /// Symbols the session filter let through (each has its record).
    package var accepted = 0
    /// Frames dropped because decoding was behind a live camera.
    package var dropped = 0
    /// Why the source stopped giving frames, when it failed.
    package var sourceError: SourceError?
    /// Why records could not be written (a closed pipe, a full disk): the session stopped there.
    package var outputError: String?
    /// Events whose store transaction failed to commit (their records say why).
    package var storeFailures = 0
    /// Records that carry script errors (a parser, rule or summary raised on them).
    package var scriptErrors = 0
    /// Frames on which a Lua decoder failed (its errors went to stderr).
    package var decoderFailures = 0
    /// The signal (SIGINT, SIGTERM) that stopped the session, if one did.
    package var signal: Int32?
}

/// The whole pipeline: source -> decoders -> session filter -> hooks -> scripts -> store
/// transaction -> actions -> record sink. Every command that scans drives one.
///
/// Decoding runs on worker threads (``FrameScanner``); everything from the session decoders on
/// runs on the caller's thread, one frame after another, so records stay in input order.
package final class ScanSession {
    package let settings: SessionSettings
    package let engine: ScriptEngine
    package let runner: ActionRunner
    package let sink: RecordSink
    /// Called after each frame, on the session's thread (a status line, a beep).
    package var onFrame: ((SessionReport, _ acceptedNow: Int) -> Void)?
    /// Called after each frame's events went through the scripts, with the frame's arrival (latency).
    package var onFrameDecoded: ((DispatchTime) -> Void)?
    package private(set) var report = SessionReport()
    /// What sees each decoded frame after its records: annotated copies, saved frames, the preview page.
    package var observers: [FrameObserver] = []
    /// Asked between frames and while a source waits: true ends the run (the library's cancelled sequence).
    package var shouldStop: @Sendable () -> Bool = { false }
    private var filter: SessionFilter
    private var sequences = StructuredAppendJoiner()
    /// The input whose frames are coming (a document's pages come one after another), and
    /// whether any of them had a code so far.
    private var openInput: (source: String, hadCode: Bool)?

    private func note(input source: String, hadCode: Bool) {
        if let open = openInput, open.source != source { closeInput() }
        openInput = (source, (openInput?.hadCode ?? false) || hadCode)
    }

    private func closeInput() {
        if let open = openInput, !open.hadCode { report.emptyInputs += 1 }
        openInput = nil
    }

    package init(settings: SessionSettings, engine: ScriptEngine, sink: RecordSink) {
        self.settings = settings
        self.engine = engine
        self.sink = sink
        runner = ActionRunner(dryRun: settings.dryRun, trusted: engine.limits.trust)
        runner.protectedPaths = engine.loadedFiles + [engine.storePath ?? Store.defaultPath, TrustList().path]
        runner.store = engine.store
        runner.network = NetworkPolicy(list: settings.network, trusted: engine.limits.trust)
        runner.maxAttempts = settings.maxDeliveryAttempts
        runner.maxAge = settings.maxDeliveryAge
        runner.deliveryWait = settings.deliveryWait
        engine.dryRun = settings.dryRun
        filter = settings.filter
    }

    /// The decoders every frame goes through, in order: zbar and zxing-cpp on the workers (their
    /// readings of one code merged into one symbol), then the scripts' Lua decoders on this
    /// thread. A new backend is one more entry here.
    package func decoders() -> DecoderList {
        var list = workerDecoders(effort: settings.effort)
        // thorough reads what balanced reads, and more: balanced's plan runs first on image files.
        if settings.effort == .thorough { list.baseline = [workerDecoders(effort: .balanced)] }
        if engine.hasDecoders && settings.luaDecoders?.isEmpty != true { list.addSession(LuaDecoders(engine: engine)) }
        return list
    }

    /// The decoders of the worker threads at one effort (the session's Lua decoders not among them).
    private func workerDecoders(effort: Effort) -> DecoderList {
        var list = DecoderList()
        let symbologies = settings.symbologies
        let zxing = settings.decoders.contains("zxing") && symbologies.contains(where: { !($0.entry?.zxing.isEmpty ?? true) })
        if zxing { list.addWorker { ZXingDecoder(symbologies: symbologies, effort: effort) } }
        // Still images get retries on what is left open (not with --effort fast).
        if zxing && effort != .fast { list.retries = { StillRetries(symbologies: symbologies, effort: effort) } }
        // MaxiCodes in photos (zxing-cpp reads only pure images of them): not with --effort fast.
        if zxing && effort != .fast && symbologies.contains(.maxiCode) { list.maxiCodes = { MaxiCodeReader() } }
        if settings.decoders.contains("zbar") && symbologies.contains(where: { $0.entry?.zbarType != nil }) {
            // zbar runs where zxing-cpp found nothing (zxing-cpp reads more, and faster); on image
            // files also where it found only EAN/UPC codes, which zbar misreads less often, or Code
            // 128 codes (a label of several: zbar reads ones zxing-cpp passed over)
            // (`fast`: not then; `thorough`: both on every frame and file).
            // After the scale pyramid's small pass, zbar runs again at full size only in `thorough`;
            // its inverted retry too (zxing-cpp tries inverted codes itself, unless `fast`).
            let alone = !zxing || effort == .thorough
            list.addWorker(fallback: !alone, smallPassOnly: !alone) {
                ZBarDecoder(symbologies: symbologies, inverted: alone || effort == .fast)
            }
        }
        // Image files where no EAN/UPC code was read get the gray-level reader (not with `fast`).
        let gray = GrayLinear(symbologies: symbologies)
        if settings.decoders.contains("gray") && effort != .fast && gray.readsSomething { list.grayLinear = gray }
        list.recheck = Symbology.eanUPC.union(Symbology.addOns).union(["code128"])
        return list
    }

    /// Whether `scan.on_start` ran (a worker's session runs many sources).
    private var started = false

    /// Scans `source` to its end, a limit, `--once`, or a `stop` action. `continuing`: one source
    /// of a longer session (a worker's jobs): `scan.on_start` runs before the first only, and
    /// nothing ends until ``end()``: `scan.on_stop`, broker connections, deliveries.
    @discardableResult
    package func run(_ source: FrameSource, continuing: Bool = false) -> SessionReport {
        let decoders = decoders()
        var loader = ImageLoader()
        loader.options = settings.decodeOptions
        let scanner = FrameScanner(source: source, decoders: decoders, loader: loader,
                                   region: settings.region, limits: settings.limits, pyramid: Pyramid(effort: settings.effort),
                                   stillOrder: [.fast: .fallback, .balanced: .recheck, .thorough: .together][settings.effort]!,
                                   keepFrames: !observers.isEmpty, timeBudget: settings.timeBudget, workers: settings.threads)
        let frameHooks = engine.hookCount("frame") > 0
        // A session that may forward (an allow-list is set) delivers from its start: what waits in
        // the outbox goes out while the session stands idle, not only with the next code.
        if !runner.network.patterns.isEmpty { runner.startDeliveries() }
        if !started { engine.sessionStarted() }
        started = true
        let droppedBefore = report.dropped
        do {
            try scanner.run(stop: { [shouldStop] in Signals.received != nil || shouldStop() }) { frame in
                report.dropped = droppedBefore + scanner.dropped  // live: the status line and /status show it
                handle(frame, sessionDecoders: decoders.sessionDecoders, frameHooks: frameHooks)
                if let error = sink.flush() { report.outputError = error }
                return !runner.stopRequested && !filter.isDone && report.outputError == nil && Signals.received == nil && !shouldStop()
            }
        } catch {
            report.sourceError = error
        }
        closeInput()
        report.signal = Signals.received
        report.storeFailures = engine.storeFailures
        report.decoderFailures = engine.decoderFailures
        report.dropped = droppedBefore + scanner.dropped
        if !continuing { end() }
        return report
    }

    /// The end of a session that ran sources: `scan.on_stop` with the totals, the observers told,
    /// then ``finish()``.
    package func end() {
        if started { engine.sessionStopped(frames: report.frames, accepted: report.accepted, dropped: report.dropped) }
        started = false
        for o in observers { o.sessionEnded(report) }
        finish()
    }

    private func handle(_ frame: DecodedFrame, sessionDecoders: [FrameDecoder], frameHooks: Bool) {
        switch frame.outcome {
        case .failure(.skipped(let path, let reason)):
            report.skippedFiles += 1
            sink.skipped(ScanRecord(info: FrameInfo(source: path), inputError: "skipped: \(reason)"))
            onFrame?(report, 0)
        case .failure(let error):
            if openInput?.source != frame.info.source { closeInput() }
            report.failedInputs += 1
            let record = ScanRecord(info: frame.info, inputError: error.reason)
            sink.write(record)
            onFrame?(report, 0)
            for o in observers { o.inputFailed(record) }
        case .success(var symbols):
            if let image = frame.image {
                for d in sessionDecoders { symbols += d.decode(image, region: settings.region, info: frame.info) }
            }
            // Structured-append parts complete their message here or in a later frame; zbar's own
            // joining of a QR sequence merges with ours.
            let joined = sequences.add(symbols)
            if !joined.isEmpty { symbols = Symbol.merged(symbols + joined) }
            report.frames += 1
            note(input: frame.info.source, hadCode: !symbols.isEmpty)
            let jpeg = frame.bytes.map { ImageFormat.sniff($0) == .jpeg } ?? false
            let copy = observers.lazy.compactMap { $0.copyPath(for: frame.info, still: frame.still, jpeg: jpeg) }.first
            if frameHooks { engine.frameScanned(frame.info, symbols: symbols) }
            let accepted = filter.accept(symbols, at: frame.info.time)
            report.accepted = filter.acceptedCount
            if symbols.isEmpty {
                report.emptyFrames += 1
                sink.nothingFound(frame.info, repeated: 0, annotated: copy)
            } else if accepted.isEmpty {
                report.repeatOnlyFrames += 1
                sink.nothingFound(frame.info, repeated: symbols.count, annotated: copy)
            }
            if !frame.info.warnings.isEmpty { sink.warn(frame.info) }
            let records = accepted.isEmpty ? [] : process(ScanEvent.events(of: accepted, info: frame.info), annotated: copy)
            onFrameDecoded?(frame.arrival)
            onFrame?(report, accepted.count)
            if !observers.isEmpty {
                var seen = ObservedFrame(info: frame.info, still: frame.still, bytes: frame.bytes, image: frame.image, symbols: symbols,
                                         records: records, report: report)
                seen.page = frame.page
                for o in observers { o.frameDone(seen) }
            }
        }
    }

    /// Events (a frame's symbols, or mock scans) through the scripts, the store and the actions
    /// to the sink: one record each, in order. Nothing decoded is dropped: a failing script
    /// leaves its error on the record.
    @discardableResult
    package func process(_ events: [ScanEvent], annotated: String? = nil) -> [ScanRecord] {
        let results = engine.process(events)
        var history: [History.Row] = []
        var records: [ScanRecord] = []
        for (event, result) in zip(events, results) {
            var record = ScanRecord(info: event.info, symbol: event.symbol)
            record.payload = result.payload
            // The scan's identity (for idempotency keys) only when there are actions: this runs per symbol.
            if !result.actions.isEmpty { record.actions = runner.carryOut(result.actions, event: Self.identity(of: event)) }
            record.emitted = result.emitted
            record.errors = result.errors
            if !result.errors.isEmpty { report.scriptErrors += 1 }
            record.summary = result.summary
            record.annotated = annotated
            sink.write(record)
            if keepsHistory { history.append(Self.historyRow(record)) }
            records.append(record)
        }
        engine.flushDeferredLog()
        if !history.isEmpty {
            do throws(StoreError) { try History(try engine.store.db()).add(history) } catch {
                Console.error("scanlua: history: cannot write to \(engine.store.displayPath): \(error.message)\n")
            }
        }
        if runner.deliveryWait == nil { runner.retryDue() }  // else the delivery thread does, idle or not
        return records
    }

    /// With a store named (`--db` or the config's `db`), every record also lands in its history.
    private var keepsHistory: Bool { engine.storePath != nil }

    /// What names one scan of one symbol, for idempotency keys. An image file's code is named by
    /// the file's bytes and the code's place among the copies of the same code in it (the first
    /// from the top, the second, ...: not its corners, which differ from decoder to decoder and
    /// pass to pass): the same bytes scanned again (a touch, a copy, a restarted watch, another
    /// run, other --decoders) are the same delivery, which the outbox or the receiver drops. A
    /// stream's frame is named by its source, index and time: another frame showing the same code
    /// is another scan.
    static func identity(of event: ScanEvent) -> String {
        var bytes: [UInt8] = []
        Base64.encode(event.symbol.bytes, to: &bytes)
        let code = "\(event.symbol.symbology.rawValue)\u{1}" + String(decoding: bytes, as: UTF8.self)
        if let content = event.info.content {
            let s = event.symbol
            func centre(_ x: Symbol) -> (Int, Int) { (x.bbox.y + x.bbox.height / 2, x.bbox.x + x.bbox.width / 2) }
            var place = 0
            for (j, other) in event.frameSymbols.enumerated() where j != event.index
                && other.symbology == s.symbology && other.bytes == s.bytes && centre(other) < centre(s) { place += 1 }
            return "file \(content)\u{1}\(place)\u{1}" + code
        }
        return "\(event.info.source)\u{1}\(event.info.index)\u{1}\(event.info.time.timeIntervalSince1970)\u{1}" + code
    }

    static func historyRow(_ record: ScanRecord) -> History.Row {
        let s = record.symbol
        var bytes: [UInt8] = []
        Base64.encode(s?.bytes ?? [], to: &bytes)
        let payload = record.payload ?? .object([("type", .string("raw"))])
        let type: String = { if case .string(let t)? = payload["type"] { return t }; return "raw" }()
        let time = ISO8601DateFormatter.string(from: record.info.time, timeZone: TimeZone(identifier: "UTC")!,
                                               formatOptions: [.withInternetDateTime, .withFractionalSeconds])
        return History.Row(time: time, source: PathName.display(record.info.source), frame: record.info.index, page: record.info.page, symbology: s?.symbology.rawValue ?? "",
                           text: s?.text ?? "", bytes: String(decoding: bytes, as: UTF8.self), payloadType: type,
                           payload: payload.serialized, actions: JSON.array(record.actions).serialized)
    }

    /// The end of a session: broker connections closed, and a word about deliveries still queued.
    package func finish() {
        // What is in flight gets a bounded time; the rest stays queued in the outbox.
        if !runner.finishDeliveries(upTo: settings.deliveryFinish) {
            Console.error("scanlua: deliveries still in flight after \(Int(settings.deliveryFinish)) s were left queued in the outbox\n")
        }
        runner.close()
        // For people: which database the scripts wrote to (household.db, or the default store).
        // The default store, shared by every run without --db, is named in every format.
        if engine.store.isOpen, engine.storePath == nil {
            Console.error("scanlua: store: \(engine.store.displayPath), the default store (--db or the config's db names another)\n")
        } else if engine.store.isOpen, let writer = sink as? RecordWriter, writer.format == .text {
            Console.error("scanlua: store: \(engine.store.displayPath)\n")
        }
        let waiting = runner.undelivered
        if waiting > 0 {
            // The command to follow names what holds the allow-list: the config, or the --network given.
            var command = "scanlua outbox --db \(engine.store.displayPath)"
            if let config = engine.configPath { command += " --config \(config)" } else if let network = settings.network { command += " --network \(network)" }
            if engine.limits.trust { command += " --trust" }
            Console.error("scanlua: \(waiting == 1 ? "1 delivery waits" : "\(waiting) deliveries wait") in the outbox of \(engine.store.displayPath)"
                          + " (`\(command)` lists them, with --flush sends them)\n")
        }
    }

    /// A record for an input that is not a symbol (a mock scan line that does not parse).
    package func writeInputError(_ message: String, source: String) {
        sink.write(ScanRecord(info: FrameInfo(source: source), inputError: message))
    }
}

@available(*, unavailable) extension ScanSession: Sendable {}

/// The scripts' Lua decoders (`scan.decoder`) as one session decoder: they share the engine's
/// lua_State, so they run on the session's thread.
final class LuaDecoders: FrameDecoder {
    let engine: ScriptEngine
    init(engine: ScriptEngine) { self.engine = engine }
    func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] {
        engine.decode(image, region: region, info: info)
    }
}
