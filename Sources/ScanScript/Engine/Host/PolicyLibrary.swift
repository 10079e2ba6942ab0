import ScanCore

// The limits and trust policy, and the config's `scan.options`: `host.policy` (prelude/registry.lua
// and dispatch.lua). Who may change what: the config (or the command line) may lift a limit and
// give trust; a script may only tighten a limit, and may not touch trust or the allow-list.
extension ScriptEngine {
    /// The limits `scan.options` may set, with their place in ``ScriptLimits``.
    static var limitOptions: [(key: OptionKey<Int>, field: WritableKeyPath<ScriptLimits, Int>)] {
        [(.instructionLimit, \.instructionLimit), (.memoryLimit, \.memoryLimit), (.maxFailures, \.maxFailures)]
    }

    /// `host.policy`: max_failures(), memory_limit_text(), set_option(key, value), and the
    /// options a config may set (`options`: name -> Lua type; `list_options`: those given as lists).
    func policyLibrary() -> LuaValue {
        .table([
            ("max_failures", .function { [unowned self] L in L.push(.int(limits.maxFailures)); return 1 }),
            ("memory_limit_text", .function { L in L.push(.string("\(L.memoryLimit >> 20) MiB")); return 1 }),
            ("set_option", .function { [unowned self] L throws(ScriptError) in
                try setOption(try L.checkText(1, "scan.options"), L)
                return 0
            }),
            ("options", .table(Option.configurable.map { ($0.name, .string($0.luaType)) })),
            ("list_options", .table(Option.configurable.filter(\.namesList).map { ($0.name, .bool(true)) })),
        ])
    }

    /// One `scan.options` key (argument 1) and its value (argument 2, of the option's Lua type:
    /// the prelude checked it).
    private func setOption(_ key: String, _ L: LuaState) throws(ScriptError) {
        guard let option = Option.configurable.first(where: { $0.name == key }) else {
            throw .argument("scan.options: unknown option '\(key)'")
        }
        let value: JSON
        switch option.kind {
        case .flag: value = .bool(L.bool(at: 2))
        case .integer, .number: value = L.integer(at: 2).map { .int($0) } ?? .double(L.number(at: 2) ?? 0)
        case .choice, .text, .list: value = .string(L.string(at: 2) ?? "")
        }
        if let reason = option.check(value) {
            throw .argument("scan.options: invalid value \(value.serialized) for '\(key)': \(reason)")
        }
        if let limit = Self.limitOptions.first(where: { $0.key.name == key }), let new = L.integer(at: 2) {
            let current = limits[keyPath: limit.field]
            // 0 is unlimited: the highest.
            if !loadingConfig && current != 0 && (new == 0 || new > current) {
                throw .argument("scan.options: '\(key)' can be raised only by the config or the command line (\(option.flag)); "
                                + "a script may lower it (now \(current))")
            }
            // The command line's value wins over the config's, as for every option (a script may
            // still lower its own).
            if !(loadingConfig && limitsGiven.contains(key)) {
                limits[keyPath: limit.field] = new
                lua.instructionLimit = limits.instructionLimit
                lua.memoryLimit = limits.memoryLimit
            }
        }
        switch key {
        case OptionKey<Bool>.trust.name:
            guard loadingConfig || !L.bool(at: 2) else {
                throw .argument("scan.options: 'trust' can be given only by the config or --trust, not by a script")
            }
            // Turning trust on takes effect for the scripts loaded after the config.
            if L.bool(at: 2) { pendingTrust = true }
        case OptionKey<String>.network.name where !loadingConfig:
            throw .argument("scan.options: 'network' can be set only by the config or --network, not by a script")
        case OptionKey<Bool>.defaultScripts.name: defaultScriptsEnabled = L.bool(at: 2)
        case OptionKey<String>.db.name: if storePath == nil { storePath = L.string(at: 2) }
        default: break
        }
        configOptions[key] = value
    }

    /// Applies `scan.options { trust = true }` from a config once the config has finished loading.
    package func applyPendingOptions() throws(ScriptError) {
        if pendingTrust { try enableTrust() }
    }
}
