import Foundation

/// The live status line on stderr: frames, fps, accepted codes, dropped frames.
public final class StatusLine {
    public let enabled: Bool
    private let start = Date()
    private var lastDraw = Date.distantPast
    public init(enabled: Bool) { self.enabled = enabled }

    public func update(frames: Int, accepted: Int, dropped: Int) {
        guard enabled, Date().timeIntervalSince(lastDraw) >= 0.5 else { return }
        lastDraw = Date()
        let fps = Double(frames) / max(0.001, Date().timeIntervalSince(start))
        Console.error(String(format: "\rframes %d  %.1f fps  codes %d  dropped %d ", frames, fps, accepted, dropped))
    }

    public func finish() { if enabled { Console.error("\n") } }
}
