import ScanCore

// The options of the CLI's own commands (simulate, test, bench, run, scan's batch options, the
// queue, outbox, export, trust): not settings of the engine, so they live here, not in ScanCore.
// Help, the man page, completions and the docs come from `Option.all`: the engine's registry
// and these.

extension OptionGroup {
    static let simulate = OptionGroup("simulate"), test = OptionGroup("test"), bench = OptionGroup("bench")
    static let run = OptionGroup("run"), batch = OptionGroup("batch"), outbox = OptionGroup("outbox")
    static let export = OptionGroup("export"), trust = OptionGroup("trust")
}

extension Option {
    /// The options of the CLI's commands, by group.
    static let commandOptions: [Option] = [
        // Mock scans (simulate)
        (OptionGroup.simulate, [
            Option("symbology", "--symbology", .text, "NAME", "The symbology of --text/--hex (default qrcode)."),
            Option("text", "--text", .text, "TEXT", "The payload as UTF-8 text."),
            Option("hex", "--hex", .text, "HEX", "The payload as hex bytes (spaces allowed)."),
            Option("perform", "--perform", .text, "ACTIONS",
                   "Carry out these action types of the rules (append, http, mqtt, comma-separated, or all):\nmock scans reach nothing otherwise; those actions are marked dry-run (stop always runs)."),
        ]),
        // Lua tests (test)
        (OptionGroup.test, [
            Option("filter", "--filter", .text, "TEXT",
                   "Run only the tests whose full name (describe > ... > it) contains TEXT (plain text, not a pattern)."),
        ]),
        // Benchmarks (bench)
        (OptionGroup.bench, [
            Option("simulate", "--simulate", .integer(1...1_000_000_000), "N",
                   "Push N synthetic QR events (1000 distinct texts, cycled) through a trivial parser\n"
                   + "and rule, in batches, and the same work as a plain Lua loop in this process:\n"
                   + "events/s of both and their ratio, also with each record's NDJSON text."),
            Option("repeat", "--repeat", .integer(1...100), "R", "Runs (default 5); each run's rates and the medians are printed."),
            Option("prefix", "--text", .text, "PREFIX", "With --simulate: the events' texts are PREFIX and 0...999 (default BENCH-)."),
            Option("frame", "--frame", .text, "IMAGE",
                   "Time the Lua decoders of --script on one frame, and zbar on the same frame:\nmilliseconds per frame, median of R runs."),
            Option("iterations", "--iterations", .integer(1...100_000), "N", "Frames per run with --frame (default 20)."),
            Option("stream", "--stream", .flag, "",
                   "Stream 640x480 and 1280x720 frames made from --image through a session with the\n"
                   + "shipped handlers: frames/s and latency to the handlers at 15 fps; then zbarimg\non the same frames."),
            Option("frames", "--frames", .integer(1...100_000), "N", "Frames per stream (default 200)."),
            Option("pdf", "--pdf", .flag, "",
                   "A 20-page 300-dpi PDF (made by scripts/make-pdf, or --image) through scanlua scan, against\npdftoppm -r 300 into a folder followed by scanlua scan of the folder: wall time and the ratio."),
            Option("photo", "--photo", .flag, "",
                   "A 12 MP photo (4000x3000 JPEG, a QR and an EAN-13; made by scripts/make-photo, or\n--image) through scanlua scan, zbarimg and ZXingReader -noscale: wall time and peak memory."),
            Option("image", "--image", .text, "IMAGE",
                   "The picture of --stream (default examples/images/einvoice-pair.jpg), or the photo of --photo."),
            Option("bench_script", "--script", .text, "FILE", "Benchmark the handlers or decoders of FILE instead of the built-in ones."),
        ]),
        // scanlua run
        (OptionGroup.run, [
            Option("run_instruction_limit", "--instruction-limit", .integer(0...Int(Int32.max) * 1000), "N",
                   "Instructions for the whole script (default 0 = unlimited)."),
        ]),
        // Batches (scan)
        (OptionGroup.batch, [
            Option("annotate", "--annotate", .text, "DIR",
                   "Write a copy of each input to DIR, the same size, with every code outlined and\nlabelled (JPEG inputs stay JPEG, the others become PNG)."),
            Option("shard", "--shard", .text, "I/N",
                   "Scan only share I of N (1 <= I <= N) of the inputs: every Nth of the expanded list\n(directories sorted by path) from the Ith on; N processes, I = 1..N, cover each once."),
        ]),
        // Redis work queue (enqueue, worker, results)
        (OptionGroup.queue, [
            Option("redis", "--redis", .text, "URL", "The Redis server: redis://host[:port][/db]."),
            Option("jobs_stream", "--stream", .text, "NAME",
                   "The jobs stream (default scanlua:jobs); its results go to NAME:results (scanlua:results for the default)."),
            Option("after", "--after", .text, "ID", "results: only the results after entry ID (the last line on stderr gives the next ID)."),
            Option("inline", "--inline", .flag, "", "enqueue: put the image's bytes in the job, for workers on other hosts."),
            Option("group", "--group", .text, "G", "worker: the consumer group (default scanlua)."),
            Option("consumer", "--consumer", .text, "NAME", "worker: this worker's name in the group (default host-pid)."),
            Option("claim_after", "--claim-after", .number(minimum: 0, exclusive: true), "SECONDS",
                   "worker: take over jobs another consumer has held this long (default 60)."),
            Option("idle_exit", "--idle-exit", .number(minimum: 0, exclusive: true), "SECONDS", "worker: exit after this long with no job (default: never)."),
            Option("max_attempts", "--max-attempts", .integer(1...1000), "N",
                   "worker: a job handed out more than N times goes to the dead-letter stream\n(<stream>:dead) with its error (default 3)."),
            Option("follow", "--follow", .flag, "", "results: keep printing new results as they come."),
        ]),
        // scanlua outbox
        (OptionGroup.outbox, [
            Option("outbox_list", "--list", .flag, "", "List the queued deliveries (the default); exit 1 when there is one."),
            Option("failed", "--failed", .flag, "", "List the deliveries given up on (failed) instead; exit 1 when there is one."),
            Option("flush", "--flush", .flag, "", "Send every queued delivery now; exit 1 when some are still undelivered."),
            Option("retry", "--retry", .integer(1...Int(Int64.max)), "ID",
                   "Queue failed delivery ID again, with its attempts counted from 0 (the next session or --flush sends it)."),
            Option("drop", "--drop", .integer(1...Int(Int64.max)), "ID", "Remove delivery ID from the outbox, delivered or not."),
        ]),
        // scanlua export
        (OptionGroup.export, [
            Option("export_format", "--format", .choice(["csv", "ndjson", "json"]), "csv|ndjson|json",
                   "csv (RFC 4180, with a header row; the default), ndjson or json."),
            Option("csv_raw", "--csv-raw", .flag, "",
                   "Write CSV cells as they are: without it, a cell starting with = + - @, a tab or a CR\n"
                   + "gets a leading ' so a spreadsheet shows it instead of running it as a formula."),
            Option("since", "--since", .text, "TIME", "Only scans from TIME on: an ISO 8601 date or time in UTC (2026-12-01, 2026-12-01T10:00Z)."),
            Option("export_type", "--type", .text, "TYPE", "Only scans whose payload type is TYPE (product, tw-einvoice, url, ...)."),
        ]),
        // scanlua trust
        (OptionGroup.trust, [
            Option("remove", "--remove", .flag, "", "Take the files off the trust list."),
            Option("list", "--list", .flag, "", "Print the trust list: hash and file, one per line."),
        ]),
    ].flatMap { group, options in options.map { $0.in(group) } }

    /// Every option the CLI knows, the engine's first: names are unique across both.
    static let all: [Option] = registry + commandOptions

    /// The names of the options in these groups, in registry order.
    static func names(in groups: [OptionGroup]) -> [String] {
        all.filter { groups.contains($0.group) }.map(\.name)
    }
}

extension [Option] {
    /// The option with this name; a name missing from the list is a programming error.
    func named(_ name: String) -> Option {
        guard let o = first(where: { $0.name == name }) else { preconditionFailure("option '\(name)' is not in Option.all") }
        return o
    }
}

// The keys of the commands' options, by the type of their values.

extension OptionKey where Value == String {
    static var symbology: Self { Self("symbology") }
    static var text: Self { Self("text") }
    static var hex: Self { Self("hex") }
    static var perform: Self { Self("perform") }
    static var filter: Self { Self("filter") }
    static var prefix: Self { Self("prefix") }
    static var frame: Self { Self("frame") }
    static var image: Self { Self("image") }
    static var benchScript: Self { Self("bench_script") }
    static var annotate: Self { Self("annotate") }
    static var shard: Self { Self("shard") }
    static var redis: Self { Self("redis") }
    static var jobsStream: Self { Self("jobs_stream") }
    static var after: Self { Self("after") }
    static var group: Self { Self("group") }
    static var consumer: Self { Self("consumer") }
    static var exportFormat: Self { Self("export_format") }
    static var since: Self { Self("since") }
    static var exportType: Self { Self("export_type") }
}

extension OptionKey where Value == Int {
    static var simulate: Self { Self("simulate") }
    static var repeatCount: Self { Self("repeat") }
    static var iterations: Self { Self("iterations") }
    static var frames: Self { Self("frames") }
    static var runInstructionLimit: Self { Self("run_instruction_limit") }
    static var maxAttempts: Self { Self("max_attempts") }
    static var retry: Self { Self("retry") }
    static var drop: Self { Self("drop") }
}

extension OptionKey where Value == Bool {
    static var stream: Self { Self("stream") }
    static var photo: Self { Self("photo") }
    static var pdf: Self { Self("pdf") }
    static var inline: Self { Self("inline") }
    static var follow: Self { Self("follow") }
    static var outboxList: Self { Self("outbox_list") }
    static var failed: Self { Self("failed") }
    static var flush: Self { Self("flush") }
    static var csvRaw: Self { Self("csv_raw") }
    static var remove: Self { Self("remove") }
    static var list: Self { Self("list") }
}

extension OptionKey where Value == Double {
    static var claimAfter: Self { Self("claim_after") }
    static var idleExit: Self { Self("idle_exit") }
}


extension ParsedOptionKey where Value == (index: Int, count: Int) {
    /// `--shard I/N`: share I of N, 1 <= I <= N.
    static var shard: Self {
        Self("shard", flag: "--shard") { text in
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) ? Int($0) : nil }
            guard parts.count == 2, let i = parts[0], let n = parts[1], n >= 1, (1...n).contains(i) else {
                return .failure(ParseFailure("expected I/N with 1 <= I <= N, such as 2/8"))
            }
            return .success((i, n))
        }
    }
}

extension ParsedOptionKey where Value == (width: Int, height: Int) {
    /// `--size WxH`: a camera's frame size.
    static var size: Self {
        Self("size", flag: "--size") { text in
            let p = text.split(separator: "x").compactMap { Int($0) }
            guard p.count == 2, p[0] > 0, p[1] > 0 else { return .failure(ParseFailure("expected WxH")) }
            return .success((p[0], p[1]))
        }
    }
}
