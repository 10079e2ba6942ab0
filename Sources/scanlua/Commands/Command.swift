import ScanCore

/// One subcommand: its name, help text, the options it takes (names in ``Option/registry``, most
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

    var help: String {
        var parts = ["OVERVIEW: \(abstract)", "USAGE: \(usage)"]
        if !arguments.isEmpty { parts.append(arguments) }
        let lines = options.map { Option.named($0).helpLine } + ["  -h, --help              Show help information."]
        parts.append("OPTIONS:\n" + lines.joined(separator: "\n"))
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
    /// Nothing was found in at least one input.
    static let nothingFound: Int32 = 4
}
