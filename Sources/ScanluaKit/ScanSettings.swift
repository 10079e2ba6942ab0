import ScanCore

/// What a ``ScanEngine`` decodes and which scripts it runs: the library's form of the options
/// of `scanlua scan` (`scanlua help scan` explains each). A property left nil takes the config's
/// `scan.options` value if ``config`` names a config that sets it, else the CLI's default; a
/// property set wins over the config, as a flag does. No config is looked for unless ``config``
/// names one.
///
/// ```swift
/// var settings = ScanSettings()
/// settings.symbologies = ["qrcode", "ean13"]
/// settings.scripts = [.file("rules.lua")]
/// settings.store = "household.db"
/// ```
public struct ScanSettings: Sendable, Equatable {
    /// How hard the decoders try (`--effort`).
    public enum Effort: String, Sendable, CaseIterable {
        /// One pass of each decoder: for live frames.
        case fast
        /// The default: the scale pyramid, retries of unread photos, the gray-level EAN/UPC reader.
        case balanced
        /// Every binarizer, rotation and scale, on every image.
        case thorough
    }

    /// The part of each frame to decode (`--roi`); points in records stay in frame coordinates.
    public enum Region: Sendable, Equatable {
        /// A rectangle in pixels.
        case pixels(x: Int, y: Int, width: Int, height: Int)
        /// A rectangle in fractions of the frame's width and height (0...1).
        case fractions(x: Double, y: Double, width: Double, height: Double)
    }

    /// Which repeats of a code become records (`--duplicates`).
    public enum Duplicates: String, Sendable, CaseIterable {
        /// Each distinct code once per engine call.
        case once
        /// A code again after ``ScanSettings/interval`` seconds.
        case interval
        /// A code again when another code came between.
        case consecutive
        /// Every code of every frame (the default for image files).
        case all
    }

    /// A Lua script to load, after the shipped handlers.
    public enum Script: Sendable, Equatable {
        /// A script file (`--script FILE`).
        case file(String)
        /// Every `*.lua` of a directory but `*_test.lua`, sorted; the directory joins the `require` path (`--scripts DIR`).
        case directory(String)
        /// Lua source text; `name` is how errors and tracebacks call it.
        case source(name: String, code: String)
    }

    /// Symbology names to decode, as `scanlua scan --symbologies` takes them (`qrcode`, `ean13`,
    /// ...; `scanlua help symbologies` lists them); nil: all but isbn10.
    public var symbologies: [String]?
    /// Built-in decoders: `zbar`, `zxing`, `gray`; nil: all three.
    public var decoders: [String]?
    /// How hard the decoders try; nil: balanced.
    public var effort: Effort?
    /// The part of each frame to decode; nil: all of it.
    public var region: Region?
    /// Seconds per image for the passes after the first; nil: the effort's default (1, 2 or 10 s); 0: no limit.
    public var timeBudget: Double?
    /// Images larger than this many pixels are refused from their header; nil: 50,000,000.
    public var maxPixels: Int?
    /// Input files larger than this many bytes are refused before they are read; nil: 200 MiB.
    public var maxFileSize: Int?
    /// Resolution PDF pages are rendered at; nil: 300.
    public var dpi: Int?
    /// The pages (or frames) of a PDF, TIFF or GIF read, from 1, as `--pages` takes them (`"1-3,7"`); nil: all.
    public var pages: String?
    /// Decoding threads; nil: one per core. Records are the same whatever the number.
    public var threads: Int?
    /// Repeats; nil: ``Duplicates/all`` for images, ``Duplicates/interval`` for streams and watched folders.
    public var duplicates: Duplicates?
    /// Seconds for ``Duplicates/interval``; nil: 1.
    public var interval: Double?
    /// A record for each frame in which nothing was read too (its `symbols` is 0); nil: false.
    public var emptyRecords: Bool?
    /// Fill ``ScanRecord/summary`` with each payload's text for people (the handlers'
    /// `scan.summary`, what `scanlua scan --format text` prints); a summary function that raises
    /// then adds its error to the record, as in text output.
    public var summaries = false

    /// Load the shipped handler library (`scripts/default.lua`: URLs, Wi-Fi, vCards, EAN/UPC products,
    /// Taiwan e-invoices, ...); nil: true.
    public var shippedHandlers: Bool?
    /// Where the shipped handlers are; nil: found as the CLI finds them (`$SCANLUA_SCRIPTS`, beside
    /// the executable, or the `scripts/` of the SwiftPM package the executable was built in).
    public var shippedHandlersDirectory: String?
    /// Scripts loaded after the shipped handlers, in order.
    public var scripts: [Script] = []
    /// A Lua config file (`--config`); nil: none (the CLI looks for `./scanlua.lua`, the library does not).
    public var config: String?
    /// Parsers and rules to switch off by name (`--disable`).
    public var disabled: [String] = []
    /// The store scripts write to: a SQLite file or a `postgresql://` URL (`--db`); nil: the
    /// config's `db`, else the default store, opened only when a script uses it.
    public var store: String?
    /// Give scripts the full Lua standard library instead of the sandbox (`--trust`); nil: false.
    public var trust: Bool?
    /// Lua instructions per handler call; 0: unlimited; nil: 10,000,000.
    public var instructionLimit: Int?
    /// Bytes the Lua state may hold; 0: unlimited; nil: 256 MiB.
    public var memoryLimit: Int?
    /// Hosts `http` and `mqtt` actions may reach (`host[:port]`, `*.example.com`); nil: none.
    public var network: [String]?
    /// Print the actions rules return instead of carrying them out, and roll back store writes.
    public var dryRun = false

    /// The defaults of `scanlua scan`.
    public init() {}

    /// The settings as the CLI's option values, checked by the option registry as flags are:
    /// only the properties set, so a config's `scan.options` fills the rest.
    func optionValues() throws(ScanError) -> OptionValues {
        var o = OptionValues()
        func set<V>(_ key: OptionKey<V>, _ value: JSON?) throws(ScanError) {
            guard let value else { return }
            if let reason = Option.named(key.name).check(value) { throw .invalidSettings("\(key.name): \(reason)") }
            o[key.name] = value
        }
        func names(_ list: [String]?) -> JSON? { list.map { .string($0.joined(separator: ",")) } }
        try set(.symbologies, names(symbologies))
        try set(.decoders, names(decoders))
        try set(.effort, effort.map { .string($0.rawValue) })
        switch region {
        case .pixels(let x, let y, let w, let h)?: try set(.roi, .string("\(x),\(y),\(w),\(h)"))
        case .fractions(let x, let y, let w, let h)?:
            // Written with a point, so the region parser reads fractions even for 0 and 1.
            func f(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? "\(Int(v)).0" : "\(v)" }
            try set(.roi, .string("\(f(x)),\(f(y)),\(f(w)),\(f(h))"))
        case nil: break
        }
        try set(.timeBudget, timeBudget.map { .double($0) })
        try set(.maxPixels, maxPixels.map { .int($0) })
        try set(.dpi, dpi.map { .int($0) })
        try set(.maxFileSize, maxFileSize.map { .int($0) })
        try set(.pages, pages.map { .string($0) })
        try set(.threads, threads.map { .int($0) })
        try set(.duplicates, duplicates.map { .string($0.rawValue) })
        try set(.interval, interval.map { .double($0) })
        try set(.emptyRecords, emptyRecords.map { .bool($0) })
        try set(.defaultScripts, shippedHandlers.map { .bool($0) })
        try set(.config, config.map { .string($0) })
        for name in disabled { o.append(OptionKey<[String]>.disable.name, .string(name)) }
        try set(.db, store.map { .string($0) })
        try set(.trust, trust.map { .bool($0) })
        try set(.instructionLimit, instructionLimit.map { .int($0) })
        try set(.memoryLimit, memoryLimit.map { .int($0) })
        try set(.network, names(network))
        if dryRun { try set(.dryRun, .bool(true)) }
        return o
    }
}
