// The only Swift file that writes files for actions (stdio's fopen/fputs/fflush).
import Foundation

/// Appends `line` and a newline to the file at `path`, creating it.
/// - Returns: nil, or the reason it failed (strerror).
/// The corresponding C functions are `fopen`, `fputs` and `fflush`.
func appendLine(_ line: String, toFile path: String) -> String? {
    guard let file = fopen(path, "a") else { return String(cString: strerror(errno)) }
    let written = fputs(line + "\n", file)
    let flushed = fflush(file)
    let failure = written < 0 || flushed != 0 ? String(cString: strerror(errno)) : nil
    fclose(file)
    return failure
}
