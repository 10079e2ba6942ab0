import ScanCore

/// One subcommand: its name, help text, the options it takes (names in ``Option/all``, most
/// by ``OptionGroup``),
/// and what it runs. `run` returns the exit status.
struct Command: Sendable {
    let name: String
    let abstract: String
    let usage: String
    /// The ARGUMENTS (or INPUT) section of `scanlua help <name>`, before OPTIONS.
    var arguments = ""
    let options: [String]
    /// What follows OPTIONS (defaults, exit statuses).
    var notes = ""
    /// Options end at the first positional: the rest belongs to it (`scanlua run SCRIPT ARGS`).
    var optionsEndAtPositional = false
    let run: @Sendable (inout ArgumentList, OptionValues) throws -> Int32

    /// The option groups of the command, in the order its options come.
    var groups: [OptionGroup] {
        var out: [OptionGroup] = []
        for g in options.map({ Option.all.named($0).group }) where !out.contains(g) { out.append(g) }
        return out
    }

    /// What a usage line says for a whole group: `[decoding options]`, the heading of those
    /// options in the help.
    static func usageToken(_ g: OptionGroup) -> String { "[\(g.title) options]" }

    /// A usage line in lines of at most `width`, broken only between its parts (never inside
    /// `[...]` or `(...)`).
    static func wrapUsage(_ line: String, width: Int) -> [String] {
        var parts: [String] = [], current = "", depth = 0
        for c in line {
            if c == " " && depth == 0 { if !current.isEmpty { parts.append(current) }; current = ""; continue }
            if c == "[" || c == "(" { depth += 1 } else if c == "]" || c == ")" { depth -= 1 }
            current.append(c)
        }
        if !current.isEmpty { parts.append(current) }
        var lines: [String] = []
        for part in parts {
            if let last = lines.last, last.count + 1 + part.count <= width { lines[lines.count - 1] += " " + part } else { lines.append(part) }
        }
        return lines
    }

    /// The usage line(s) as help and usage errors print them: wrapped at the help's width,
    /// continued below the column after `USAGE: ` (7 characters, as `Usage: `).
    var wrappedUsage: String {
        usage.split(separator: "\n").flatMap { Self.wrapUsage(String($0.drop { $0 == " " }), width: Option.helpWidth - 7) }
            .joined(separator: "\n       ")
    }

    var help: String {
        var parts = ["OVERVIEW: \(Option.wrap(abstract, width: Option.helpWidth - 10).joined(separator: "\n          "))",
                     "USAGE: " + wrappedUsage]
        if !arguments.isEmpty { parts.append(arguments) }
        let helpLine = "  -h, --help              Show help information."
        if !groups.contains(where: { usage.contains(Self.usageToken($0)) }) {
            parts.append("OPTIONS:\n" + (options.map { Option.all.named($0).helpLine } + [helpLine]).joined(separator: "\n"))
        } else {
            // One section per group, as the usage line names them.
            for (i, g) in groups.enumerated() {
                let lines = options.map { Option.all.named($0) }.filter { $0.group == g }.map(\.helpLine) + (i == 0 ? [helpLine] : [])
                parts.append("\(g.title.uppercased()) OPTIONS:\n" + lines.joined(separator: "\n"))
            }
        }
        if !notes.isEmpty { parts.append(notes) }
        return parts.joined(separator: "\n\n") + "\n"
    }
}

/// Exit statuses, following zbarimg.
enum ExitStatus {
    /// Something was decoded in every input.
    static let success: Int32 = 0
    /// An input could not be read, or output could not be written.
    static let failure: Int32 = 1
    /// Bad command line.
    static let usage: Int32 = 2
    /// A script raised an error on some record (its `errors` say where): so a handler author's CI
    /// fails on a broken handler without reading the records.
    static let scriptErrors: Int32 = 3
    /// Nothing was found in at least one input.
    static let nothingFound: Int32 = 4
}
