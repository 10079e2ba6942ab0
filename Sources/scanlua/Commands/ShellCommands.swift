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
    static func flags(_ c: Command) -> [String] { c.options.map { Option.all.named($0).flag } + ["--help"] }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e").split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : String($0) }.joined(separator: "\n")
    }

    /// Where `make install` puts the README and docs/ (it sets SCANLUA_DOC_DIR to PREFIX's).
    static var docDirectory: String {
        ProcessInfo.processInfo.environment["SCANLUA_DOC_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share/doc/scanlua"
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
            .SH DOCUMENTATION
            The README (installing, the record fields, every mode) and the guides are in
            .IR \(escape(docDirectory)) :
            .TP
            .I README.md
            start here: scanning, watching, forwarding, the store, workers
            .TP
            .I docs/lua-api.md
            the Lua API reference: scan, store, json, codec, the event and payload fields, the options
            .TP
            .I docs/handlers.md
            the shipped handlers and the payloads they return
            .TP
            .I docs/new-code-types.md
            new payload formats and symbologies decoded in Lua
            .TP
            .I docs/scale-out.md
            stations, shards and Redis workers
            .TP
            .I docs/security.md
            the sandbox, trust and what a script cannot do
            .SH SEE ALSO
            zbarimg(1), ffmpeg(1)

            """
        return out
    }

    /// What an option's value completes to: its words, files, folders, or nothing to offer.
    enum ValueKind: Equatable {
        case none, words([String]), files, folders, text
    }

    static func valueKind(_ o: Option) -> ValueKind {
        switch o.kind {
        case .flag: return .none
        case .choice(let words): return .words(words)
        default:
            switch o.metavar {
            case "DIR": return .folders
            case "FILE", "PATH", "IMAGE", "JPEG": return .files
            default: return .text
            }
        }
    }

    /// What the subcommands' own positionals complete to, beyond files.
    static func positionalWords(_ c: Command) -> [String]? {
        switch c.name {
        case "completions": return ["bash", "zsh", "fish"]
        default: return nil
        }
    }

    static func bash() -> String {
        var flagCases = "", valueCases = ""
        for c in commands {
            flagCases += "        \(c.name)) opts=\"\(flags(c).joined(separator: " "))\" ;;\n"
            for o in c.options.map { Option.all.named($0) } {
                let reply: String
                switch valueKind(o) {
                case .none: continue
                case .words(let w): reply = "COMPREPLY=($(compgen -W \"\(w.joined(separator: " "))\" -- \"$cur\"))"
                case .files: reply = "COMPREPLY=($(compgen -f -- \"$cur\"))"
                case .folders: reply = "COMPREPLY=($(compgen -d -- \"$cur\"))"
                case .text: reply = "COMPREPLY=()"
                }
                valueCases += "        \"\(c.name) \(o.flag)\") \(reply); return ;;\n"
            }
        }
        let names = commands.map(\.name).joined(separator: " ")
        return """
            # bash completion for scanlua (scanlua completions bash)
            _scanlua() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]} opts
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W "\(names) help --help --version" -- "$cur"))
                    return
                fi
                # An option's value: its words, files, folders, or nothing to offer.
                case "$cmd $prev" in
            \(valueCases)    esac
                case "$cmd" in
                    help) COMPREPLY=($(compgen -W "\(names)" -- "$cur")); return ;;
                    completions) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")); return ;;
                esac
                case "$cmd" in
            \(flagCases)        *) opts="" ;;
                esac
                if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
            }
            complete -o filenames -F _scanlua scanlua

            """
    }

    /// An `_arguments` spec per option: `--effort[help]:LEVEL:(fast balanced thorough)`.
    static func zshSpec(_ o: Option) -> [String] {
        let help = Option.wrap(o.help, width: 1000).first ?? ""
        let description = "[" + help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "[", with: "\\[")
            .replacingOccurrences(of: "]", with: "\\]").replacingOccurrences(of: ":", with: "\\:").replacingOccurrences(of: "'", with: "'\\''") + "]"
        let action: String
        switch valueKind(o) {
        case .none: action = ""
        case .words(let w): action = ":\(o.metavar.replacingOccurrences(of: ":", with: "\\:")):(\(w.joined(separator: " ")))"
        case .files: action = ":\(o.metavar):_files"
        case .folders: action = ":\(o.metavar):_files -/"
        case .text: action = ":\(o.metavar.replacingOccurrences(of: ":", with: "\\:")): "
        }
        return ["'\(o.flag)\(description)\(action)'"] + (o.short.map { ["'\($0)\(description)\(action)'"] } ?? [])
    }

    static func zsh() -> String {
        var out = "#compdef scanlua\n# zsh completion for scanlua (scanlua completions zsh)\n_scanlua() {\n  local -a commands\n  commands=(\n"
        for c in commands { out += "    '\(c.name):\(c.abstract.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: ":", with: "\\:"))'\n" }
        out += "    'help:Show the help of a subcommand'\n"
        out += "  )\n  if (( CURRENT == 2 )); then _describe command commands; return; fi\n"
        // The subcommand's own arguments: shifted so that _arguments sees them from position 1.
        out += "  local cmd=$words[2]\n  shift words\n  (( CURRENT-- ))\n  case $cmd in\n"
        for c in commands {
            let specs = c.options.map { Option.all.named($0) }.flatMap(zshSpec) + ["'--help[Show help information.]'"]
            let rest = positionalWords(c).map { "'1:\(c.name == "completions" ? "shell" : "value"):(\($0.joined(separator: " ")))'" }
                ?? (c.name == "help" ? "'1:command:(\(commands.map(\.name).joined(separator: " ")))'" : "'*:file:_files'")
            out += "    \(c.name)) _arguments \(specs.joined(separator: " ")) \(rest) ;;\n"
        }
        out += "    help) _arguments '1:command:(\(commands.map(\.name).joined(separator: " ")))' ;;\n"
        out += "  esac\n}\n_scanlua \"$@\"\n"
        return out
    }

    static func fish() -> String {
        var out = "# fish completion for scanlua (scanlua completions fish)\n"
        out += "complete -c scanlua -f\n"
        for c in commands {
            out += "complete -c scanlua -n __fish_use_subcommand -a \(c.name) -d '\(c.abstract.replacingOccurrences(of: "'", with: "\\'"))'\n"
            let when = "-n '__fish_seen_subcommand_from \(c.name)'"
            for o in c.options.map { Option.all.named($0) } {
                var line = "complete -c scanlua \(when) -l \(o.flag.dropFirst(2))"
                if let short = o.short { line += " -s \(short.dropFirst())" }
                switch valueKind(o) {
                case .none: break
                case .words(let w): line += " -x -a '\(w.joined(separator: " "))'"
                case .files: line += " -r -F"
                case .folders: line += " -x -a '(__fish_complete_directories)'"
                case .text: line += " -x"
                }
                out += line + "\n"
            }
            out += "complete -c scanlua \(when) -l help\n"
            if let words = positionalWords(c) { out += "complete -c scanlua \(when) -x -a '\(words.joined(separator: " "))'\n" }
            else if c.name != "devices" && c.name != "manpage" { out += "complete -c scanlua \(when) -F\n" }
        }
        out += "complete -c scanlua -n __fish_use_subcommand -a help -d 'Show the help of a subcommand'\n"
        out += "complete -c scanlua -n '__fish_seen_subcommand_from help' -x -a '\(commands.map(\.name).joined(separator: " "))'\n"
        return out
    }
}
