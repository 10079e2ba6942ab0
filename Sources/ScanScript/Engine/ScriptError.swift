/// An error from Lua: loading a script, running it, or handing values across.
package enum ScriptError: Error, CustomStringConvertible, Equatable {
    /// A chunk failed to compile: `script.lua:LINE: message`.
    case load(String)
    /// A chunk raised an error: `script.lua:LINE: message` plus Lua's traceback.
    case runtime(message: String, traceback: String)
    /// A Swift function exposed to Lua got a bad argument (luaL_argerror wording).
    case argument(String)
    /// A Lua value could not become JSON.
    case conversion(String)
    /// A file could not be read or found.
    case file(String)

    /// The one-line message (no traceback).
    package var message: String {
        switch self {
        case .load(let m), .argument(let m), .conversion(let m), .file(let m): return m
        case .runtime(let m, _): return m
        }
    }

    package var description: String {
        if case .runtime(let m, let tb) = self, !tb.isEmpty { return m + "\n" + tb }
        return message
    }

    /// Splits `msg\nstack traceback:\n...` as luaL_traceback writes it.
    static func runtime(fromTraceback text: String) -> ScriptError {
        if let r = text.range(of: "\nstack traceback:") {
            return .runtime(message: String(text[..<r.lowerBound]), traceback: String(text[text.index(after: r.lowerBound)...]))
        }
        return .runtime(message: text, traceback: "")
    }
}
