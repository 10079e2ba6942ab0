/// Text for a person's terminal: what a code's payload, a handler's summary or a file's name may
/// hold that a terminal would act on is shown escaped, never written raw. Escaped: C0 controls
/// (`\e` for ESC, `\r`, `\a`, `\b`, `\n` where `keepingNewlines` is false, `\xHH` for the rest;
/// tab stays), DEL (`\x7f`), C1 controls (`\x9b` for U+009B, CSI to some terminals), and the
/// bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069, shown `\u202e`), which
/// reorder what follows them on screen. `--raw` and NDJSON do not use this: they stay byte-exact.
package enum TerminalText {
    package static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        // The common case costs one pass and no copy.
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingNewlines: keepingNewlines) }) else { return text }
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            guard needsEscape(s, keepingNewlines: keepingNewlines) else { out.append(s); continue }
            let shown: String
            switch s.value {
            case 0x1B: shown = "\\e"
            case 0x0D: shown = "\\r"
            case 0x0A: shown = "\\n"
            case 0x07: shown = "\\a"
            case 0x08: shown = "\\b"
            case 0x202A...0x202E, 0x2066...0x2069: shown = "\\u" + String(s.value, radix: 16)
            default: shown = "\\x" + (s.value < 0x10 ? "0" : "") + String(s.value, radix: 16)
            }
            out.append(contentsOf: shown.unicodeScalars)
        }
        return String(out)
    }

    static func needsEscape(_ s: Unicode.Scalar, keepingNewlines: Bool) -> Bool {
        switch s.value {
        case 0x09: return false
        case 0x0A: return !keepingNewlines
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
