import Foundation
import ScanCore

// `scanlua test`: the test API (prelude/testing.lua: describe, it, expect), running the tests,
// and `host.testing`, what the API needs from the host (scan.decode_file, scan.scan_lines).
extension ScriptEngine {
    /// One `it` of a test file.
    package struct TestResult: Equatable {
        package var name: String
        /// `passed`, `failed` or `pending` (a test without a body, or `pending "name"`).
        package var status: String
        package var message: String?
        package var passed: Bool { status == "passed" }
    }

    /// Loads the test API (describe, it, expect) into the sandbox: only `scanlua test` does.
    package func installTestAPI() throws(ScriptError) {
        try lua.withoutMemoryLimit { () throws(ScriptError) in try runPrelude(Prelude.testing) }
    }

    /// Runs the tests the loaded test files defined, in order; with `filter`, only those whose
    /// full name contains it.
    package func runTests(filter: String? = nil) throws(ScriptError) -> [TestResult] {
        defer { flushDeferredLog() }
        var results: [TestResult] = []
        try callCore("run_tests", filter.map { [.string($0)] } ?? [], results: 1) {
            for i in 0..<lua.rawLength(-1) {
                lua.rawIndex(-1, i + 1)
                lua.rawField(-1, "name")
                lua.rawField(-2, "status")
                lua.rawField(-3, "message")
                results.append(TestResult(name: lua.string(at: -3) ?? "?", status: lua.string(at: -2) ?? "failed", message: lua.string(at: -1)))
                lua.pop(4)
            }
        }
        return results
    }

    /// `host.testing`: decode_file(path), scan_lines(path[, directions[, step]]).
    func testingLibrary() -> LuaValue {
        .table([
            // decode_file(path) -> { {symbology, text, bytes, quality, points}, ... }: an image
            // file through the loaded Lua decoders.
            ("decode_file", .function { [unowned self] L throws(ScriptError) in
                let image = try testImage(L, "scan.decode_file")
                decodingFromLua = true
                defer { decodingFromLua = false }
                let symbols = decode(image, region: nil, info: FrameInfo(source: "scan.decode_file", width: image.width, height: image.height))
                L.push(.list(symbols.map { s in
                    .table([("symbology", .string(s.symbology.rawValue)), ("text", .string(s.text)), ("bytes", .bytes(s.bytes)),
                            ("quality", .int(s.quality)), ("points", .list(s.points.map { .table([("x", .int($0.x)), ("y", .int($0.y))]) }))])
                }))
                return 1
            }),
            // scan_lines(path, directions, step) -> the scan lines a linear decoder would see.
            ("scan_lines", .function { [unowned self] L throws(ScriptError) in
                let image = try testImage(L, "scan.scan_lines")
                let directions = try L.optText(2, "scan.scan_lines", "rows")
                guard ["rows", "columns", "both"].contains(directions) else {
                    throw .argument("scan.scan_lines: directions must be rows, columns or both, got '\(directions)'")
                }
                let step = try L.optInteger(3, "scan.scan_lines", 4)
                guard step >= 1 else { throw .argument("scan.scan_lines: step must be at least 1") }
                L.pushScanlines(scanlines(image, box: Box(x: 0, y: 0, width: image.width, height: image.height),
                                          directions: directions, step: step).map(\.line))
                return 1
            }),
        ])
    }

    /// The image file a test names (argument 1), read as scan reads it, within what scripts may read.
    private func testImage(_ L: LuaState, _ api: String) throws(ScriptError) -> GrayImage {
        let path = try L.checkText(1, api)
        guard FileManager.default.fileExists(atPath: path) else { throw .argument("\(api): \(path): no such file") }
        guard loader.isReadable(path) else { throw .argument("\(api): \(path): outside the directories scripts may read") }
        // The same limits as a scan's: pixels from the header, the file's size before reading.
        do { return try ImageLoader().load(path: path) } catch { throw .argument("\(api): \(error)") }
    }
}
