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
    /// Files no action may write, trusted or not: the config, scripts, the store's database.
    public var protectedPaths: [String] = []
    /// Set once a `stop` action ran: the session finishes the current frame and stops.
    public private(set) var stopRequested = false

    public init(dryRun: Bool, trusted: Bool) {
        self.dryRun = dryRun
        self.trusted = trusted
    }

    /// Lua files (scripts and configs), SQLite files, and the given paths (wherever they resolve).
    static func isScriptOrStore(_ path: String, protected: [String]) -> Bool {
        let name = (path as NSString).lastPathComponent.lowercased()
        for suffix in [".lua", ".db", ".sqlite", ".sqlite3", ".db-wal", ".db-shm", ".db-journal"] where name.hasSuffix(suffix) {
            return true
        }
        // Where a file is or would be: its directory resolved, so files not made yet compare too.
        func located(_ file: String) -> String? {
            let parent = (file as NSString).deletingLastPathComponent
            return physicalPath(parent.isEmpty ? "." : parent).map { $0 + "/" + (file as NSString).lastPathComponent }
        }
        let target = located(path)
        return protected.contains { p in
            p == path || (target != nil && located(p) == target)
        }
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
            // A rule must not be able to change what the next run loads or its store.
            if Self.isScriptOrStore(path, protected: protectedPaths) {
                return "\(path): an action cannot write a script, a config or a database"
            }
            // Below the working directory physically, not only as text (a linked directory leads out).
            let directory = (path as NSString).deletingLastPathComponent
            if !trusted && !isPhysically(directory.isEmpty ? "." : directory, inside: FileManager.default.currentDirectoryPath) {
                return "\(path): append is limited to paths below the working directory (\(directory) leads out of it)"
            }
            return appendLine(line, toFile: path).map { "\(path): \($0)" }
        }
    }
}

@available(*, unavailable) extension ActionRunner: Sendable {}
