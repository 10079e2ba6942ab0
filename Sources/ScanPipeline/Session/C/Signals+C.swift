// The only Swift file that installs signal handlers (sigaction).
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// SIGINT and SIGTERM end a session cleanly: no new input is read, the current frame's symbols
/// get their store transaction and records, `on_stop` runs, output is flushed, and the command
/// exits 128 + the signal. SIGPIPE is ignored, so a closed stdout is a write error (a message and
/// exit 1), not a silent death.
/// The signal caught (0: none); written by the handler only.
/// Atomic: written by the handler, read by every thread (lock-free, so safe in a handler).
private let caughtSignal = Atomic<Int32>(0)

package enum Signals {
    /// The signal that asked the session to stop (SIGINT, SIGTERM), or nil.
    package static var received: Int32? {
        let s = caughtSignal.load(ordering: .acquiring)
        return s == 0 ? nil : s
    }

    /// Installs the handlers (without SA_RESTART: a blocked read of stdin returns).
    /// The corresponding C function is `sigaction`.
    package static func install() {
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        sigaction(SIGPIPE, &ignore, nil)
        // A session that does not come back to check within 5 s (stuck in C, or in code with no
        // budget) is ended by the alarm, with the status of the signal that asked.
        var alarmAction = sigaction()
        alarmAction.__sigaction_handler.sa_handler = { _ in
            let s = caughtSignal.load(ordering: .relaxed)
            _exit(128 + (s == 0 ? SIGTERM : s))
        }
        sigaction(SIGALRM, &alarmAction, nil)
        for signal in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { sig in
                if caughtSignal.load(ordering: .relaxed) != 0 { _exit(128 + sig) }  // a second signal: at once
                caughtSignal.store(sig, ordering: .releasing)
                alarm(5)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signal, &action, nil)
        }
    }
}
