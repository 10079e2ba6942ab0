import Dispatch
import Foundation

/// One item of a source after the worker decoders: in source order, with when it arrived.
package struct DecodedFrame: Sendable {
    package var info: FrameInfo
    /// The symbols the worker decoders read, or why the file could not be loaded.
    package var outcome: Result<[Symbol], ImageError>
    /// The frame's pixels, kept when the session has decoders of its own to run on them (or
    /// frame observers to draw them).
    package var image: GrayImage?
    /// When the source handed the item over.
    package var arrival: DispatchTime
    /// Whether the item was an image file (or stdin), not a frame of a stream.
    package var still = false
    /// An image file's bytes, kept for frame observers (a copy in color, in its own format).
    package var bytes: Data?
    /// Which page of `bytes` the frame is (0-based).
    package var page = 0
}

/// Limits of a scanning session.
package struct StreamLimits: Sendable, Equatable {
    package var maxFrames: Int?
    package var maxFPS: Double?
    package var timeout: TimeInterval?
    package init(maxFrames: Int? = nil, maxFPS: Double? = nil, timeout: TimeInterval? = nil) {
        self.maxFrames = maxFrames
        self.maxFPS = maxFPS
        self.timeout = timeout
    }
}

/// Reads a source on its own thread, loads and decodes its items on a pool of workers (each with
/// its own instances of the worker decoders), and hands the results to the caller's thread in
/// source order. A live source's frames are dropped (and counted) when the decoders are behind,
/// so memory stays bounded; files and pipes wait for the decoders, so every frame is decoded.
package final class FrameScanner: @unchecked Sendable {
    private let source: FrameSource
    /// Makes each worker thread's plan (its own decoder instances).
    private let makePlan: @Sendable () -> DecodePlan
    private let limits: StreamLimits
    private let workers: Int
    private let capacity: Int

    private let lock = NSCondition()
    private var queue: [(Int, SourceItem, DispatchTime)] = []
    private var results: [Int: DecodedFrame] = [:]
    private var readCount = 0
    private var readerDone = false
    private var stopped = false
    private var sourceError: SourceError?
    /// Decoder threads still running: `run` waits for them, so no decoder is inside zxing-cpp
    /// (C++ with static state) when the process exits.
    private var runningWorkers = 0
    /// Frames this scanner dropped because the decoders were behind a live source (under `lock`).
    private var decoderDrops = 0
    /// Frames this scanner dropped because the decoders were behind a live source.
    package var droppedByDecoder: Int {
        lock.lock()
        defer { lock.unlock() }
        return decoderDrops
    }
    /// The source's own drop count (a camera's, from the driver), read by the reader thread
    /// after each frame: the source is only touched from that thread.
    private var droppedBySource = 0

    /// The plan's settings (``DecodePlan``) for every worker; `workers` threads decode.
    package init(source: FrameSource, decoders: DecoderList, loader: ImageLoader = ImageLoader(), region: Region? = nil,
                limits: StreamLimits = StreamLimits(), pyramid: Pyramid = Pyramid(effort: .balanced),
                stillOrder: StillOrder = .together, keepFrames: Bool = false, timeBudget: TimeInterval? = nil,
                workers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)) {
        self.source = source
        let pixels = PixelBudget(capacity: PixelBudget.shared)
        let list = UncheckedList(decoders)
        makePlan = {
            DecodePlan(list: list.list, loader: loader, region: region, pyramid: pyramid, stillOrder: stillOrder, keepFrames: keepFrames,
                       timeBudget: timeBudget, pixels: pixels)
        }
        self.limits = limits
        self.workers = workers
        self.capacity = workers * 2
    }

    /// Frames dropped by the driver or by this scanner so far: live, while the scan runs.
    package var dropped: Int {
        lock.lock()
        defer { lock.unlock() }
        return droppedBySource + decoderDrops
    }

    /// Runs until the source ends, a limit is reached, or `body` returns false. `body` runs on
    /// the calling thread, in source order.
    /// - Throws: the source's error (after the items before it were handed over).
    /// `stop` is asked a few times a second while no frame is ready (a signal arrived).
    package func run(stop: () -> Bool = { false }, _ body: (DecodedFrame) -> Bool) throws(SourceError) {
        let deadline = limits.timeout.map { Date().addingTimeInterval($0) }
        let reader = Thread { [self] in readLoop(deadline: deadline) }
        reader.start()
        lock.lock()
        runningWorkers = workers
        lock.unlock()
        for _ in 0..<workers { Thread { [self] in decodeLoop() }.start() }
        var next = 0
        while true {
            lock.lock()
            var asked = false
            while results[next] == nil && !(readerDone && next >= readCount) {
                // A source blocked in a read (a pipe gone silent) cannot see its deadline: the
                // session ends at it all the same.
                if stop() || deadline.map({ Date() >= $0 && next >= readCount }) == true { asked = true; break }
                _ = lock.wait(until: Date().addingTimeInterval(0.2))
            }
            guard !asked, let item = results.removeValue(forKey: next) else {
                lock.unlock()
                break
            }
            lock.broadcast()
            lock.unlock()
            next += 1
            if !body(item) { break }
        }
        lock.lock()
        stopped = true
        lock.broadcast()
        while runningWorkers > 0 { lock.wait() }
        // The reader ends after the item it is reading: joined, so nothing touches the source
        // after this returns, unless it waits on a pipe that sends nothing (then 1 s is enough).
        let limit = Date().addingTimeInterval(1)
        while !readerDone && Date() < limit { _ = lock.wait(until: limit) }
        let error = sourceError
        lock.unlock()
        if let error { throw error }
    }

    private func readLoop(deadline: Date?) {
        var lastRead: DispatchTime?
        while true {
            lock.lock()
            let stop = stopped || limits.maxFrames.map { readCount >= $0 } ?? false
            lock.unlock()
            if stop { break }
            if let fps = limits.maxFPS, fps > 0, let last = lastRead {
                let gap = UInt64(1e9 / fps)
                let now = DispatchTime.now().uptimeNanoseconds
                if now < last.uptimeNanoseconds + gap { Thread.sleep(forTimeInterval: Double(last.uptimeNanoseconds + gap - now) / 1e9) }
            }
            let item: SourceItem?
            do { item = try source.next(deadline: deadline) } catch {
                lock.lock()
                sourceError = error
                lock.unlock()
                break
            }
            guard let item else { break }
            lastRead = DispatchTime.now()
            let sourceDropped = source.dropped
            lock.lock()
            droppedBySource = sourceDropped
            if source.isLive && queue.count + results.count >= capacity {
                decoderDrops += 1  // the decoders are behind a live camera: skip this frame
            } else {
                while !stopped && queue.count + results.count >= capacity { lock.wait() }
                queue.append((readCount, item, lastRead!))
                readCount += 1
                lock.broadcast()
            }
            lock.unlock()
        }
        lock.lock()
        readerDone = true
        lock.broadcast()
        lock.unlock()
    }

    private func decodeLoop() {
        // This thread's own plan and decoder instances, reused for every frame it decodes.
        let plan = makePlan()
        while true {
            lock.lock()
            while queue.isEmpty && !readerDone && !stopped { lock.wait() }
            if queue.isEmpty || stopped {
                runningWorkers -= 1
                lock.broadcast()
                lock.unlock()
                return
            }
            let (n, item, arrival) = queue.removeFirst()
            lock.unlock()
            let result = plan.decode(item, arrival: arrival)
            lock.lock()
            results[n] = result
            lock.broadcast()
            lock.unlock()
        }
    }
}

/// The session's decoder list handed to the worker threads: each makes its own instances from it.
private struct UncheckedList: @unchecked Sendable {
    let list: DecoderList
    init(_ list: DecoderList) { self.list = list }
}

/// A count of pixels shared by the decoding threads: `acquire` waits until its amount is free
/// (an amount over the whole capacity takes all of it).
///
/// What the decoding threads may hold at once (their images and the decoders' copies of them):
/// a crafted file's megapixels cost memory whatever its size on disk, so two large images decode
/// one after the other. With the default `--max-pixels` (50 MP) a scan stays under about 300 MB
/// whatever the number of threads.
package final class PixelBudget: @unchecked Sendable {
    /// The decoding threads' budget: 64 megapixels.
    package static let shared = 64_000_000
    private let capacity: Int
    private var free: Int
    private let condition = NSCondition()

    package init(capacity: Int) {
        self.capacity = capacity
        free = capacity
    }

    /// Waits for `pixels` (at most the capacity) and returns what it took.
    package func acquire(_ pixels: Int) -> Int {
        let n = min(max(pixels, 0), capacity)
        condition.lock()
        while free < n { condition.wait() }
        free -= n
        condition.unlock()
        return n
    }

    package func release(_ n: Int) {
        guard n > 0 else { return }
        condition.lock()
        free += n
        condition.broadcast()
        condition.unlock()
    }
}
