/// One subcommand: its name, help text, and what it runs. `run` returns the exit status.
struct Command: Sendable {
    let name: String
    let abstract: String
    let usage: String
    /// The OPTIONS and ARGUMENTS sections of `scanlua help <name>`.
    let details: String
    let run: @Sendable (inout ArgumentList) throws -> Int32

    var help: String {
        """
        OVERVIEW: \(abstract)

        USAGE: \(usage)

        \(details)
        """
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
