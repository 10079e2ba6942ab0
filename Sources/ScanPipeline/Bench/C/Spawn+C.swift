// The only Swift file that spawns processes with posix_spawn and reaps them with wait4 (for
// their peak memory), for the benchmarks.
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One run of a command: wall seconds, peak resident memory, exit status, what it printed.
struct CommandRun {
    var seconds: Double
    var maxRSSKiB: Int
    var status: Int32
    var stdout: String
}

/// Runs `path` with `arguments`, stdout captured, stderr discarded.
/// The corresponding C functions are `posix_spawn` and `wait4`.
func runCommand(_ path: String, _ arguments: [String]) -> CommandRun? {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for a in argv { free(a) } }
    var pid: pid_t = 0
    let start = DispatchTime.now().uptimeNanoseconds
    guard posix_spawn(&pid, path, &actions, nil, argv, environ) == 0 else {
        close(fds[0]); close(fds[1])
        return nil
    }
    close(fds[1])
    var output = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
        if n <= 0 { break }
        output.append(contentsOf: buffer[0..<n])
    }
    close(fds[0])
    var status: Int32 = 0
    var usage = rusage()
    _ = wait4(pid, &status, 0, &usage)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return CommandRun(seconds: seconds, maxRSSKiB: Int(usage.ru_maxrss), status: (status >> 8) & 0xFF,
                      stdout: String(decoding: output, as: UTF8.self))
}
