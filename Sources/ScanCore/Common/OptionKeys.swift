import Foundation

/// A typed handle on one option of the registry: its name, and the type its value has. Reading
/// a key gives that type (`o[.threads]` is an `Int?`), so a mistyped name or a value read as
/// the wrong type does not compile. Ranges and choices are checked once, by the registry, when
/// a flag or a config sets the value.
package struct OptionKey<Value>: Sendable {
    package let name: String
    let read: @Sendable (JSON) -> Value?

    package init(name: String, read: @escaping @Sendable (JSON) -> Value?) {
        self.name = name
        self.read = read
    }
}

extension OptionKey where Value == String {
    package static var pages: Self { Self("pages") }
    package init(_ name: String) { self.init(name: name) { if case .string(let s) = $0 { s } else { nil } } }
}

extension OptionKey where Value == Bool {
    package init(_ name: String) { self.init(name: name) { if case .bool(let b) = $0 { b } else { nil } } }
}

extension OptionKey where Value == Int {
    package init(_ name: String) {
        self.init(name: name) {
            switch $0 {
            case .int(let n): n
            case .double(let d) where d == d.rounded() && abs(d) < 9e18: Int(d)
            default: nil
            }
        }
    }
}

extension OptionKey where Value == Double {
    package init(_ name: String) {
        self.init(name: name) {
            switch $0 {
            case .double(let d): d
            case .int(let n): Double(n)
            default: nil
            }
        }
    }
}

extension OptionKey where Value == [String] {
    /// A repeatable option: every occurrence, in order (a config gives the list as one
    /// comma-separated string, as the prelude joins it).
    package init(_ name: String) {
        self.init(name: name) {
            switch $0 {
            case .array(let items): items.compactMap { if case .string(let s) = $0 { s } else { nil } }
            case .string(let s): s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            default: nil
            }
        }
    }
}

extension OptionKey where Value: RawRepresentable & Sendable, Value.RawValue == String {
    /// A choice read as its enum (the registry's choice lists the enum's cases).
    package init(_ name: String) { self.init(name: name) { if case .string(let s) = $0 { Value(rawValue: s) } else { nil } } }
}

/// A text option whose value is parsed into a type (`--roi` into a ``Region``): the parse and
/// its message live here, once, for the flag and the config alike.
package struct ParsedOptionKey<Value>: Sendable {
    package let text: OptionKey<String>
    package let flag: String
    let parse: @Sendable (String) -> Result<Value, ParseFailure>

    package struct ParseFailure: Error { package let reason: String; package init(_ reason: String) { self.reason = reason } }

    package init(_ name: String, flag: String, parse: @escaping @Sendable (String) -> Result<Value, ParseFailure>) {
        text = OptionKey<String>(name)
        self.flag = flag
        self.parse = parse
    }
}

extension ParsedOptionKey where Value == Region {
    /// `--roi X,Y,W,H`: pixels, or fractions of the frame.
    package static var roi: Self {
        Self("roi", flag: "--roi") { text in Region.parse(text).mapError { ParseFailure($0.message) } }
    }
}

// The keys of the engine's options (``Option/registry``), by the type of their values.

extension OptionKey where Value == String {
    package static var format: Self { Self("format") }
    package static var symbologies: Self { Self("symbologies") }
    package static var decoders: Self { Self("decoders") }
    package static var roi: Self { Self("roi") }
    package static var source: Self { Self("source") }
    package static var size: Self { Self("size") }
    package static var torch: Self { Self("torch") }
    package static var serve: Self { Self("serve") }
    package static var saveFrames: Self { Self("save_frames") }
    package static var config: Self { Self("config") }
    package static var network: Self { Self("network") }
    package static var db: Self { Self("db") }
    package static var workerRoot: Self { Self("worker_root") }
}

extension OptionKey where Value == Bool {
    package static var raw: Self { Self("raw") }
    package static var emptyRecords: Self { Self("empty_records") }
    package static var quiet: Self { Self("quiet") }
    package static var once: Self { Self("once") }
    package static var beep: Self { Self("beep") }
    package static var newOnly: Self { Self("new_only") }
    package static var defaultScripts: Self { Self("default_scripts") }
    package static var trust: Self { Self("trust") }
    package static var dryRun: Self { Self("dry_run") }
}

extension OptionKey where Value == Effort {
    package static var effort: Self { Self("effort") }
}

extension OptionKey where Value == Int {
    package static var threads: Self { Self("threads") }
    package static var maxPixels: Self { Self("max_pixels") }
    package static var dpi: Self { Self("dpi") }
    package static var maxFileSize: Self { Self("max_file_size") }
    package static var maxFrames: Self { Self("max_frames") }
    package static var instructionLimit: Self { Self("instruction_limit") }
    package static var memoryLimit: Self { Self("memory_limit") }
    package static var maxFailures: Self { Self("max_failures") }
    package static var maxDeliveryAttempts: Self { Self("max_delivery_attempts") }
}

extension OptionKey where Value == Double {
    package static var timeBudget: Self { Self("time_budget") }
    package static var interval: Self { Self("interval") }
    package static var maxFps: Self { Self("max_fps") }
    package static var timeout: Self { Self("timeout") }
    package static var settle: Self { Self("settle") }
    package static var deliveryWait: Self { Self("delivery_wait") }
    package static var maxDeliveryAge: Self { Self("max_delivery_age") }
}

extension OptionKey where Value == DuplicatePolicy {
    package static var duplicates: Self { Self("duplicates") }
}

extension OptionKey where Value == [String] {
    package static var script: Self { Self("script") }
    package static var scripts: Self { Self("scripts") }
    package static var disable: Self { Self("disable") }
}

