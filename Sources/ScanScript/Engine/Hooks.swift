import Foundation
import ScanCore

/// Session hooks: scan.on_start, scan.on_frame, scan.on_stop.
extension ScriptEngine {
    /// How many hooks of a kind (`start`, `frame`, `stop`) scripts registered.
    package func hookCount(_ kind: String) -> Int {
        var n = 0
        try? callCore("hook_count", [.string(kind)], results: 1) { n = lua.integer(at: -1) ?? 0 }
        return n
    }

    /// Runs the `start` hooks.
    package func sessionStarted() { runHooks("start") { lua.push(.nil) } }

    /// Runs the `frame` hooks with the frame and every symbol found in it.
    package func frameScanned(_ info: FrameInfo, symbols: [Symbol]) {
        runHooks("frame") { lua.pushFrameInfo(info, symbols: symbols) }
    }

    /// Runs the `stop` hooks with the session's counts.
    package func sessionStopped(frames: Int, accepted: Int, dropped: Int) {
        runHooks("stop") {
            lua.push(.table([("frames", .int(frames)), ("accepted", .int(accepted)), ("dropped", .int(dropped))]))
        }
    }

    private func runHooks(_ kind: String, _ pushArgument: () -> Void) {
        let base = lua.top
        defer { lua.setTop(base) }
        pushCore("run_hooks")
        lua.push(.string(kind))
        pushArgument()
        try? lua.call(nargs: 2, nresults: 0, handlerAt: 1)
    }
}
