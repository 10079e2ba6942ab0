import Foundation

// The only Swift file that writes to C's FILE streams.

/// Standard output and error for the CLI and sinks. stdout is a buffered C stream (records are
/// many and small); stderr is unbuffered. Swift 6 does not allow touching glibc's `stdout`
/// global, so we open our own stream on descriptor 1 and use only it.
public enum Console {
    nonisolated(unsafe) private static let out: UnsafeMutablePointer<FILE> = fdopen(1, "w")!

    /// Appends text to standard output (buffered).
    public static func write(_ text: String) { fputs(text, out) }

    /// Appends UTF-8 bytes to standard output (buffered).
    public static func write(bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { _ = fwrite($0.baseAddress, 1, $0.count, out) }
    }

    /// Whether standard error is a terminal (the status line is drawn only there).
    /// The corresponding C function is `isatty`.
    public static var stderrIsTerminal: Bool { isatty(2) != 0 }

    /// Writes text to standard error at once.
    public static func error(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }

    /// Flushes stdout. Returns the error text if anything could not be written (disk full, closed pipe).
    public static func flush() -> String? {
        if fflush(out) != 0 || ferror(out) != 0 { return String(cString: strerror(errno)) }
        return nil
    }
}
