import Foundation
import ScanCore

/// One decoded symbol as scripts see it: the symbol, where it came from, and the other
/// symbols of the same frame (an e-invoice has two QR codes side by side).
package struct ScanEvent {
    package var symbol: Symbol
    package var info: FrameInfo
    package var siblings: [Symbol]

    package init(symbol: Symbol, info: FrameInfo, siblings: [Symbol] = []) {
        self.symbol = symbol
        self.info = info
        self.siblings = siblings
    }

    /// The events of one frame: each symbol with all the others as siblings.
    package static func events(of symbols: [Symbol], info: FrameInfo) -> [ScanEvent] {
        symbols.indices.map { i in
            ScanEvent(symbol: symbols[i], info: info,
                      siblings: symbols.indices.filter { $0 != i }.map { symbols[$0] })
        }
    }
}

/// What scripts made of one event.
package struct ScriptResult {
    /// The claiming parser's payload, or `{"type":"raw"}`.
    package var payload: JSON
    /// The name of the parser that claimed the symbol, if any.
    package var parser: String?
    package var actions: [JSON]
    package var emitted: [JSON]
    /// Script errors: `{parser|rule: name, message: "script.lua:LINE: ...", traceback: ...}`.
    package var errors: [JSON]
    /// The payload for people (`scan.summary`), when summaries are enabled and one is registered.
    package var summary: String?
}
