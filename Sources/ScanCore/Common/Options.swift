/// The sections of the registry: a command takes whole groups (and the commands that share a
/// group get an option added to it). The CLI's command-only groups are declared with its options.
package struct OptionGroup: Hashable, Sendable {
    package let rawValue: String
    package init(_ rawValue: String) { self.rawValue = rawValue }

    /// Its name in usage lines and help headings (`[script options]`, `SCRIPT OPTIONS:`).
    package var title: String { self == .scripts ? "script" : rawValue }

    package static let output = OptionGroup("output"), decoding = OptionGroup("decoding"), session = OptionGroup("session")
    package static let stream = OptionGroup("stream"), preview = OptionGroup("preview"), scripts = OptionGroup("scripts")
    package static let queue = OptionGroup("queue")
}

/// One command-line option, and the `scan.options` key of the same setting when a config may set it.
///
/// ``Option/registry`` is the one list: flag parsing, `--help`, the config's `scan.options`
/// (the prelude's table and its type checks), and the tables of docs/lua-api.md and the LuaLS
/// annotations come from it or are checked against it by tests.
package struct Option: Sendable {
    package enum Kind: Sendable, Equatable {
        /// A switch: present means true (or false for a `negated` switch such as --no-default-scripts).
        case flag
        /// A whole number in a range.
        case integer(ClosedRange<Int>)
        /// A number at least `minimum` (and above it when `exclusive`).
        case number(minimum: Double, exclusive: Bool)
        /// One word of a list.
        case choice([String])
        /// Text, checked by the setting that uses it (a path, a region, a list of names).
        case text
        /// Text, repeatable: every occurrence is kept, in order.
        case list
    }

    /// The setting's name: its `scan.options` key when ``config`` is set.
    package let name: String
    package let flag: String
    package let kind: Kind
    /// The value's placeholder in `--help` (`N`, `FILE`, ...); empty for a switch.
    package let metavar: String
    package let help: String
    /// Whether a config's `scan.options` may set it (the command line wins over the config).
    package let config: Bool
    /// A switch that turns the setting off (`--no-default-scripts` sets `default_scripts = false`).
    package let negated: Bool
    /// The flag's value times this is the setting's value (`--memory-limit` is MiB, the setting bytes).
    package let scale: Int
    /// What the setting means in a config, where that reads differently from the flag's help.
    package let configHelp: String?
    /// Comma-separated names on the command line, which a config may give as a list of strings.
    package let namesList: Bool
    /// A one-letter spelling (`-q`), if it has one.
    package let short: String?
    /// Its section of the registry.
    package private(set) var group: OptionGroup = .output

    package func `in`(_ group: OptionGroup) -> Option {
        var o = self
        o.group = group
        return o
    }


    /// What docs/lua-api.md and the LuaLS annotations say the config setting does.
    package var configMeaning: String { (configHelp ?? help).replacingOccurrences(of: "\n", with: " ") }

    package init(_ name: String, _ flag: String, _ kind: Kind, _ metavar: String = "", config: Bool = false, negated: Bool = false,
         scale: Int = 1, names: Bool = false, configHelp: String? = nil, short: String? = nil, _ help: String) {
        self.name = name
        self.short = short
        self.namesList = names
        self.flag = flag
        self.kind = kind
        self.metavar = metavar
        self.help = help
        self.config = config
        self.negated = negated
        self.scale = scale
        self.configHelp = configHelp
    }

    /// The Lua type a config value must have: `boolean`, `number` or `string`.
    package var luaType: String {
        switch kind {
        case .flag: return "boolean"
        case .integer, .number: return "number"
        case .choice, .text, .list: return "string"
        }
    }

    /// Where help texts start, and how wide help is (every line of `scanlua help`, its notes too).
    package static let helpColumn = 26, helpWidth = 100

    /// The `--help` line(s): flag and placeholder, then the help text in a column, wrapped at
    /// ``helpWidth``. A flag too wide for its column (two spaces at least before the text) gets
    /// a line of its own.
    package var helpLine: String {
        let head = "  " + (short.map { $0 + ", " } ?? "") + flag + (metavar.isEmpty ? "" : " " + metavar)
        let indent = String(repeating: " ", count: Self.helpColumn)
        let lines = Self.wrap(help, width: Self.helpWidth - Self.helpColumn)
        var out = head.count <= Self.helpColumn - 2 ? head.padding(toLength: Self.helpColumn, withPad: " ", startingAt: 0) + lines[0]
                                                    : head + "\n" + indent + lines[0]
        for line in lines.dropFirst() { out += "\n" + indent + line }
        return out
    }

    /// A help text in lines of at most `width` characters. Its own line breaks are where the
    /// text was cut to fit an older column, so they are joined again, except before a line that
    /// starts a labelled part (`text: ...`). Lines break at spaces, and inside a long list after
    /// a comma.
    package static func wrap(_ text: String, width: Int) -> [String] {
        var paragraphs: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let startsPart = line.range(of: #"^[a-z]+: [A-Za-z]"#, options: .regularExpression) != nil
            if paragraphs.isEmpty || startsPart { paragraphs.append(String(line)) } else { paragraphs[paragraphs.count - 1] += " " + line }
        }
        var out: [String] = []
        for paragraph in paragraphs {
            // Each piece with whether a space comes before it (not between a long list's items).
            var pieces: [(text: Substring, spaced: Bool)] = []
            for word in paragraph.split(separator: " ") {
                var rest = word[...], spaced = true
                while rest.count > width, let comma = rest.firstIndex(of: ","), rest.distance(from: rest.startIndex, to: comma) < width {
                    pieces.append((rest[...comma], spaced))
                    rest = rest[rest.index(after: comma)...]
                    spaced = false
                }
                if !rest.isEmpty { pieces.append((rest, spaced)) }
            }
            var line = ""
            for piece in pieces {
                let candidate = line.isEmpty ? String(piece.text) : line + (piece.spaced ? " " : "") + piece.text
                if candidate.count > width && !line.isEmpty { out.append(line); line = String(piece.text) } else { line = candidate }
            }
            out.append(line)
        }
        return out.isEmpty ? [""] : out
    }

    /// Checks a value (from the command line after scaling, or from a config) against the kind.
    /// `fromFlag`: the range is said in the flag's unit (MiB for --memory-limit), else the setting's.
    /// - Returns: the reason it is refused, or nil.
    package func check(_ value: JSON, fromFlag: Bool = false) -> String? {
        let scale = fromFlag ? self.scale : 1
        switch (kind, value) {
        case (.flag, .bool): return nil
        case (.integer(let range), .int(let n)):
            return range.contains(n) ? nil : "expected an integer in \(range.lowerBound / scale)...\(range.upperBound / scale)"
        case (.integer, .double(let d)) where d == d.rounded() && abs(d) < 9e18: return check(.int(Int(d)), fromFlag: fromFlag)
        case (.number(let minimum, let exclusive), .double(let d)):
            return d.isFinite && (exclusive ? d > minimum : d >= minimum) ? nil
                : "expected a number \(exclusive ? "above" : "at least") \(minimum == minimum.rounded() ? String(Int(minimum)) : String(minimum))"
        case (.number, .int(let n)): return check(.double(Double(n)))
        case (.choice(let words), .string(let s)):
            return words.contains(s) ? nil : "expected \(words.dropLast().joined(separator: ", ")) or \(words.last ?? "")"
        case (.text, .string), (.list, .string): return nil
        default: return "expected a \(luaType)"
        }
    }

    /// The setting's value from a flag's text (scaled), or the reason it is refused.
    package func parse(_ text: String) -> Result<JSON, OptionError> {
        let value: JSON
        switch kind {
        case .flag: value = .bool(!negated)
        case .integer:
            guard let n = Int(text) else { return .failure(OptionError(invalid: text, for: flag, check(.int(Int.min), fromFlag: true) ?? "")) }
            value = .int(n.multipliedReportingOverflow(by: scale).overflow ? Int.max : n * scale)
        case .number:
            guard let d = Double(text) else { return .failure(OptionError(invalid: text, for: flag, "expected a number")) }
            value = .double(d)
        case .choice, .text, .list: value = .string(text)
        }
        if let reason = check(value, fromFlag: true) { return .failure(OptionError(invalid: text, for: flag, reason)) }
        return .success(value)
    }
}

/// A flag or config value that does not fit its option.
package struct OptionError: Error, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    init(invalid text: String, for flag: String, _ reason: String) {
        message = "invalid value '\(text)' for '\(flag)': \(reason)"
    }
    package var description: String { message }
}

extension Option {
    /// Every option of every command. Commands name the ones they take; a name is its id.
    /// The options of the engine: decoding, sessions, streams, scripts, and every setting a
    /// config's `scan.options` may give. The CLI's own commands add theirs (scanlua's
    /// `Option.commandOptions`); help, the man page, completions and docs come from both lists.
    package static let registry: [Option] = [
        // How records are printed
        (OptionGroup.output, [
            Option("format", "--format", .choice(["ndjson", "text"]), "ndjson|text",
                   "ndjson (default): one JSON object per symbol on stdout.\ntext: zbarimg style, e.g. QR-Code:hello, with payloads below."),
            Option("raw", "--raw", .flag, "", "Print only the decoded texts, one per line (like zbarimg --raw), byte for byte:\nfor pipes (--format text shows control characters escaped, as \\e)."),
            Option("empty_records", "--empty-records", .flag, config: true,
                   "A record for each image in which nothing was read too, so every input is accounted for:\n{\"source\":...,\"frame\":0,\"symbols\":0} (text: a line on stderr)."),
            Option("quiet", "--quiet", .flag, "", short: "-q", "No status line, progress line or closing summary on stderr."),
        ]),
        // What is decoded
        (OptionGroup.decoding, [
            Option("symbologies", "--symbologies", .text, "LIST",
                   "Comma-separated symbologies to decode (default: all but isbn10), or none (only\nLua decoders): "
                   + Symbology.knownNames.joined(separator: ",")),
            Option("decoders", "--decoders", .text, "LIST", config: true, names: true,
                   "Comma-separated decoders: zbar, zxing, gray (default all; one record per code either\nway). gray reads blurred EAN/UPC codes in image files the others left unread."),
            Option("effort", "--effort", .choice(Effort.allCases.map(\.rawValue)), "LEVEL", config: true,
                   "fast, balanced (default) or thorough: zxing-cpp's retries (rotations, inversions,\nbinarizers), the scale pyramid, the retries of dark or unread photos, and where\nzbar runs (see README)."),
            Option("roi", "--roi", .text, "X,Y,W,H", config: true,
                   "Decode only this region: pixels, or fractions of the frame (0.25,0.25,0.5,0.5);\npoints stay in frame coordinates."),
            Option("threads", "--threads", .integer(1...256), "N", config: true,
                   "Decoding threads (default: one per core). Records are the same whatever the number."),
            Option("time_budget", "--time-budget", .number(minimum: 0, exclusive: false), "SECONDS", config: true,
                   "Seconds per image file for the passes after the first: once spent, the rest are\nskipped and the record's warnings say so (default: fast 1, balanced 2, thorough 10;\n0 = no limit)."),
            Option("max_pixels", "--max-pixels", .integer(1...Int(UInt32.max) * 16), "N",
                   "Refuse images larger than N pixels, from the header (default 50000000: a 50 MP photo;\nwith the decoders' shared budget this keeps a scan under about 300 MB)."),
            Option("max_file_size", "--max-file-size", .integer(1...(1 << 44)), "MIB", config: true, scale: 1 << 20,
                   configHelp: "Bytes an input file may have (default 200 MiB), checked before it is read.",
                   "Refuse input files larger than this many MiB before reading them (default 200; files\nover 16 MiB are read one at a time, so a scan stays under about 300 MB)."),
            Option("dpi", "--dpi", .integer(36...1200), "N", config: true,
                   "Resolution PDF pages are rendered at (default 300; 600 for small codes)."),
            Option("pages", "--pages", .text, "LIST", config: true,
                   "Read only these pages (or frames) of a PDF, TIFF or GIF, from 1: 1-3,7 or 5- ."),
        ]),
        // Which codes become events (scan and watch)
        (OptionGroup.session, [
            Option("duplicates", "--duplicates", .choice(DuplicatePolicy.allCases.map(\.rawValue)), "MODE", config: true,
                   "once (each code once per session), interval (again after --interval seconds),\nconsecutive (again when another code came between), all."),
            Option("interval", "--interval", .number(minimum: 0, exclusive: false), "SECONDS", config: true,
                   "For --duplicates interval (default 1), in frame capture time."),
            Option("once", "--once", .flag, config: true, "Stop after the first accepted code (exit 0, printing it)."),
        ]),
        // Continuous scanning (watch)
        (OptionGroup.stream, [
            Option("source", "--source", .choice(["camera", "y4m", "mjpeg", "dir"]), "KIND",
                   "camera, y4m, mjpeg or dir, when the guess from SOURCE is wrong."),
            Option("max_frames", "--max-frames", .integer(1...Int.max / 2), "N", config: true, "Stop after N frames."),
            Option("max_fps", "--max-fps", .number(minimum: 0, exclusive: true), "F", config: true, "Read at most F frames per second."),
            Option("timeout", "--timeout", .number(minimum: 0, exclusive: true), "SECONDS", config: true, "Stop after this many seconds."),
            Option("size", "--size", .text, "WxH", "Camera frame size to ask for (the driver may pick the nearest)."),
            Option("torch", "--torch", .choice(["on", "off"]), "on|off", "The camera's torch (V4L2 flash LED control)."),
            Option("beep", "--beep", .flag, config: true, "Ring the terminal bell for each accepted code."),
            Option("new_only", "--new-only", .flag, "", "A watched folder: skip the images already in it (default: scan them first)."),
            Option("settle", "--settle", .number(minimum: 0, exclusive: false), "SECONDS", config: true,
                   "A watched folder: scan a file once it has not changed for SECONDS (default 1),\nso a file still being written is not read early."),
        ]),
        // What a person sees of a watch session besides the records
        (OptionGroup.preview, [
            Option("serve", "--serve", .text, "HOST:PORT",
                   "Serve a live preview page on HOST:PORT (host 127.0.0.1 unless given): the frames\n"
                   + "with each code outlined, the latest codes, the counters, the torch switch."),
            Option("save_frames", "--save-frames", .text, "DIR", "Keep each frame in which a code was accepted, as a JPEG in DIR."),
        ]),
        // Scripts (every command that runs them)
        (OptionGroup.scripts, [
            Option("script", "--script", .list, "FILE", "Load a Lua script (repeatable)."),
            Option("scripts", "--scripts", .list, "DIR", "Load every *.lua in DIR (not *_test.lua), sorted; DIR joins the require path."),
            Option("config", "--config", .text, "FILE", "The Lua config (default ./scanlua.lua, else $XDG_CONFIG_HOME/scanlua/init.lua)."),
            Option("default_scripts", "--no-default-scripts", .flag, config: true, negated: true,
                   "Do not load the shipped handler library (scripts/default.lua)."),
            Option("trust", "--trust", .flag, config: true, "Give scripts the full Lua standard library instead of the sandbox."),
            Option("instruction_limit", "--instruction-limit", .integer(0...Int(Int32.max) * 1000), "N", config: true,
                   "Instructions per handler call (default 10000000; 0 = unlimited)."),
            Option("memory_limit", "--memory-limit", .integer(0...(1 << 40)), "MIB", config: true, scale: 1 << 20,
                   configHelp: "Bytes the whole Lua state may hold (default 256 MiB; 0 = unlimited); the flag takes MiB.",
                   "Memory of the Lua state in MiB (default 256; 0 = unlimited)."),
            Option("max_failures", "--max-failures", .integer(1...1_000_000), "N", config: true,
                   "Disable a handler after N failures in a row (default 5)."),
            Option("dry_run", "--dry-run", .flag, "",
                   "Print the actions rules return without carrying them out, and roll back\nwhat they wrote to the store."),
            Option("disable", "--disable", .list, "NAME", config: true, names: true,
                   configHelp: "Parsers and rules to switch off once everything is loaded: a list of names (shipped ones too).",
                   "Switch off the parser or rule NAME (repeatable), e.g. a shipped handler."),
            Option("delivery_wait", "--delivery-wait", .number(minimum: 0, exclusive: false), "SECONDS", config: true,
                   "How long a scan waits for a delivery's answer (default 0.2): then it is queued and sent in the background."),
            Option("max_delivery_attempts", "--max-delivery-attempts", .integer(1...1_000_000), "N", config: true,
                   "Give a delivery up (failed, listed by outbox --failed) after N attempts (default 10)."),
            Option("max_delivery_age", "--max-delivery-age", .number(minimum: 0, exclusive: true), "HOURS", config: true,
                   "Give a delivery up once it is older than HOURS (default 168: a week)."),
            Option("network", "--network", .text, "HOSTS", config: true, names: true,
                   configHelp: "Hosts http and mqtt actions may reach: a list of host[:port] patterns (*.example.com for subdomains); only the config or --network sets it.",
                   "Hosts http and mqtt actions may reach: host[:port] patterns, comma-separated\n(*.example.com for subdomains; --trust allows any)."),
            Option("db", "--db", .text, "PATH", config: true,
                   configHelp: "The store's SQLite database file (--db wins).",
                   "The store's SQLite database (default: the config's db, else\n$XDG_DATA_HOME/scanlua/scanlua.db)."),
        ]),
        // Redis work queue (enqueue, worker, results)
        (OptionGroup.queue, [
            Option("worker_root", "--root", .text, "DIR", config: true,
                   configHelp: "worker: the folder job paths must lie in (realpath); others get an error result (--root wins).",
                   "worker: job paths must lie in DIR (symbolic links and .. resolved); a job naming\nanother file gets an error result. Without it any file the worker can read may be named."),
        ]),
    ].flatMap { group, options in options.map { $0.in(group) } }

    private static let byName: [String: Option] = Dictionary(uniqueKeysWithValues: registry.map { ($0.name, $0) })

    /// The option with this name; a name missing from the registry is a programming error.
    package static func named(_ name: String) -> Option {
        guard let o = byName[name] else { preconditionFailure("option '\(name)' is not in Option.registry") }
        return o
    }

    /// The options a config's `scan.options` may set, in registry order.
    package static var configurable: [Option] { registry.filter(\.config) }
}

/// The options of one command, as given on its command line: name -> value (lists as arrays).
package struct OptionValues: Sendable {
    package private(set) var values: [String: JSON] = [:]
    package init() {}

    package subscript(name: String) -> JSON? {
        get { values[name] }
        set { values[name] = newValue }
    }

    package mutating func append(_ name: String, _ value: JSON) {
        if case .array(var items)? = values[name] { items.append(value); values[name] = .array(items) } else { values[name] = .array([value]) }
    }

    /// The value of a typed key, when it is set and has the key's type.
    package subscript<Value>(_ key: OptionKey<Value>) -> Value? {
        values[key.name].flatMap(key.read)
    }

    /// The value of a key whose text is parsed (`--roi`'s region), or why it does not parse.
    package func value<Value>(_ key: ParsedOptionKey<Value>) throws(OptionError) -> Value? {
        guard let text = self[key.text] else { return nil }
        switch key.parse(text) {
        case .success(let value): return value
        case .failure(let failure): throw OptionError(invalid: text, for: key.flag, failure.reason)
        }
    }

    /// These values, with `other`'s for the names these do not have (the command line over the config).
    package func filling(from other: OptionValues) -> OptionValues {
        var out = self
        for (k, v) in other.values where out.values[k] == nil { out.values[k] = v }
        return out
    }
}
