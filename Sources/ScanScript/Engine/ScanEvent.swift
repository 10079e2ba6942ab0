import Foundation
import ScanCore

/// One decoded symbol as scripts see it: the symbol, where it came from, and the other
/// symbols of the same frame (an e-invoice has two QR codes side by side).
public struct ScanEvent {
    public var symbol: Symbol
    public var info: FrameInfo
    public var siblings: [Symbol]

    public init(symbol: Symbol, info: FrameInfo, siblings: [Symbol] = []) {
        self.symbol = symbol
        self.info = info
        self.siblings = siblings
    }

    /// The events of one frame: each symbol with all the others as siblings.
    public static func events(of symbols: [Symbol], info: FrameInfo) -> [ScanEvent] {
        symbols.indices.map { i in
            ScanEvent(symbol: symbols[i], info: info,
                      siblings: symbols.indices.filter { $0 != i }.map { symbols[$0] })
        }
    }
}

/// What scripts made of one event.
public struct ScriptResult {
    /// The claiming parser's payload, or `{"type":"raw"}`.
    public var payload: JSON
    /// The name of the parser that claimed the symbol, if any.
    public var parser: String?
    public var actions: [JSON]
    public var emitted: [JSON]
    /// Script errors: `{parser|rule: name, message: "script.lua:LINE: ...", traceback: ...}`.
    public var errors: [JSON]
    /// The payload for people (`scan.summary`), when summaries are enabled and one is registered.
    public var summary: String?
}
