import ScanCore

/// A usage error: printed with the command's usage line, exit 2 (as zbarimg does).
struct UsageError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// Command-line arguments being consumed, supporting `--opt value`, `--opt=value` and `--` to end options.
struct ArgumentList {
    private var items: [String]
    private(set) var positionals: [String] = []

    init(_ items: [String]) { self.items = items }

    /// Whether the next unread argument is an option (`-x`, `--x`; not `-` or `--`).
    var nextIsOption: Bool {
        guard let first = items.first else { return false }
        return first.hasPrefix("-") && first != "-" && first != "--"
    }

    /// Takes every unread argument as it is (for a command that hands them on, like `run`).
    mutating func takeRest() -> [String] {
        defer { items = [] }
        return items
    }

    /// Takes the next option, or returns nil when only positionals remain (collected in `positionals`).
    mutating func nextOption() -> String? {
        while let first = items.first {
            items.removeFirst()
            if first == "--" {
                positionals += items
                items = []
                return nil
            }
            if first.hasPrefix("-"), first != "-" {
                if first.hasPrefix("--"), let eq = first.firstIndex(of: "=") {
                    // --opt=value: hand back --opt and leave the value to value(for:).
                    items.insert(String(first[first.index(after: eq)...]), at: 0)
                    pendingInlineValue = true
                    return String(first[..<eq])
                }
                pendingInlineValue = false
                return first
            }
            positionals.append(first)
        }
        return nil
    }

    private var pendingInlineValue = false

    /// The value of the option just returned by ``nextOption()``.
    mutating func value(for option: String) throws(UsageError) -> String {
        guard let v = items.first, pendingInlineValue || !v.hasPrefix("-") || v == "-" || Double(v) != nil else {
            throw UsageError("missing value for '\(option)'")
        }
        pendingInlineValue = false
        items.removeFirst()
        return v
    }

    /// Rejects `--flag=value` for an option that takes no value.
    mutating func noValue(for option: String) throws(UsageError) {
        if pendingInlineValue { throw UsageError("option '\(option)' takes no value") }
    }

    /// Reads every option of the command line, each one of `names` (``Option/all``), until
    /// only positionals are left. `--help` is handled before this.
    /// With `untilPositional`, options end at the first positional (`run SCRIPT --its-own-flags`).
    mutating func options(_ names: [String], untilPositional: Bool = false) throws(UsageError) -> OptionValues {
        var values = OptionValues()
        let accepted = names.map { Option.all.named($0) }
        while !untilPositional || nextIsOption, let flag = nextOption() {
            guard let option = accepted.first(where: { $0.flag == flag || $0.short == flag }) else { throw UsageError("unknown option '\(flag)'") }
            if option.kind == .flag {
                try noValue(for: flag)
                values[option.name] = .bool(!option.negated)
                continue
            }
            let text = try value(for: flag)
            switch option.parse(text) {
            case .success(let v): if option.kind == .list { values.append(option.name, v) } else { values[option.name] = v }
            case .failure(let e): throw UsageError(e.message)
            }
        }
        return values
    }
}
