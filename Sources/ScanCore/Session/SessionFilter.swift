import Foundation

/// Which repeated codes a scanning session reports (`--duplicates`), as mobile scanner SDKs do.
package enum DuplicatePolicy: String, Sendable, CaseIterable {
    /// Each distinct code once per session.
    case once
    /// A code again only after `interval` seconds without it being accepted.
    case interval
    /// A code again only when another code was accepted in between.
    case consecutive
    /// Every code in every frame.
    case all
}

/// The session filter: decides, frame by frame, which symbols become events. Codes are the same
/// when their symbology and bytes are. Times are the frames' capture times.
package struct SessionFilter: Sendable {
    package var policy: DuplicatePolicy
    package var interval: TimeInterval
    /// Stop after the first accepted code (`--once`).
    package var stopAfterFirst: Bool

    private var lastAccepted: [String: Date] = [:]
    private var lastKey: String?
    package private(set) var acceptedCount = 0

    package init(policy: DuplicatePolicy, interval: TimeInterval = 1, stopAfterFirst: Bool = false) {
        self.policy = policy
        self.interval = interval
        self.stopAfterFirst = stopAfterFirst
    }

    /// True once `--once` has accepted its code: the caller stops.
    package var isDone: Bool { stopAfterFirst && acceptedCount > 0 }

    /// The symbols of one frame that pass, in their order.
    package mutating func accept(_ symbols: [Symbol], at time: Date) -> [Symbol] {
        var out: [Symbol] = []
        for s in symbols {
            if isDone { break }
            let key = s.symbology.rawValue + "\u{1}" + s.bytes.base64
            let pass: Bool
            switch policy {
            case .all: pass = true
            case .once: pass = lastAccepted[key] == nil
            case .interval:
                if let last = lastAccepted[key] { pass = time.timeIntervalSince(last) >= interval } else { pass = true }
            case .consecutive: pass = key != lastKey
            }
            guard pass else { continue }
            lastAccepted[key] = time
            lastKey = key
            acceptedCount += 1
            out.append(s)
        }
        return out
    }
}
