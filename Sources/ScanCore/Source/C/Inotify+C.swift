// The only Swift file that calls inotify and poll.
// Linux only (docs/portability.md): inotify is Linux's; the #else branch below is what another
// system builds (a watched folder there would use FSEvents or kqueue).
#if os(Linux)
import Foundation
import Glibc

/// One inotify descriptor watching a directory and every folder below it for files being
/// written, closed, moved in, deleted or moved away; folders created or moved in while watching
/// are watched too. Closed in deinit.
final class DirectoryWatch {
    private let fd: Int32
    let directory: String
    /// Watch descriptor -> the folder it watches.
    private var folders: [Int32: String] = [:]

    init(directory: String) throws(SourceError) {
        self.directory = directory
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw SourceError("\(directory): inotify: \(String(cString: strerror(errno)))") }
        do { try add(directory) } catch {
            close(fd)
            throw error
        }
        for sub in Self.subfolders(of: directory) { try? add(sub) }
    }

    deinit { close(fd) }

    /// Watches one folder. The corresponding C function is `inotify_add_watch`.
    private func add(_ folder: String) throws(SourceError) {
        // IN_CREATE, IN_MODIFY, IN_CLOSE_WRITE: a file is being written (a writer may close and
        // reopen it many times); IN_MOVED_TO: a file or folder moved in; IN_DELETE, IN_MOVED_FROM:
        // a file went away.
        let mask = IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_ONLYDIR
        let wd = PathName.withCString(folder) { inotify_add_watch(fd, $0, UInt32(mask)) }
        guard wd >= 0 else { throw SourceError("\(folder): cannot watch: \(String(cString: strerror(errno)))") }
        folders[wd] = folder
    }

    /// Every folder below `dir` (hidden ones skipped).
    static func subfolders(of dir: String, depth: Int = 0) -> [String] {
        guard depth < 64 else { return [] }
        var out: [String] = []
        for name in directoryEntries(dir) ?? [] where !name.hasPrefix(".") {
            let full = (dir as NSString).appendingPathComponent(name)
            guard !isLinkedFolder(full), pathKind(full) == .directory else { continue }
            out += [full] + subfolders(of: full, depth: depth + 1)
        }
        return out
    }

    /// What happened: files written or moved in, files gone, and folders that appeared (now watched as well).
    struct Events {
        var files: [String] = []
        var gone: [String] = []
        var newFolders: [String] = []
    }

    /// Waits up to `milliseconds` for something to happen. The corresponding C functions are `poll` and `read`.
    func wait(milliseconds: Int) throws(SourceError) -> Events {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&p, 1, Int32(milliseconds))
        if ready < 0 && errno != EINTR { throw SourceError("\(directory): poll: \(String(cString: strerror(errno)))") }
        var events = Events()
        guard ready > 0 else { return events }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return events }
        var i = 0
        let header = MemoryLayout<inotify_event>.size
        func int32(_ at: Int) -> UInt32 {
            UInt32(buffer[at]) | UInt32(buffer[at + 1]) << 8 | UInt32(buffer[at + 2]) << 16 | UInt32(buffer[at + 3]) << 24
        }
        while i + header <= n {
            let wd = Int32(bitPattern: int32(i)), mask = int32(i + 4), len = Int(int32(i + 12))
            let nameBytes = buffer[(i + header)..<min(n, i + header + len)].prefix { $0 != 0 }
            let name = PathName.fromBytes(nameBytes)  // a name that is not UTF-8 kept byte for byte
            i += header + len
            guard let folder = folders[wd], !name.isEmpty, !name.hasPrefix(".") else { continue }
            let path = (folder as NSString).appendingPathComponent(name)
            if mask & UInt32(IN_ISDIR) != 0 {
                if mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0 {
                    for f in [path] + Self.subfolders(of: path) where (try? add(f)) != nil { events.newFolders.append(f) }
                }
            } else if mask & UInt32(IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO) != 0 {
                events.files.append(path)
            } else if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
                events.gone.append(path)
            }
        }
        return events
    }
}

#else
import Foundation

/// Watching a folder uses inotify, which only Linux has: on other systems it says so.
final class DirectoryWatch {
    let directory: String
    struct Events {
        var files: [String] = []
        var gone: [String] = []
        var newFolders: [String] = []
    }
    init(directory: String) throws(SourceError) {
        self.directory = directory
        throw SourceError("\(directory): watching a folder uses inotify, on Linux only (docs/portability.md)")
    }
    func wait(milliseconds: Int) throws(SourceError) -> Events { Events() }
}
#endif
