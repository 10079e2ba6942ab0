import Foundation
import ScanCore

/// Session hooks: scan.on_start, scan.on_frame, scan.on_stop.
extension ScriptEngine {
    /// How many hooks of a kind (`start`, `frame`, `stop`) scripts registered.
    public func hookCount(_ kind: String) -> Int {
        let base = lua.top
        defer { lua.setTop(base) }
        lua.push(.ref(hookCountRef))
        lua.push(.string(kind))
        guard (try? lua.call(nargs: 1, nresults: 1, handlerAt: 1)) != nil else { return 0 }
        return lua.integer(at: -1) ?? 0
    }

    /// Runs the `start` hooks.
    public func sessionStarted() { runHooks("start") { lua.push(.nil) } }

    /// Runs the `frame` hooks with the frame and every symbol found in it.
    public func frameScanned(_ info: FrameInfo, symbols: [Symbol]) {
        runHooks("frame") { lua.pushFrameInfo(info, symbols: symbols) }
    }

    /// Runs the `stop` hooks with the session's counts.
    public func sessionStopped(frames: Int, accepted: Int, dropped: Int) {
        runHooks("stop") {
            lua.push(.table([("frames", .int(frames)), ("accepted", .int(accepted)), ("dropped", .int(dropped))]))
        }
    }

    private func runHooks(_ kind: String, _ pushArgument: () -> Void) {
        let base = lua.top
        defer { lua.setTop(base) }
        lua.push(.ref(runHooksRef))
        lua.push(.string(kind))
        pushArgument()
        try? lua.call(nargs: 2, nresults: 0, handlerAt: 1)
    }
}
