// The only Swift file that resolves paths with realpath(3).
import Foundation
import Glibc

/// Where a path really is: every symbolic link followed and every `..` applied to the directory
/// it names (not removed as text: `link/../x` with `link -> /etc/ssl` is `/etc/x`), or nil when
/// it does not exist. The corresponding C function is `realpath`.
public func physicalPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// Whether `path` physically lies in directory `root` (or is it).
public func isPhysically(_ path: String, inside root: String) -> Bool {
    guard let p = physicalPath(path), let r = physicalPath(root) else { return false }
    return p == r || p.hasPrefix(r.hasSuffix("/") ? r : r + "/")
}

/// The bytes of a regular file, read through one descriptor opened without following a final
/// symbolic link (`O_NOFOLLOW`): what is checked is what was read, whatever is renamed over the
/// path meanwhile. Nil when it cannot be opened, is a link, or is not a regular file.
public func readRegularFileNoFollow(_ path: String, limit: Int = 64 << 20) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int(st.st_size) <= limit else { return nil }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 { if errno == EINTR { continue }; return nil }
        if n == 0 { break }
        bytes += chunk[0..<n]
        if bytes.count > limit { return nil }
    }
    return bytes
}
