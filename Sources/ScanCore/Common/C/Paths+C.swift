// The only Swift file that resolves paths with realpath(3).
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a path really is: every symbolic link followed and every `..` applied to the directory
/// it names (not removed as text: `link/../x` with `link -> /etc/ssl` is `/etc/x`), or nil when
/// it does not exist. The corresponding C function is `realpath`.
package func physicalPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// Whether `path` physically lies in directory `root` (or is it).
package func isPhysically(_ path: String, inside root: String) -> Bool {
    guard let p = physicalPath(path), let r = physicalPath(root) else { return false }
    return p == r || p.hasPrefix(r.hasSuffix("/") ? r : r + "/")
}

/// Why a file could not be read as a regular file.
package struct FileReadFailure: Error, Sendable {
    package let reason: String
    package init(reason: String) { self.reason = reason }
}

/// The bytes of a regular file, read through one descriptor: what is checked is what was read,
/// whatever is renamed over the path meanwhile. `followLinks: false` opens with `O_NOFOLLOW`
/// (a final symbolic link is refused). Directories, FIFOs, sockets and devices are refused
/// before anything is read ("not a regular file (a directory)"): opened with `O_NONBLOCK`, a FIFO
/// does not wait for a writer.
///
/// `within`: a real directory path the opened file must lie in, checked on the open descriptor
/// (its `/proc/self/fd` link), so a link swapped in after a check of the path cannot lead out.
package func readRegularFile(_ path: String, followLinks: Bool = true, within root: String? = nil,
                            limit: Int = 1 << 30) -> Result<[UInt8], FileReadFailure> {
    let fd = PathName.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followLinks ? 0 : O_NOFOLLOW)) }
    guard fd >= 0 else {
        if errno == ELOOP && !followLinks { return .failure(FileReadFailure(reason: "a symbolic link")) }
        return .failure(FileReadFailure(reason: String(cString: strerror(errno))))
    }
    defer { close(fd) }
    if let root {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        let opened = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard opened.hasPrefix(prefix) else { return .failure(FileReadFailure(reason: "outside the worker's --root \(root)")) }
    }
    var st = stat()
    guard fstat(fd, &st) == 0 else { return .failure(FileReadFailure(reason: String(cString: strerror(errno)))) }
    switch st.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: return .failure(FileReadFailure(reason: "not a regular file (a directory)"))
    case S_IFIFO: return .failure(FileReadFailure(reason: "not a regular file (a FIFO)"))
    case S_IFSOCK: return .failure(FileReadFailure(reason: "not a regular file (a socket)"))
    case S_IFCHR, S_IFBLK: return .failure(FileReadFailure(reason: "not a regular file (a device)"))
    default: return .failure(FileReadFailure(reason: "not a regular file"))
    }
    guard Int(st.st_size) <= limit else { return .failure(FileReadFailure(reason: "larger than \(limit >> 20) MiB")) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(st.st_size))
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            return .failure(FileReadFailure(reason: String(cString: strerror(errno))))
        }
        if n == 0 { break }
        bytes += chunk[0..<n]
        if bytes.count > limit { return .failure(FileReadFailure(reason: "larger than \(limit >> 20) MiB")) }
    }
    return .success(bytes)
}

/// ``readRegularFile(_:followLinks:limit:)`` without following a final link, nil on any failure.
package func readRegularFileNoFollow(_ path: String, limit: Int = 64 << 20) -> [UInt8]? {
    try? readRegularFile(path, followLinks: false, limit: limit).get()
}

/// The first `count` bytes of a regular file (fewer when it is shorter), refusing what is not one
/// as ``readRegularFile(_:followLinks:within:limit:)`` does: for telling a file's format by its
/// signature before it is read whole.
package func readRegularFileHead(_ path: String, count: Int) -> Result<[UInt8], FileReadFailure> {
    let fd = PathName.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
    guard fd >= 0 else { return .failure(FileReadFailure(reason: String(cString: strerror(errno)))) }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0 else { return .failure(FileReadFailure(reason: String(cString: strerror(errno)))) }
    guard st.st_mode & S_IFMT == S_IFREG else { return .failure(FileReadFailure(reason: "not a regular file")) }
    var bytes = [UInt8](repeating: 0, count: count)
    var n = 0
    while n < count {
        let k = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + n, count - n) }
        if k < 0 && errno == EINTR { continue }
        if k < 0 { return .failure(FileReadFailure(reason: String(cString: strerror(errno)))) }
        if k == 0 { break }
        n += k
    }
    return .success(Array(bytes[0..<n]))
}

/// What `path` is when it exists and is not a regular file ("a FIFO", "a socket", "a device",
/// "a directory"), else nil; links followed. Asked without opening it: opening a FIFO waits for
/// a writer. The corresponding C function is `stat`.
package func nonRegularKind(_ path: String) -> String? {
    var st = stat()
    guard PathName.withCString(path, { stat($0, &st) }) == 0 else { return nil }
    switch st.st_mode & S_IFMT {
    case S_IFREG: return nil
    case S_IFDIR: return "a directory"
    case S_IFIFO: return "a FIFO"
    case S_IFSOCK: return "a socket"
    case S_IFCHR, S_IFBLK: return "a device"
    default: return "not a regular file"
    }
}

/// A regular file's size in bytes (links followed), or nil. The corresponding C function is `stat`.
package func regularFileSize(_ path: String) -> Int? {
    var st = stat()
    guard PathName.withCString(path, { stat($0, &st) }) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
    return Int(st.st_size)
}

/// What a path is, links followed: nil when it does not exist. The corresponding C function is `stat`.
package enum PathKind { case directory, regular, other }

package func pathKind(_ path: String) -> PathKind? {
    var st = stat()
    guard PathName.withCString(path, { stat($0, &st) }) == 0 else { return nil }
    switch st.st_mode & S_IFMT {
    case S_IFDIR: return .directory
    case S_IFREG: return .regular
    default: return .other
    }
}

/// A directory's entries by their bytes (``PathName``), `.` and `..` left out; nil when it cannot
/// be listed. The corresponding C functions are `opendir`, `readdir` and `closedir`.
package func directoryEntries(_ path: String) -> [String]? {
    guard let dir = PathName.withCString(path, { opendir($0) }) else { return nil }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in PathName.fromBytes(raw.prefix { $0 != 0 }) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// Whether `path` is a symbolic link to a directory: a folder walk does not follow those (a link
/// loop, a link out of the folder). The corresponding C function is `lstat`.
package func isLinkedFolder(_ path: String) -> Bool {
    var st = stat()
    guard PathName.withCString(path, { lstat($0, &st) }) == 0, st.st_mode & S_IFMT == S_IFLNK else { return false }
    return pathKind(path) == .directory
}

/// A regular file's size and modification time in nanoseconds (links followed), or nil.
/// The corresponding C function is `stat`.
package func regularFileStamp(_ path: String) -> (size: Int, modified: Int)? {
    var st = stat()
    guard PathName.withCString(path, { stat($0, &st) }) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
    return (Int(st.st_size), Int(st.st_mtim.tv_sec) * 1_000_000_000 + Int(st.st_mtim.tv_nsec))
}
