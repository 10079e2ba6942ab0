import Foundation
import ScanCore
import ScanPipeline
import XCTest
@testable import ScanScript

/// Keeps every record a session writes, in order.
final class CapturingSink: RecordSink {
    var records: [ScanRecord] = []
    func write(_ record: ScanRecord) { records.append(record) }

    /// `symbology:text` of each symbol record, `error:<message>` of each input error record.
    var brief: [String] {
        records.map { r in
            if let e = r.inputError { return "error:" + e }
            guard let s = r.symbol else { return "?" }
            return s.symbology.rawValue + ":" + s.text
        }
    }
}

/// A source whose frames carry capture times chosen by the test (MemorySource stamps Date()).
final class TimedSource: FrameSource {
    let name: String
    var isLive: Bool { false }
    var dropped: Int { 0 }
    let frames: [(image: GrayImage, time: Date)]
    private var index = 0

    init(name: String, frames: [(image: GrayImage, time: Date)]) {
        self.name = name
        self.frames = frames
    }

    func next(deadline: Date?) throws(SourceError) -> SourceItem? {
        guard index < frames.count else { return nil }
        defer { index += 1 }
        let f = frames[index]
        return .frame(Frame(info: FrameInfo(source: name, index: index, time: f.time, width: f.image.width, height: f.image.height),
                            image: f.image))
    }
}

/// The fixture images of ScanCoreTests, by path, and their expected texts.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ScanCoreTests/Fixtures")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func image(_ name: String) throws -> GrayImage { try ImageLoader().load(path: path(name)) }

    static let qr = "qrcode:https://example.com/scanlua"
    static let ean13 = "ean13:4719512002889"
    static let ean8 = "ean8:96385074"
    static let code128 = "code128:scanlua-Code128 ok"
}

/// Engines, temp directories and sessions for the pipeline tests.
class PipelineTestCase: XCTestCase {
    var dir: URL!
    var logged: [String] = []
    var engines: [ScriptEngine] = []
    private var scriptCount = 0

    override func setUpWithError() throws {
        // Short paths: Lua shortens chunk names over 60 bytes in messages, and these tests compare whole messages.
        dir = URL(fileURLWithPath: "/tmp/slp-" + UUID().uuidString.prefix(8).lowercased())
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // An explicit empty config, so a ./scanlua.lua or ~/.config/scanlua/init.lua cannot change the tests.
        try "".write(to: dir.appendingPathComponent("config.lua"), atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws {
        for e in engines { XCTAssertEqual(e.lua.top, 1, "the Lua stack is unbalanced after the test") }
        engines = []
        try? FileManager.default.removeItem(at: dir)
    }

    /// The path of the n-th script a test writes (`h1.lua`, `h2.lua`, ...).
    func scriptPath(_ n: Int) -> String { dir.appendingPathComponent("h\(n).lua").path }

    /// An engine made the way the commands make it, without the shipped handlers, with `lua` loaded.
    func makeEngine(_ lua: String, database: String = ":memory:", trust: Bool = false) throws -> ScriptEngine {
        scriptCount += 1
        let path = scriptPath(scriptCount)
        try lua.write(toFile: path, atomically: true, encoding: .utf8)
        var options = ScriptOptions()
        options.defaultScripts = false
        options.database = database
        options.config = dir.appendingPathComponent("config.lua").path
        options.loads = [.file(path)]
        options.limits.trust = trust
        let engine = try ScriptSetup.makeEngine(options)
        engine.log = { [unowned self] in self.logged.append($0) }
        engines.append(engine)
        return engine
    }

    /// A parser that claims every symbol with its text and frame index.
    static let echo = """
        local scan = require "scan"
        scan.parser { name = "echo", parse = function(ev) return { text = ev.text, frame = ev.frame } end }
        """

    /// Settings from command-line flags only (as `scanlua scan` resolves them).
    func settings(_ flags: [String: JSON] = [:]) throws -> SessionSettings {
        var values = OptionValues()
        for (k, v) in flags { values[k] = v }
        return try SessionSettings.resolve(values, config: OptionValues())
    }

    /// Runs a whole session and returns its sink and report.
    func scan(_ source: FrameSource, settings: SessionSettings, engine: ScriptEngine) -> (CapturingSink, SessionReport) {
        let sink = CapturingSink()
        let session = ScanSession(settings: settings, engine: engine, sink: sink)
        let report = session.run(source)
        return (sink, report)
    }

    func memory(_ names: [String]) throws -> MemorySource {
        MemorySource(name: "mem", frames: try names.map(Fixtures.image))
    }
}
