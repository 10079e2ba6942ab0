import Foundation
import ScanCore
import Synchronization

// The only Swift file that writes to C's FILE streams.

/// Standard output and error for the CLI and sinks. stdout is a buffered C stream (records are
/// many and small); stderr is unbuffered. Swift 6 does not allow touching glibc's `stdout`
/// global, so we open our own stream on descriptor 1 and use only it.
package enum Console {
    // A C stream: stdio locks it itself, so every thread may write to it.
    nonisolated(unsafe) private static let out: UnsafeMutablePointer<FILE> = fdopen(1, "w")!

    /// Set while a status or progress line is on the terminal (``drawTransient(_:)``): the next
    /// record or message clears it first, so nothing is glued to it.
    private static let transientShown = Atomic<Bool>(false)  // set by the status line's thread, cleared by any writer
    private static let stdoutIsTerminal = isatty(1) != 0

    private static func clearTransient(forStdout: Bool) {
        guard transientShown.load(ordering: .acquiring), !forStdout || stdoutIsTerminal else { return }
        transientShown.store(false, ordering: .releasing)
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// Appends text to standard output (buffered). Written as bytes: a payload's NUL must not end it.
    package static func write(_ text: String) { write(bytes: Array(text.utf8)) }

    /// Appends UTF-8 bytes to standard output (buffered).
    package static func write(bytes: [UInt8]) {
        clearTransient(forStdout: true)
        bytes.withUnsafeBufferPointer { _ = fwrite($0.baseAddress, 1, $0.count, out) }
    }

    /// Draws a line on stderr that the next output replaces (a status or progress line): the
    /// records written so far are flushed first, so they come before it.
    package static func drawTransient(_ text: String) {
        _ = flush()
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
        transientShown.store(true, ordering: .releasing)
    }

    /// Ends a transient line: kept on its own line (`keep`) or erased.
    package static func endTransient(keep: Bool) {
        guard transientShown.load(ordering: .acquiring) else { return }
        transientShown.store(false, ordering: .releasing)
        FileHandle.standardError.write(Data((keep ? "\n" : "\r\u{1B}[K").utf8))
    }

    /// Whether standard error is a terminal (the status line is drawn only there).
    /// The corresponding C function is `isatty`.
    package static var stderrIsTerminal: Bool { isatty(2) != 0 }

    /// Writes a message to standard error at once, its control characters shown escaped
    /// (``TerminalText``): a file name or a payload in it cannot rewrite the terminal.
    package static func error(_ text: String) {
        clearTransient(forStdout: false)
        FileHandle.standardError.write(Data(TerminalText.escaped(text, keepingNewlines: true).utf8))
    }

    /// Flushes stdout. Returns the error text if anything could not be written (disk full, closed pipe).
    package static func flush() -> String? {
        if fflush(out) != 0 || ferror(out) != 0 {
            if errno == EPIPE { readerGoneFlag.store(true, ordering: .releasing) }
            return String(cString: strerror(errno))
        }
        return nil
    }

    /// Set once a write found stdout's reader gone (`scanlua export | head`): the command ends
    /// quietly with 141 (128 + SIGPIPE), as a Unix tool killed by SIGPIPE does, instead of an error.
    package static var readerGone: Bool { readerGoneFlag.load(ordering: .acquiring) }
    private static let readerGoneFlag = Atomic<Bool>(false)
}
