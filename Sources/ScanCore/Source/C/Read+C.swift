// The only Swift file that calls read(2) on a stream's descriptor.
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileHandle {
    /// One read(2) of at most `max` bytes: what has arrived (at least one byte, waiting only for
    /// the first), an empty array at the end of the stream, or nil on an error. Unlike
    /// `read(upToCount:)`, which waits until `max` bytes or the end, this hands a live pipe's last
    /// frame over as soon as its bytes are in (a paused producer's frame is not held back).
    func readSome(max: Int) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: Swift.max(1, max))
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if n >= 0 { return Array(chunk[0..<n]) }
            if errno != EINTR { return nil }
        }
    }
}

extension FileHandle {
    /// Opens a stream's path for reading without waiting for it: a FIFO with no writer yet, a
    /// tty that is not a controlling terminal (O_NONBLOCK | O_NOCTTY), then made blocking again
    /// for the reader. The corresponding C function is `open`.
    static func openStream(_ path: String) -> Result<FileHandle, SourceError> {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno == ENOENT ? "no such file, directory or camera" : "cannot open: \(String(cString: strerror(errno)))"
            return .failure(SourceError("\(path): \(reason)"))
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return .success(FileHandle(fileDescriptor: fd, closeOnDealloc: true))
    }

    /// The stream's first `count` bytes (fewer at its end), waiting for them no later than
    /// `deadline` and only while `stop` says no (asked every 200 ms): nil when neither came.
    /// Waits in poll(2), never in a read, so a silent pipe or tty cannot hold the caller.
    func readHead(count: Int, deadline: Date?, stop: () -> Bool) -> [UInt8]? {
        var head: [UInt8] = []
        while head.count < count {
            if stop() { return nil }
            let left = deadline.map { $0.timeIntervalSinceNow } ?? 0.2
            if left <= 0 { return nil }
            var p = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(min(0.2, left) * 1000) + 1)
            if ready < 0 && errno != EINTR { return head }
            guard ready > 0 else { continue }
            guard let chunk = readSome(max: count - head.count), !chunk.isEmpty else { return head }  // the end, or an error
            head += chunk
        }
        return head
    }
}
