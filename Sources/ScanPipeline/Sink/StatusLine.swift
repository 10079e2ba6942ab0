import Foundation

/// The live line on stderr (a terminal only): for watch, frames, fps, accepted codes and dropped
/// frames; for a scan of many files, done/total, rate and time left. Records and messages clear
/// it before they are written (``Console/drawTransient(_:)``), so it is never glued to one.
package final class StatusLine {
    package let enabled: Bool
    private let start = Date()
    private var lastDraw = Date.distantPast
    package init(enabled: Bool) { self.enabled = enabled }

    package func update(frames: Int, accepted: Int, dropped: Int) {
        guard enabled, Date().timeIntervalSince(lastDraw) >= 0.5 else { return }
        lastDraw = Date()
        let fps = Double(frames) / max(0.001, Date().timeIntervalSince(start))
        Console.drawTransient(String(format: "frames %d  %.1f fps  codes %d  dropped %d", frames, fps, accepted, dropped))
    }

    /// `done` of `total` inputs: `12/300 images  45.1/s  0:06 left`.
    package func progress(done: Int, total: Int) {
        guard enabled, done < total, Date().timeIntervalSince(lastDraw) >= 0.2 else { return }
        lastDraw = Date()
        let elapsed = max(0.001, Date().timeIntervalSince(start))
        let rate = Double(done) / elapsed
        let left = rate > 0 ? Int((Double(total - done) / rate).rounded()) : 0
        Console.drawTransient(String(format: "%d/%d images  %.1f/s  %d:%02d left", done, total, rate, left / 60, left % 60))
    }

    /// Watch keeps its last status on its own line; a finished scan's progress is erased.
    package func finish(keep: Bool = true) { if enabled { Console.endTransient(keep: keep) } }
}
