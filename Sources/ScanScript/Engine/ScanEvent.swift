import Foundation
import ScanCore

/// One decoded symbol as scripts see it: the symbol, where it came from, and the other
/// symbols of the same frame (an e-invoice has two QR codes side by side).
///
/// The events of a frame share one array of its symbols (`frameSymbols`, this one at `index`):
/// a frame with n codes costs n events, not n x n sibling copies (a crafted image or a Lua
/// decoder with thousands of values would otherwise exhaust memory).
package struct ScanEvent {
    package var symbol: Symbol
    package var info: FrameInfo
    /// Every symbol of the frame, this one among them at ``index``; empty for a symbol alone.
    package var frameSymbols: [Symbol]
    package var index: Int

    /// An event of `symbol`, with `siblings` (in that order) as the rest of its frame.
    package init(symbol: Symbol, info: FrameInfo, siblings: [Symbol] = []) {
        self.init(symbol: symbol, info: info, frameSymbols: siblings.isEmpty ? [] : [symbol] + siblings, index: 0)
    }

    init(symbol: Symbol, info: FrameInfo, frameSymbols: [Symbol], index: Int) {
        self.symbol = symbol
        self.info = info
        self.frameSymbols = frameSymbols
        self.index = index
    }

    /// The events of one frame: each symbol with all the others as siblings.
    package static func events(of symbols: [Symbol], info: FrameInfo) -> [ScanEvent] {
        symbols.indices.map { ScanEvent(symbol: symbols[$0], info: info, frameSymbols: symbols.count > 1 ? symbols : [], index: $0) }
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
