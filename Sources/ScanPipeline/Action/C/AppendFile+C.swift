// The only Swift file that writes files for actions (stdio's fopen/fputs/fflush).
import Foundation

/// Appends `line` and a newline to the file at `path`, creating it; a symbolic link as the last
/// component is refused (O_NOFOLLOW), so the file is the one the caller checked.
/// - Returns: nil, or the reason it failed (strerror).
/// The corresponding C functions are `open`, `fdopen`, `fputs` and `fflush`.
func appendLine(_ line: String, toFile path: String) -> String? {
    let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
        return errno == ELOOP ? "is a symbolic link (not followed)" : String(cString: strerror(errno))
    }
    guard let file = fdopen(fd, "a") else {
        close(fd)
        return String(cString: strerror(errno))
    }
    let written = fputs(line + "\n", file)
    let flushed = fflush(file)
    let failure = written < 0 || flushed != 0 ? String(cString: strerror(errno)) : nil
    fclose(file)
    return failure
}
