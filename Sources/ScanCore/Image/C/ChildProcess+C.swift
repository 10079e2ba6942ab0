// The only Swift file of ScanCore that runs a child process (posix_spawn, poll, waitpid): the
// PDF renderer, which is kept out of the scanning process so a hostile PDF costs only its child.
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Held while pipes are made and a child spawned (see runChild).
private let spawnLock = NSLock()

/// What a child process gave back.
struct ChildOutput {
    var stdout: [UInt8]
    /// The end of what it wrote on stderr (at most 2 KB), for error messages.
    var stderr: String
    /// Its exit status, or nil when a signal ended it.
    var status: Int32?
    /// Why scanlua stopped it (its time, its output limit), or nil.
    var stopped: String?
}

/// Limits on one run of a child process.
struct ChildLimits {
    /// Wall-clock seconds before it is killed.
    var seconds: Double
    /// Address-space limit in bytes (`ulimit -v`), or nil.
    var memory: Int?
    /// Bytes of stdout kept before it is killed.
    var maxOutput: Int
}

/// Runs `program` (looked up on PATH) with `arguments`, `input` written to its stdin, and
/// returns its stdout; the child is killed (its whole process group) past the limits. Nil when
/// it could not be started. The corresponding C functions are `posix_spawnp`, `poll` and `waitpid`.
func runChild(_ program: String, _ arguments: [String], input: Data, limits: ChildLimits) -> ChildOutput? {
    // The memory limit through the shell's ulimit: posix_spawn cannot set one for the child alone.
    var argv = [program] + arguments
    if let memory = limits.memory {
        argv = ["/bin/sh", "-c", "ulimit -v \(max(1, memory / 1024)) && exec \"$0\" \"$@\""] + argv
    }
    // Pipes made and the child spawned under one lock: another decoding thread's child must not
    // inherit this one's pipe ends in the gap before FD_CLOEXEC is set (it would hold them open,
    // and each child would wait for the other's EOF). pipe2 is not visible to Swift here.
    spawnLock.lock()
    var locked = true
    defer { if locked { spawnLock.unlock() } }
    var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
    guard pipe(&inPipe) == 0 else { return nil }
    guard pipe(&outPipe) == 0 else { close(inPipe[0]); close(inPipe[1]); return nil }
    guard pipe(&errPipe) == 0 else {
        for fd in inPipe + outPipe { close(fd) }
        return nil
    }
    // Not inherited by other children started meanwhile (another decoding thread's renderer).
    for fd in inPipe + outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // Its own process group, so a kill reaches the renderer behind the shell too; default
    // signal handling (scanlua's SIGINT handler is not the child's).
    posix_spawnattr_setpgroup(&attributes, 0)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGINT)
    sigaddset(&defaults, SIGTERM)
    sigaddset(&defaults, SIGPIPE)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF))
    let cArgs = argv.map { strdup($0) } + [nil]
    defer { for a in cArgs { free(a) } }
    var pid: pid_t = 0
    let spawned = posix_spawnp(&pid, argv[0], &actions, &attributes, cArgs, environ)
    close(inPipe[0]); close(outPipe[1]); close(errPipe[1])
    spawnLock.unlock()
    locked = false
    guard spawned == 0 else {
        close(inPipe[1]); close(outPipe[0]); close(errPipe[0])
        return nil
    }
    _ = fcntl(inPipe[1], F_SETFL, O_NONBLOCK)
    // A child that exits before reading all its input (pdfinfo may) must not kill this process
    // with SIGPIPE where it is not ignored (the library's host): blocked on this thread while
    // writing, and a pending one taken back before unblocking.
    var pipeSignal = sigset_t(), previousMask = sigset_t()
    sigemptyset(&pipeSignal)
    sigaddset(&pipeSignal, SIGPIPE)
    pthread_sigmask(SIG_BLOCK, &pipeSignal, &previousMask)
    defer {
        var pending = sigset_t()
        if sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1 {
            var now = timespec()
            _ = sigtimedwait(&pipeSignal, nil, &now)
        }
        pthread_sigmask(SIG_SETMASK, &previousMask, nil)
    }
    var result = ChildOutput(stdout: [], stderr: "", status: nil, stopped: nil)
    var errTail: [UInt8] = []
    var written = 0
    var inFD: Int32 = input.isEmpty ? -1 : inPipe[1]
    if inFD < 0 { close(inPipe[1]) }
    var outFD = outPipe[0], errFD = errPipe[0]
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, limits.seconds) * 1e9)
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while outFD >= 0 || errFD >= 0 {
        let now = DispatchTime.now().uptimeNanoseconds
        if now >= deadline { result.stopped = "took longer than " + String(format: "%g", limits.seconds) + " s"; break }
        var fds = [pollfd(fd: inFD, events: Int16(POLLOUT), revents: 0), pollfd(fd: outFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: errFD, events: Int16(POLLIN), revents: 0)]
        let wait = Int32(min(1000, (deadline - now) / 1_000_000 + 1))
        if poll(&fds, 3, wait) < 0 && errno != EINTR { break }
        if inFD >= 0, fds[0].revents != 0 {
            let n = input.withUnsafeBytes { write(inFD, $0.baseAddress! + written, min(1 << 16, $0.count - written)) }
            if n > 0 { written += n }
            if (n < 0 && errno != EAGAIN && errno != EINTR) || written >= input.count { close(inFD); inFD = -1 }
        }
        for (i, isOut) in [(1, true), (2, false)] where fds[i].revents != 0 {
            let fd = isOut ? outFD : errFD
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                if isOut { result.stdout += buffer[0..<n] } else { errTail = Array((errTail + buffer[0..<n]).suffix(2048)) }
            } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                close(fd)
                if isOut { outFD = -1 } else { errFD = -1 }
            }
        }
        if result.stdout.count > limits.maxOutput { result.stopped = "wrote more than \(limits.maxOutput / 1_000_000) MB"; break }
    }
    if result.stopped != nil { kill(-pid, SIGKILL); kill(pid, SIGKILL) }
    for fd in [inFD, outFD, errFD] where fd >= 0 { close(fd) }
    var status: Int32 = 0
    var waited = waitpid(pid, &status, 0)
    while waited < 0 && errno == EINTR { waited = waitpid(pid, &status, 0) }
    // WIFEXITED / WEXITSTATUS are macros Swift cannot call. No status (a host that reaps its
    // children itself) is not a success.
    if waited == pid, status & 0x7F == 0 { result.status = (status >> 8) & 0xFF }
    result.stderr = String(decoding: errTail, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return result
}
