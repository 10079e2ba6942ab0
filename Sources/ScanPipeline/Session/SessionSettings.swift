import Foundation
import ScanCore

/// What a session does, resolved from the command line's options, the config's `scan.options`
/// and the command's defaults, in that order.
package struct SessionSettings {
    package var filter: SessionFilter
    package var region: Region?
    package var symbologies: Set<Symbology>
    package var maxPixels: Int
    /// PDF resolution (`--dpi`) and the pages read (`--pages`), beside maxPixels.
    package var dpi = 300
    package var pages: PageSelection?
    /// Input files over this many bytes are refused before reading (`--max-file-size`).
    package var maxFileBytes = DecodeOptions.defaultMaxFileBytes
    /// What the loader and the sources' document reading may cost.
    package var decodeOptions: DecodeOptions {
        var d = DecodeOptions(maxPixels: maxPixels)
        d.dpi = dpi
        d.pages = pages
        d.maxFileBytes = maxFileBytes
        return d
    }
    package var limits: StreamLimits
    package var beep: Bool
    package var dryRun: Bool
    /// Which built-in decoders run (`--decoders`): `zbar`, `zxing`, `gray` (EAN/UPC by gray-level templates).
    package var decoders: Set<String>
    /// How hard zxing-cpp tries (`--effort`).
    package var effort: Effort
    /// Seconds per image file for the passes after the first (`--time-budget`; nil: no limit).
    package var timeBudget: TimeInterval? = 2
    /// Decoding threads (`--threads`; default one per core).
    package var threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Where `http` and `mqtt` actions may connect (`network`: host[:port] patterns, comma-separated).
    package var network: String?
    /// A record for each image in which nothing was read (`--empty-records`).
    package var emptyRecords = false
    /// Give-up rules of the outbox: attempts, and age in seconds (`--max-delivery-attempts`, `--max-delivery-age` hours).
    package var maxDeliveryAttempts = 10
    package var maxDeliveryAge: TimeInterval = 7 * 24 * 3600
    /// How long a frame waits for a delivery's answer before it is `queued` (`--delivery-wait`).
    package var deliveryWait: TimeInterval = 0.2
    /// How long the end of a session waits for deliveries in flight.
    package var deliveryFinish: TimeInterval = 5
    /// The Lua decoders that run (a `--symbologies` list naming some; nil: every one).
    package var luaDecoders: Set<String>?

    package init(filter: SessionFilter = SessionFilter(policy: .all), region: Region? = nil,
                symbologies: Set<Symbology> = Symbology.defaultSet, maxPixels: Int = ImageLoader.defaultMaxPixels,
                limits: StreamLimits = StreamLimits(), beep: Bool = false, dryRun: Bool = false,
                decoders: Set<String> = Set(DecoderList.names), effort: Effort = .balanced) {
        self.filter = filter
        self.region = region
        self.symbologies = symbologies
        self.maxPixels = maxPixels
        self.limits = limits
        self.beep = beep
        self.dryRun = dryRun
        self.decoders = decoders
        self.effort = effort
    }

    /// - Parameters: `flags` from the command line win over `config` (scan.options), which wins
    ///   over the command's `defaults` (e.g. `duplicates = all` for scan, `interval` for watch).
    /// - Throws: a value that does not fit (a config's roi that is not a region, say).
    /// `luaSymbologies`: what the loaded Lua decoders read, names `--symbologies` may give too.
    package static func resolve(_ flags: OptionValues, config: OptionValues, defaults: OptionValues = OptionValues(),
                               luaSymbologies: [String] = []) throws(OptionError) -> SessionSettings {
        let o = flags.filling(from: config).filling(from: defaults)
        var s = SessionSettings()
        let policy = o[.duplicates] ?? .all
        s.filter = SessionFilter(policy: policy, interval: o[.interval] ?? 1, stopAfterFirst: o[.once] ?? false)
        s.region = try o.value(.roi)
        if let list = o[.symbologies] { (s.symbologies, s.luaDecoders) = try parseSymbologies(list, lua: luaSymbologies) }
        s.maxPixels = o[.maxPixels] ?? ImageLoader.defaultMaxPixels
        s.dpi = o[.dpi] ?? 300
        s.maxFileBytes = o[.maxFileSize] ?? DecodeOptions.defaultMaxFileBytes
        s.pages = try o[.pages].map(PageSelection.init(parsing:))
        s.limits = StreamLimits(maxFrames: o[.maxFrames], maxFPS: o[.maxFps], timeout: o[.timeout])
        s.beep = o[.beep] ?? false
        s.dryRun = o[.dryRun] ?? false
        if let list = o[.decoders] {
            let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
            for n in names where !DecoderList.names.contains(n) {
                throw OptionError("unknown decoder '\(n)' in --decoders; known: \(DecoderList.names.joined(separator: ","))")
            }
            guard !names.isEmpty else { throw OptionError("--decoders needs zbar, zxing or both") }
            s.decoders = Set(names)
        }
        s.effort = o[.effort] ?? .balanced
        let budget = o[.timeBudget] ?? [Effort.fast: 1, .balanced: 2, .thorough: 10][s.effort]!
        s.timeBudget = budget > 0 ? budget : nil
        if let n = o[.threads] { s.threads = n }
        s.network = o[.network]
        s.emptyRecords = o[.emptyRecords] ?? false
        if let n = o[.maxDeliveryAttempts] { s.maxDeliveryAttempts = n }
        if let h = o[.maxDeliveryAge] { s.maxDeliveryAge = h * 3600 }
        if let w = o[.deliveryWait] { s.deliveryWait = w }
        return s
    }

    /// `--symbologies`: names of the registry and of the loaded Lua decoders (`lua`),
    /// comma-separated, or `none` (the built-in decoders off, every Lua decoder on). A list
    /// that names no Lua decoder turns them off; one that names some runs only those.
    package static func parseSymbologies(_ list: String, lua: [String] = []) throws(OptionError) -> (Set<Symbology>, Set<String>?) {
        if list.trimmingCharacters(in: .whitespaces).lowercased() == "none" { return ([], nil) }
        var set = Set<Symbology>(), luaSet = Set<String>()
        for name in list.split(separator: ",", omittingEmptySubsequences: true) {
            let n = name.trimmingCharacters(in: .whitespaces).lowercased()
            if n.isEmpty { continue }
            if lua.contains(n) { luaSet.insert(n); continue }
            guard Symbology.knownNames.contains(n) else {
                throw OptionError(Symbology.unknownName(n, known: Symbology.knownNames + lua))
            }
            set.insert(Symbology(rawValue: n))
        }
        guard !set.isEmpty || !luaSet.isEmpty else { throw OptionError("--symbologies needs at least one name, or none") }
        return (set, luaSet)
    }
}
