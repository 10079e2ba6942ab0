import Foundation
import ScanCore
import ScanPipeline

/// What `make install` writes besides the binary: the man page and the shell completions, made
/// from the commands' help texts and the option registry (so they cannot drift from them).
enum ShellCommands {
    static let manpage = Command(
        name: "manpage",
        abstract: "Print the scanlua(1) man page (roff), made from the commands' help.",
        usage: "scanlua manpage",
        options: [],
        run: { args, _ in
            if let extra = args.positionals.first { throw UsageError("unexpected argument '\(extra)'") }
            Console.write(roff())
            return ExitStatus.success
        })

    static let completions = Command(
        name: "completions",
        abstract: "Print shell completions: scanlua completions bash|zsh|fish.",
        usage: "scanlua completions bash|zsh|fish",
        options: [],
        run: { args, _ in
            guard args.positionals.count == 1, let shell = args.positionals.first else { throw UsageError("name one shell: bash, zsh or fish") }
            switch shell {
            case "bash": Console.write(bash())
            case "zsh": Console.write(zsh())
            case "fish": Console.write(fish())
            default: throw UsageError("unknown shell '\(shell)': bash, zsh or fish")
            }
            return ExitStatus.success
        })

    /// Each command's flags, as its help lists them.
    static func flags(_ c: Command) -> [String] { c.options.map { Option.named($0).flag } + ["--help"] }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e").split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : String($0) }.joined(separator: "\n")
    }

    static func roff() -> String {
        var out = """
            .TH SCANLUA 1 "" "scanlua \(version)" "User Commands"
            .SH NAME
            scanlua \\- a Lua-scriptable barcode and QR scanning engine
            .SH SYNOPSIS
            .B scanlua
            .I subcommand
            [\\fIoptions\\fR]
            .SH DESCRIPTION
            scanlua decodes every barcode and QR code in images, video streams, cameras and watched
            folders (zbar and zxing-cpp), and hands each symbol to Lua scripts that decide what it is
            and what to do with it. It prints one record per symbol (NDJSON, or text for people).
            .SH COMMANDS

            """
        for c in commands {
            out += ".SS \(c.name)\n\(escape(c.abstract))\n.PP\n.nf\n\(escape(c.help))\n.fi\n"
        }
        out += """
            .SH FILES
            .TP
            .I ./scanlua.lua
            the working directory's config, loaded once trusted (scanlua trust)
            .TP
            .I $XDG_CONFIG_HOME/scanlua/init.lua
            the user's config
            .TP
            .I $XDG_DATA_HOME/scanlua/scanlua.db
            the default store
            .SH SEE ALSO
            zbarimg(1), ffmpeg(1)

            """
        return out
    }

    static func bash() -> String {
        var cases = ""
        for c in commands { cases += "        \(c.name)) opts=\"\(flags(c).joined(separator: " "))\" ;;\n" }
        return """
            # bash completion for scanlua (scanlua completions bash)
            _scanlua() {
                local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]} opts
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W "\(commands.map(\.name).joined(separator: " ")) help --help --version" -- "$cur"))
                    return
                fi
                case "$cmd" in
            \(cases)        *) opts="" ;;
                esac
                if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
            }
            complete -o filenames -F _scanlua scanlua

            """
    }

    static func zsh() -> String {
        var out = "#compdef scanlua\n# zsh completion for scanlua (scanlua completions zsh)\n_scanlua() {\n  local -a commands\n  commands=(\n"
        for c in commands { out += "    '\(c.name):\(c.abstract.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: ":", with: "\\:"))'\n" }
        out += "  )\n  if (( CURRENT == 2 )); then _describe command commands; return; fi\n  case $words[2] in\n"
        for c in commands { out += "    \(c.name)) _arguments \(flags(c).map { "'\($0)'" }.joined(separator: " ")) '*:file:_files' ;;\n" }
        out += "  esac\n}\n_scanlua \"$@\"\n"
        return out
    }

    static func fish() -> String {
        var out = "# fish completion for scanlua (scanlua completions fish)\n"
        for c in commands {
            out += "complete -c scanlua -n __fish_use_subcommand -a \(c.name) -d '\(c.abstract.replacingOccurrences(of: "'", with: "\\'"))'\n"
            for f in flags(c) where f.hasPrefix("--") {
                out += "complete -c scanlua -n '__fish_seen_subcommand_from \(c.name)' -l \(f.dropFirst(2))\n"
            }
        }
        return out
    }
}
