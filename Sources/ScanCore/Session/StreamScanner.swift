import Dispatch
import Foundation

/// One decoded frame of a stream, in order, with when it arrived (for latency).
public struct StreamFrame {
    public var frame: Frame
    public var symbols: [Symbol]
    /// When the source handed the frame over.
    public var arrival: DispatchTime
}

/// Limits of a streaming session.
public struct StreamLimits: Sendable {
    public var maxFrames: Int?
    public var maxFPS: Double?
    public var timeout: TimeInterval?
    public init(maxFrames: Int? = nil, maxFPS: Double? = nil, timeout: TimeInterval? = nil) {
        self.maxFrames = maxFrames
        self.maxFPS = maxFPS
        self.timeout = timeout
    }
}

/// Reads a source on its own thread, decodes frames on a pool of workers, and hands the results
/// to the caller's thread in frame order. A live source's frames are dropped (and counted) when
/// the decoders are behind, so memory stays bounded; files and pipes wait for the decoders, so
/// every frame is decoded.
public final class StreamScanner: @unchecked Sendable {
    private let source: FrameSource
    private let scanner: ImageScanner
    private let limits: StreamLimits
    private let workers: Int
    private let capacity: Int

    private let lock = NSCondition()
    private var queue: [(Int, Frame, DispatchTime)] = []
    private var results: [Int: StreamFrame] = [:]
    private var readCount = 0
    private var readerDone = false
    private var stopped = false
    private var sourceError: SourceError?
    /// Frames this scanner dropped because the decoders were behind a live source.
    public private(set) var droppedByDecoder = 0

    public init(source: FrameSource, scanner: ImageScanner, limits: StreamLimits,
                workers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)) {
        self.source = source
        self.scanner = scanner
        self.limits = limits
        self.workers = workers
        self.capacity = workers * 2
    }

    /// Frames dropped by the driver or by this scanner.
    public var dropped: Int { source.dropped + droppedByDecoder }

    /// Runs until the source ends, a limit is reached, or `body` returns false. `body` runs on
    /// the calling thread, in frame order.
    /// - Throws: the source's error (after the frames before it were handed over).
    public func run(_ body: (StreamFrame) -> Bool) throws(SourceError) {
        let deadline = limits.timeout.map { Date().addingTimeInterval($0) }
        let reader = Thread { [self] in readLoop(deadline: deadline) }
        reader.start()
        for _ in 0..<workers { Thread { [self] in decodeLoop() }.start() }
        var next = 0
        while true {
            lock.lock()
            while results[next] == nil && !(readerDone && next >= readCount) { lock.wait() }
            guard let item = results.removeValue(forKey: next) else {
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
                if now < last.uptimeNanoseconds + gap { usleep(UInt32((last.uptimeNanoseconds + gap - now) / 1000)) }
            }
            let frame: Frame?
            do { frame = try source.next(deadline: deadline) } catch {
                lock.lock()
                sourceError = error
                lock.unlock()
                break
            }
            guard let frame else { break }
            lastRead = DispatchTime.now()
            lock.lock()
            if source.isLive && queue.count + results.count >= capacity {
                droppedByDecoder += 1  // the decoders are behind a live camera: skip this frame
            } else {
                while !stopped && queue.count + results.count >= capacity { lock.wait() }
                queue.append((readCount, frame, lastRead!))
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
        while true {
            lock.lock()
            while queue.isEmpty && !readerDone && !stopped { lock.wait() }
            if queue.isEmpty || stopped {
                lock.unlock()
                return
            }
            let (n, frame, arrival) = queue.removeFirst()
            lock.unlock()
            let symbols = scanner.scan(frame.image)
            lock.lock()
            results[n] = StreamFrame(frame: frame, symbols: symbols, arrival: arrival)
            lock.broadcast()
            lock.unlock()
        }
    }
}
