import Foundation
import ScanCore

/// Carries out the actions rules return (``ActionType``), or with `--dry-run` only marks them.
///
/// `{type="append", path=..., line=...}` appends a line to a file below the working directory
/// (anywhere when trusted); `{type="stop"}` ends the scan after the current frame. Each action
/// in the record gains `status`: `done`, `dry-run` or `failed` (with `error`).
public final class ActionRunner {
    public let dryRun: Bool
    public let trusted: Bool
    /// Set once a `stop` action ran: the session finishes the current frame and stops.
    public private(set) var stopRequested = false

    public init(dryRun: Bool, trusted: Bool) {
        self.dryRun = dryRun
        self.trusted = trusted
    }

    public func carryOut(_ actions: [JSON]) -> [JSON] {
        actions.map { action in
            guard case .object(var pairs) = action else { return action }
            if dryRun {
                pairs.append(("status", .string("dry-run")))
                return .object(pairs)
            }
            switch perform(action) {
            case nil: pairs.append(("status", .string("done")))
            case let error?:
                pairs.append(("status", .string("failed")))
                pairs.append(("error", .string(error)))
            }
            return .object(pairs)
        }
    }

    /// Performs one action; returns nil on success or the reason it failed.
    private func perform(_ action: JSON) -> String? {
        guard case .string(let name)? = action["type"] else { return "action has no type" }
        guard let type = ActionType(rawValue: name) else { return "unknown action type '\(name)'" }
        switch type {
        case .stop:
            stopRequested = true
            return nil
        case .append:
            guard case .string(let path)? = action["path"], !path.isEmpty else { return "append needs a 'path' string" }
            guard case .string(let line)? = action["line"] else { return "append needs a 'line' string" }
            if !trusted && (path.hasPrefix("/") || path.split(separator: "/").contains("..")) {
                return "\(path): append is limited to paths below the working directory (use --trust to lift this)"
            }
            return appendLine(line, toFile: path).map { "\(path): \($0)" }
        }
    }
}

@available(*, unavailable) extension ActionRunner: Sendable {}
