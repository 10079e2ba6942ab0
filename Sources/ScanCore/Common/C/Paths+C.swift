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
