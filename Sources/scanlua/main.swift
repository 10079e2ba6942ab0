// scanlua's command line: each command parses its flags (Option.all) and drives a ScanSession.
import Foundation
import ScanCore
import ScanPipeline

let version = "0.2.0"

let commands: [Command] = [ScanCommand.command, WatchCommand.command, DevicesCommand.command, SimulateCommand.command,
                           TestCommand.command, RunCommand.command, BenchCommand.command, TrustCommand.command,
                           OutboxCommand.command, ExportCommand.command, QueueCommands.enqueue, QueueCommands.worker,
                           QueueCommands.results, ShellCommands.manpage, ShellCommands.completions]

let overview = """
    OVERVIEW: A Lua-scriptable barcode and QR scanning engine.

    USAGE: scanlua <subcommand> [options]

    OPTIONS:
      -h, --help              Show help information.
      -V, --version           Show the version (also: scanlua version).

    SUBCOMMANDS:
    \(commands.map { c in
        "  " + c.name.padding(toLength: 22, withPad: " ", startingAt: 0) + "  "
            + Option.wrap(c.abstract, width: Option.helpWidth - 26).joined(separator: "\n" + String(repeating: " ", count: 26))
    }.joined(separator: "\n"))

      See 'scanlua help <subcommand>' for detailed help.
    """

@MainActor func usageFailure(_ message: String, usage: String) -> Int32 {
    Console.error("Error: \(message)\nUsage: \(usage)\n  See 'scanlua --help'.\n")
    return ExitStatus.usage
}

@MainActor func main(_ argv: [String]) -> Int32 {
    guard let first = argv.first else {
        Console.error(overview + "\n")
        return ExitStatus.usage
    }
    switch first {
    case "-h", "--help":
        Console.write(overview + "\n")
        return ExitStatus.success
    case "--version", "-V", "version":
        Console.write("scanlua \(version)" + "\n")
        return ExitStatus.success
    case "help":
        guard argv.count > 1 else { Console.write(overview + "\n"); return ExitStatus.success }
        guard let command = commands.first(where: { $0.name == argv[1] }) else {
            return usageFailure("unknown subcommand '\(argv[1])'", usage: "scanlua help <subcommand>")
        }
        Console.write(command.help)
        return ExitStatus.success
    default:
        guard let command = commands.first(where: { $0.name == first }) else {
            return usageFailure("unknown subcommand '\(first)'", usage: "scanlua <subcommand> [options]")
        }
        let rest = Array(argv.dropFirst())
        let ownFlags = command.optionsEndAtPositional ? Array(rest.prefix { $0.hasPrefix("-") }) : rest
        if ownFlags.contains(where: { $0 == "-h" || $0 == "--help" }) && !ownFlags.contains("--") {
            Console.write(command.help)
            return ExitStatus.success
        }
        var args = ArgumentList(rest)
        do {
            let options = try args.options(command.options, untilPositional: command.optionsEndAtPositional)
            return try command.run(&args, options)
        } catch let error as UsageError {
            return usageFailure(error.message, usage: command.wrappedUsage)
        } catch let error as OptionError {  // a typed key's value that does not parse (--shard, --size)
            return usageFailure(error.message, usage: command.wrappedUsage)
        } catch let failure as ScriptLoadFailure {
            Console.error("scanlua: \(failure.error)\n")
            return ExitStatus.usage
        } catch {
            Console.error("scanlua: \(error)\n")
            return ExitStatus.failure
        }
    }
}

Signals.install()
// The arguments as bytes (PathName): a file named in bytes that are not UTF-8 is opened as named.
let status = main((1..<Int(CommandLine.argc)).map { i -> String in
    guard let arg = CommandLine.unsafeArgv[i] else { return "" }
    return PathName.fromBytes(UnsafeRawBufferPointer(start: arg, count: strlen(arg)))
})
if Console.readerGone { exit(128 + SIGPIPE) }
if let error = Console.flush() {
    if Console.readerGone { exit(128 + SIGPIPE) }  // `| head` had what it wanted: quiet, as Unix tools end
    Console.error("scanlua: cannot write output: \(error)\n")
    exit(ExitStatus.failure)
}
exit(status)
