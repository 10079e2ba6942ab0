import Foundation
import XCTest
@testable import ScanCore

/// A 4x2 frame whose pixels all hold the index (mod 256), so a decoder can tell which frame it got.
private func frame(_ index: Int, source: String = "test") -> Frame {
    Frame(info: FrameInfo(source: source, index: index, time: Date(timeIntervalSince1970: Double(index)), width: 4, height: 2),
          image: GrayImage(width: 4, height: 2, pixels: [UInt8](repeating: UInt8(index & 0xFF), count: 8)))
}

/// What ``IndexDecoder`` reads from frame `index`.
private func expectedSymbol(_ index: Int) -> Symbol {
    Symbol(symbology: Symbology(rawValue: "test"), bytes: Array("frame-\(index)/\(index & 0xFF)".utf8))
}

/// A source handing out a fixed list of items, then an optional error, then nil.
private final class ListSource: FrameSource, @unchecked Sendable {
    let name = "list"
    let isLive: Bool
    let driverDropped: Int
    var dropped: Int { driverDropped }
    private let lock = NSLock()
    private let items: [SourceItem]
    private let error: SourceError?
    private var position = 0
    private var _calls = 0
    private var _deadlines: [Date?] = []

    init(_ items: [SourceItem], thenThrow error: SourceError? = nil, isLive: Bool = false, driverDropped: Int = 0) {
        self.items = items
        self.error = error
        self.isLive = isLive
        self.driverDropped = driverDropped
    }

    convenience init(frames n: Int, thenThrow error: SourceError? = nil, isLive: Bool = false, driverDropped: Int = 0) {
        self.init((0..<n).map { .frame(frame($0)) }, thenThrow: error, isLive: isLive, driverDropped: driverDropped)
    }

    /// How many times `next` was called.
    var calls: Int { lock.withLock { _calls } }
    var deadlines: [Date?] { lock.withLock { _deadlines } }

    func next(deadline: Date?) throws(SourceError) -> SourceItem? {
        lock.lock()
        defer { lock.unlock() }
        _calls += 1
        _deadlines.append(deadline)
        if position < items.count {
            position += 1
            return items[position - 1]
        }
        if let error { throw error }
        return nil
    }
}

/// Which decoder instance ran on which thread, and whether an instance was ever entered twice at once.
private final class DecoderLog: @unchecked Sendable {
    private let lock = NSLock()
    private var made = 0
    private var threadsOfInstance: [Int: Set<UInt>] = [:]
    private var busy: Set<Int> = []
    private(set) var overlaps = 0

    func make() -> Int { lock.withLock { made += 1; return made } }
    var instances: Int { lock.withLock { made } }
    var threads: [Int: Set<UInt>] { lock.withLock { threadsOfInstance } }
    var concurrentUses: Int { lock.withLock { overlaps } }

    func enter(_ id: Int) {
        lock.withLock {
            threadsOfInstance[id, default: []].insert(UInt(pthread_self()))
            if !busy.insert(id).inserted { overlaps += 1 }
        }
    }
    func leave(_ id: Int) { _ = lock.withLock { busy.remove(id) } }
}

/// Sleeps a seeded-random 0...`maxMicros` per frame (the same for a frame whatever thread decodes it),
/// then reads one symbol naming the frame's index and first pixel.
private final class IndexDecoder: FrameDecoder {
    let id: Int
    let seed: UInt64
    let maxMicros: UInt64
    let log: DecoderLog

    init(log: DecoderLog, seed: UInt64, maxMicros: UInt64) {
        self.log = log
        self.id = log.make()
        self.seed = seed
        self.maxMicros = maxMicros
    }

    func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] {
        log.enter(id)
        defer { log.leave(id) }
        var g = SplitMix64(seed: seed ^ UInt64(info.index))
        let pause = maxMicros == 0 ? 0 : g.next() % (maxMicros + 1)
        if pause > 0 { usleep(UInt32(pause)) }
        return [Symbol(symbology: Symbology(rawValue: "test"),
                       bytes: Array("frame-\(info.index)/\(image.pixels.first ?? 0)".utf8))]
    }
}

/// A session decoder that only counts.
private final class NullDecoder: FrameDecoder {
    func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] { [] }
}

final class FrameScannerTests: XCTestCase {
    private func decoders(_ log: DecoderLog, seed: UInt64 = 1, maxMicros: UInt64 = 5000) -> DecoderList {
        var list = DecoderList()
        list.addWorker { IndexDecoder(log: log, seed: seed, maxMicros: maxMicros) }
        return list
    }

    /// Runs the scanner, collecting everything handed to the body, and the error it threw.
    private func run(_ scanner: FrameScanner, stopAfter: Int? = nil) -> (items: [DecodedFrame], error: SourceError?) {
        var items: [DecodedFrame] = []
        do throws(SourceError) {
            try scanner.run { item in
                items.append(item)
                return stopAfter.map { items.count < $0 } ?? true
            }
        } catch {
            return (items, error)
        }
        return (items, nil)
    }

    func testFiftyFramesWithFourWorkersArriveInSourceOrder() {
        let seed: UInt64 = 0xF5A1_2024
        let log = DecoderLog()
        let source = ListSource(frames: 50)
        let scanner = FrameScanner(source: source, decoders: decoders(log, seed: seed), workers: 4)
        let (items, error) = run(scanner)
        XCTAssertNil(error)
        XCTAssertEqual(items.map(\.info.index), Array(0..<50), "seed \(seed)")
        for (i, item) in items.enumerated() {
            XCTAssertEqual(item.outcome, .success([expectedSymbol(i)]), "seed \(seed), frame \(i)")
            XCTAssertEqual(item.info, frame(i).info, "seed \(seed), frame \(i)")
            XCTAssertNil(item.image, "no session decoders: images are not kept")
        }
        let arrivals = items.map(\.arrival.uptimeNanoseconds)
        XCTAssertEqual(arrivals, arrivals.sorted(), "arrival times follow source order")
        XCTAssertEqual(scanner.droppedByDecoder, 0, "a file or pipe source never drops frames")
        XCTAssertEqual(scanner.dropped, 0)
        XCTAssertEqual(source.calls, 51, "50 frames and the nil that ends the source")
    }

    func testEachWorkerThreadHasItsOwnDecoderInstance() {
        let seed: UInt64 = 77
        let log = DecoderLog()
        let workers = 4
        let scanner = FrameScanner(source: ListSource(frames: 50), decoders: decoders(log, seed: seed), workers: workers)
        let (items, _) = run(scanner)
        XCTAssertEqual(items.count, 50)
        XCTAssertGreaterThanOrEqual(log.instances, 1)
        XCTAssertLessThanOrEqual(log.instances, workers, "one instance per worker thread, made once")
        XCTAssertEqual(log.concurrentUses, 0, "seed \(seed): an instance decoded two frames at once")
        let threads = log.threads
        for (id, set) in threads {
            XCTAssertEqual(set.count, 1, "seed \(seed): instance \(id) ran on \(set.count) threads")
        }
        let allThreads = threads.values.flatMap { $0 }
        XCTAssertEqual(allThreads.count, Set(allThreads).count, "seed \(seed): a thread used two instances")
    }

    func testBodyReturningFalseStopsEarly() {
        let log = DecoderLog()
        let source = ListSource(frames: 1000)
        let workers = 4
        let scanner = FrameScanner(source: source, decoders: decoders(log, maxMicros: 1000), workers: workers)
        var calls = 0
        do throws(SourceError) {
            try scanner.run { item in
                calls += 1
                XCTAssertEqual(item.info.index, calls - 1)
                return calls < 5
            }
        } catch {
            XCTFail("unexpected \(error)")
        }
        XCTAssertEqual(calls, 5)
        // The reader stops too: at most the queue (2 x workers), the frames in the workers and one more are read.
        usleep(100_000)
        XCTAssertLessThanOrEqual(source.calls, 5 + 2 * workers + workers + 1)
    }

    func testMaxFramesStopsAfterN() {
        let log = DecoderLog()
        let source = ListSource(frames: 50)
        let scanner = FrameScanner(source: source, decoders: decoders(log, maxMicros: 500),
                                   limits: StreamLimits(maxFrames: 7), workers: 4)
        let (items, error) = run(scanner)
        XCTAssertNil(error)
        XCTAssertEqual(items.map(\.info.index), Array(0..<7))
        XCTAssertEqual(items.map(\.outcome), (0..<7).map { .success([expectedSymbol($0)]) })
        XCTAssertEqual(source.calls, 7, "the source is not read past the limit")
    }

    func testSourceErrorAfterThreeFramesIsThrownAfterThem() {
        let failure = SourceError("/dev/video0: device unplugged")
        let log = DecoderLog()
        let scanner = FrameScanner(source: ListSource(frames: 3, thenThrow: failure), decoders: decoders(log), workers: 4)
        let (items, error) = run(scanner)
        XCTAssertEqual(items.map(\.info.index), [0, 1, 2])
        XCTAssertEqual(items.map(\.outcome), (0..<3).map { .success([expectedSymbol($0)]) })
        XCTAssertEqual(error, failure)
        XCTAssertEqual(error?.description, "/dev/video0: device unplugged")
    }

    func testSourceErrorBeforeAnyFrame() {
        let failure = SourceError("cam: cannot start streaming")
        let scanner = FrameScanner(source: ListSource(frames: 0, thenThrow: failure), decoders: decoders(DecoderLog()), workers: 2)
        let (items, error) = run(scanner)
        XCTAssertEqual(items.count, 0)
        XCTAssertEqual(error, failure)
    }

    func testEmptySource() {
        let scanner = FrameScanner(source: ListSource(frames: 0), decoders: decoders(DecoderLog()), workers: 3)
        let (items, error) = run(scanner)
        XCTAssertEqual(items.count, 0)
        XCTAssertNil(error)
    }

    func testMissingFilesBecomeFailuresInOrder() {
        let items: [SourceItem] = [
            .frame(frame(0)),
            .file(.missing("/no/such/a.png", reason: "No such file or directory")),
            .frame(frame(1)),
            .frame(frame(2)),
            .file(.missing("locked.jpg", reason: "Permission denied")),
            .frame(frame(3)),
        ]
        let scanner = FrameScanner(source: ListSource(items), decoders: decoders(DecoderLog()), workers: 4)
        let (out, error) = run(scanner)
        XCTAssertNil(error)
        XCTAssertEqual(out.map(\.info.source), ["test", "/no/such/a.png", "test", "test", "locked.jpg", "test"])
        XCTAssertEqual(out.map(\.outcome), [
            .success([expectedSymbol(0)]),
            .failure(.unreadable(path: "/no/such/a.png", reason: "No such file or directory")),
            .success([expectedSymbol(1)]),
            .success([expectedSymbol(2)]),
            .failure(.unreadable(path: "locked.jpg", reason: "Permission denied")),
            .success([expectedSymbol(3)]),
        ])
        if case .failure(let e) = out[1].outcome {
            XCTAssertEqual(e.description, "/no/such/a.png: cannot read file: No such file or directory")
        }
        XCTAssertNil(out[1].image)
    }

    func testFilesAreLoadedAndDecodedByZBarWorkers() throws {
        let qr = Fixture.path("qrcode.png"), code128 = Fixture.path("code128.png"), text = Fixture.path("text-named.jpg")
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("jpeg-plain.jpg")))
        var list = DecoderList()
        list.addWorker { ZBarDecoder(symbologies: Symbology.defaultSet) }
        let items: [SourceItem] = [
            .file(.file(qr)), .file(.file(text)), .file(.data(jpeg, name: "memory.jpg")), .file(.file(code128)),
            .file(.file("/no/such/dir/x.png")),
        ]
        let scanner = FrameScanner(source: ListSource(items), decoders: list, workers: 2)
        let (out, error) = run(scanner)
        XCTAssertNil(error)
        XCTAssertEqual(out.map(\.info.source), [qr, text, "memory.jpg", code128, "/no/such/dir/x.png"])
        XCTAssertEqual(out.map(\.info.index), [0, 0, 0, 0, 0])

        let qrSymbols = try out[0].outcome.get()
        XCTAssertEqual(qrSymbols.map(\.symbology.rawValue), ["qrcode"])
        XCTAssertEqual(qrSymbols.map(\.text), ["https://example.com/scanlua"])
        XCTAssertEqual([out[0].info.width, out[0].info.height], [132, 132])

        XCTAssertEqual(out[1].outcome, .failure(.unknownFormat(path: text)))
        XCTAssertEqual(try out[2].outcome.get().map(\.text), ["https://example.com/scanlua"], "jpeg-plain.jpg is qrcode.png as a JPEG")
        XCTAssertEqual([out[2].info.width, out[2].info.height], [132, 132])
        XCTAssertEqual(try out[3].outcome.get().map(\.text), ["scanlua-Code128 ok"])
        XCTAssertEqual(out[4].outcome, .failure(.unreadable(path: "/no/such/dir/x.png", reason: "No such file or directory")))
    }

    func testImagesAreKeptOnlyWhenTheSessionHasDecoders() {
        var list = decoders(DecoderLog(), maxMicros: 0)
        list.addSession(NullDecoder())
        let (kept, _) = run(FrameScanner(source: ListSource(frames: 3), decoders: list, workers: 2))
        XCTAssertEqual(kept.map(\.image), (0..<3).map { frame($0).image })

        let (dropped, _) = run(FrameScanner(source: ListSource(frames: 3), decoders: decoders(DecoderLog(), maxMicros: 0), workers: 2))
        XCTAssertEqual(dropped.map(\.image), [nil, nil, nil])
    }

    func testLiveSourceDropsFramesWhenDecodersAreBehind() {
        let total = 40
        let source = ListSource(frames: total, isLive: true, driverDropped: 3)
        // One worker that takes 10 ms a frame, and a source that hands over 40 frames at once.
        var list = DecoderList()
        let log = DecoderLog()
        list.addWorker { IndexDecoder(log: log, seed: 0, maxMicros: 0) }
        list.addWorker { SlowDecoder(micros: 10_000) }
        let scanner = FrameScanner(source: source, decoders: list, workers: 1)
        let (items, error) = run(scanner)
        XCTAssertNil(error)
        let indices = items.map(\.info.index)
        XCTAssertGreaterThan(scanner.droppedByDecoder, 0)
        XCTAssertEqual(items.count + scanner.droppedByDecoder, total, "every frame is either delivered or counted")
        XCTAssertEqual(scanner.dropped, scanner.droppedByDecoder + 3, "the driver's drops are added")
        XCTAssertEqual(indices.first, 0)
        XCTAssertEqual(indices, indices.sorted(), "delivered frames keep source order")
        XCTAssertEqual(Set(indices).count, indices.count)
        for item in items {
            XCTAssertEqual(item.outcome, .success([expectedSymbol(item.info.index)]), "frame \(item.info.index)")
        }
        XCTAssertLessThan(items.count, total / 2, "the queue stays bounded")
    }

    func testMaxFPSSpacesTheReads() {
        let source = ListSource(frames: 5)
        let scanner = FrameScanner(source: source, decoders: decoders(DecoderLog(), maxMicros: 0),
                                   limits: StreamLimits(maxFPS: 100), workers: 2)
        let (items, _) = run(scanner)
        XCTAssertEqual(items.count, 5)
        let t = items.map(\.arrival.uptimeNanoseconds)
        for i in 1..<t.count {
            XCTAssertGreaterThanOrEqual(t[i] - t[i - 1], 9_900_000, "reads \(i - 1) and \(i) are 10 ms apart at --max-fps 100")
        }
    }

    func testTimeoutBecomesTheSourcesDeadline() {
        let source = ListSource(frames: 2)
        let before = Date()
        _ = run(FrameScanner(source: source, decoders: decoders(DecoderLog(), maxMicros: 0),
                             limits: StreamLimits(timeout: 30), workers: 1))
        let deadlines = source.deadlines
        XCTAssertEqual(deadlines.count, 3)
        let first = deadlines.first.flatMap { $0 }
        XCTAssertNotNil(first)
        XCTAssertEqual(first?.timeIntervalSince(before) ?? 0, 30, accuracy: 2)
        XCTAssertTrue(deadlines.allSatisfy { $0 == first }, "one deadline for the whole run")

        let untimed = ListSource(frames: 1)
        _ = run(FrameScanner(source: untimed, decoders: decoders(DecoderLog(), maxMicros: 0), workers: 1))
        XCTAssertEqual(untimed.deadlines.count, 2)
        XCTAssertTrue(untimed.deadlines.allSatisfy { $0 == nil })
    }
}

/// Takes `micros` per frame and reads nothing.
private final class SlowDecoder: FrameDecoder {
    let micros: UInt32
    init(micros: UInt32) { self.micros = micros }
    func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] {
        usleep(micros)
        return []
    }
}
