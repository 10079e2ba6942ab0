import Foundation
import ScanCore

/// The scan-session flags of `watch` (and `--once`/`--duplicates` on `scan`).
struct SessionFlags {
    var duplicates: DuplicatePolicy
    var interval: TimeInterval = 1
    var once = false
    /// Flags given on the command line: the config's scan.options do not override these.
    var given: Set<String> = []

    static let help = """
          --duplicates MODE       once (each code once per session), interval (again after --interval
                                  seconds), consecutive (again when another code came between), all.
          --interval SECONDS      For --duplicates interval (default 1).
          --once                  Stop after the first accepted code (exit 0, printing it).
    """

    mutating func parse(_ option: String, _ args: inout ArgumentList) throws(UsageError) -> Bool {
        given.insert(option)
        switch option {
        case "--duplicates":
            let v = try args.value(for: option)
            guard let p = DuplicatePolicy(rawValue: v) else {
                throw UsageError("invalid value '\(v)' for '--duplicates': expected once, interval, consecutive or all")
            }
            duplicates = p
        case "--interval":
            let v = try args.value(for: option)
            guard let s = Double(v), s >= 0 else { throw UsageError("invalid value '\(v)' for '--interval': expected seconds") }
            interval = s
        case "--once": try args.noValue(for: option); once = true
        default: return false
        }
        return true
    }

    var filter: SessionFilter { SessionFilter(policy: duplicates, interval: interval, stopAfterFirst: once) }

    /// Takes the config's settings (scan.options) for what the command line did not say.
    mutating func apply(config: [String: JSON]) throws(UsageError) {
        if !given.contains("--duplicates"), case .string(let v)? = config["duplicates"] {
            guard let p = DuplicatePolicy(rawValue: v) else {
                throw UsageError("scan.options: duplicates must be once, interval, consecutive or all, not '\(v)'")
            }
            duplicates = p
        }
        if !given.contains("--interval"), case .double(let v)? = config["interval"] { interval = v }
        if !given.contains("--once"), case .bool(let v)? = config["once"] { once = v }
    }
}

/// Parses `--roi` values for scan and watch.
func parseRegion(_ v: String) throws(UsageError) -> Region {
    switch Region.parse(v) {
    case .success(let r): return r
    case .failure(let e): throw UsageError("invalid value '\(v)' for '--roi': \(e.message)")
    }
}
