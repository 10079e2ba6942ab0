// The only Swift file that calls inotify and poll.
import Foundation
import Glibc

/// One inotify descriptor watching one directory for finished files (closed after writing, or
/// moved in). Closed in deinit.
final class DirectoryWatch {
    private let fd: Int32
    let directory: String

    init(directory: String) throws(SourceError) {
        self.directory = directory
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw SourceError("\(directory): inotify: \(String(cString: strerror(errno)))") }
        // IN_CLOSE_WRITE: a writer finished; IN_MOVED_TO: a finished file was moved in.
        guard inotify_add_watch(fd, directory, UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO)) >= 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw SourceError("\(directory): cannot watch: \(reason)")
        }
    }

    deinit { close(fd) }

    /// Waits up to `milliseconds` for files to finish; returns their names (maybe none).
    /// The corresponding C functions are `poll` and `read`.
    func wait(milliseconds: Int) throws(SourceError) -> [String] {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&p, 1, Int32(milliseconds))
        if ready < 0 && errno != EINTR { throw SourceError("\(directory): poll: \(String(cString: strerror(errno)))") }
        guard ready > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return [] }
        var i = 0
        let header = MemoryLayout<inotify_event>.size
        var names: [String] = []
        while i + header <= n {
            let len = Int(buffer[i + 12]) | Int(buffer[i + 13]) << 8 | Int(buffer[i + 14]) << 16 | Int(buffer[i + 15]) << 24
            let nameBytes = buffer[(i + header)..<min(n, i + header + len)].prefix { $0 != 0 }
            names.append(String(decoding: nameBytes, as: UTF8.self))
            i += header + len
        }
        return names
    }
}
