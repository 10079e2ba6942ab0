// The only Swift file that calls inotify.
import Foundation
import Glibc

/// A directory watched for new image files: each file that appears and finishes writing
/// (closed after writing, or moved in) is scanned once. Files already there are not.
public final class DirectoryWatchSource: FrameSource {
    public let name: String
    public var isLive: Bool { false }
    public var dropped: Int { 0 }
    private let fd: Int32
    private let loader: ImageLoader
    private var pending: [String] = []
    private var index = 0
    /// Files that could not be read, with why; the caller reports them and goes on.
    public private(set) var failures: [(path: String, error: ImageError)] = []

    public init(directory: String, loader: ImageLoader = ImageLoader()) throws(SourceError) {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDir), isDir.boolValue else {
            throw SourceError("\(directory): no such directory to watch")
        }
        name = directory
        self.loader = loader
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

    /// Takes the failures collected so far.
    public func takeFailures() -> [(path: String, error: ImageError)] {
        defer { failures = [] }
        return failures
    }

    public func next(deadline: Date?) throws(SourceError) -> Frame? {
        while true {
            while let path = pending.first {
                pending.removeFirst()
                do {
                    let image = try loader.load(path: path)
                    defer { index += 1 }
                    return Frame(info: FrameInfo(source: path, index: 0, time: Date(), width: image.width, height: image.height),
                                 image: image)
                } catch {
                    failures.append((path, error))
                }
            }
            let wait = deadline.map { max(0, Int($0.timeIntervalSinceNow * 1000)) } ?? 1000
            if deadline != nil && wait == 0 { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(min(wait, 1000)))
            if ready < 0 && errno != EINTR { throw SourceError("\(name): poll: \(String(cString: strerror(errno)))") }
            if ready > 0 { readEvents() }
        }
    }

    private func readEvents() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return }
        var i = 0
        let header = MemoryLayout<inotify_event>.size
        var names: [String] = []
        while i + header <= n {
            let len = Int(buffer[i + 12]) | Int(buffer[i + 13]) << 8 | Int(buffer[i + 14]) << 16 | Int(buffer[i + 15]) << 24
            let nameBytes = buffer[(i + header)..<min(n, i + header + len)].prefix { $0 != 0 }
            let file = String(decoding: nameBytes, as: UTF8.self)
            let ext = (file as NSString).pathExtension.lowercased()
            if !file.hasPrefix("."), Input.imageExtensions.contains(ext) { names.append(file) }
            i += header + len
        }
        pending += names.sorted().map { name.hasSuffix("/") ? name + $0 : name + "/" + $0 }
    }
}
