import ScanCore
import ScanPipeline
import ScanScript

/// `scanlua trust FILE...`: lets a `./scanlua.lua` run (see ``TrustList``).
enum TrustCommand {
    static let command = Command(
        name: "trust",
        abstract: "Let a ./scanlua.lua config run in its folder (or take it off the list).",
        usage: "scanlua trust [--remove] FILE... | scanlua trust --list",
        arguments: """
            ARGUMENTS:
              FILE                    A config to trust with its current contents.
            """,
        options: Option.names(in: [.trust]),
        notes: """
            A ./scanlua.lua in the working directory is loaded only when trusted: its SHA-256 and real path
            are on the trust list ($XDG_STATE_HOME/scanlua/trust, else ~/.local/state/scanlua/trust). A
            file changed since is refused until trusted again. --config FILE needs no trust.
            """,
        run: run)

    static func run(_ args: inout ArgumentList, _ o: OptionValues) throws -> Int32 {
        let list = TrustList()
        if o[.list] == true {
            if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
            for entry in list.entries() { Console.write("\(entry.hash) \(entry.file)\n") }
            return ExitStatus.success
        }
        guard !args.positionals.isEmpty else { throw UsageError("no file given") }
        var status = ExitStatus.success
        for file in args.positionals {
            do {
                if o[.remove] == true {
                    if try list.remove(file) { Console.write("untrusted \(file)\n") }
                    else { Console.error("scanlua: \(file) is not on the trust list\n"); status = ExitStatus.failure }
                } else {
                    Console.write("trusted \(try list.trust(file))\n")
                }
            } catch {
                Console.error("scanlua: \(error.message)\n")
                status = ExitStatus.failure
            }
        }
        return status
    }
}
