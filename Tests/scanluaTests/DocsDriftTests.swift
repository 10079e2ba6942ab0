import Foundation
import ScanCore
import XCTest

/// The lists written once in code (Option.registry, ActionType, Symbology.registry) against the
/// docs and the LuaLS annotations that repeat them: adding an option, an action or a symbology
/// without its docs fails here. `SCANLUA_UPDATE_GOLDEN=1 swift test --filter DocsDriftTests`
/// rewrites the blocks between the BEGIN/END markers from the code (review the diff).
final class DocsDriftTests: XCTestCase {
    /// Checks (or, when updating, rewrites) the block `name` of `path`.
    func check(_ name: String, in path: String, expected: String) throws {
        let text = try read(path)
        if ProcessInfo.processInfo.environment["SCANLUA_UPDATE_GOLDEN"] == "1" {
            var lines = text.components(separatedBy: "\n")
            guard let a = lines.firstIndex(where: { $0.contains("BEGIN \(name)") }),
                  let b = lines[a...].firstIndex(where: { $0.contains("END \(name)") }) else { return XCTFail("no markers in \(path)") }
            lines.replaceSubrange((a + 1)..<b, with: expected.components(separatedBy: "\n"))
            try lines.joined(separator: "\n").write(to: CLI.packageRoot.appendingPathComponent(path), atomically: true, encoding: .utf8)
            return
        }
        guard let actual = block(name, in: text, file: path) else { return }
        XCTAssertEqual(actual, expected, "\(path), block \(name); expected:\n\(expected)")
    }

    func read(_ path: String) throws -> String {
        try String(contentsOf: CLI.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The text between `BEGIN name` and `END name` marker lines (the marker lines excluded).
    func block(_ name: String, in text: String, file: String) -> String? {
        let lines = text.components(separatedBy: "\n")
        guard let a = lines.firstIndex(where: { $0.contains("BEGIN \(name)") }),
              let b = lines[a...].firstIndex(where: { $0.contains("END \(name)") }) else {
            XCTFail("\(file) has no BEGIN \(name) / END \(name) markers")
            return nil
        }
        return lines[(a + 1)..<b].joined(separator: "\n")
    }

    func luaLSType(_ o: Option) -> String {
        switch o.kind {
        case .flag: return "boolean"
        case .integer: return "integer"
        case .number: return "number"
        case .choice(let words): return words.map { "\"\($0)\"" }.joined(separator: "|")
        case .text, .list: return o.namesList ? "string|string[]" : "string"
        }
    }

    /// The package's public API is ScanluaKit's, small and documented (docs/embedding.md):
    /// every other declaration is `package` or internal, and each public one has a `///` comment.
    func testPublicDeclarationsAreFewAndDocumented() throws {
        let sources = CLI.packageRoot.appendingPathComponent("Sources")
        var count = 0, undocumented: [String] = [], outside: [String] = []
        let files = FileManager.default.enumerator(atPath: sources.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        for file in files.sorted() {
            let lines = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
            for (i, line) in lines.enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//"), code.range(of: #"(^|\s|\))public\s"#, options: .regularExpression) != nil else { continue }
                count += 1
                if !file.hasPrefix("ScanluaKit/") { outside.append("\(file):\(i + 1)") }
                // The comment may sit above attributes (@available, @discardableResult).
                var j = i - 1
                while j >= 0, lines[j].trimmingCharacters(in: .whitespaces).hasPrefix("@") { j -= 1 }
                if j < 0 || !lines[j].trimmingCharacters(in: .whitespaces).hasPrefix("///") { undocumented.append("\(file):\(i + 1): \(code)") }
            }
        }
        XCTAssertLessThanOrEqual(count, 150, "public declarations")
        XCTAssertGreaterThan(count, 20, "the scan found ScanluaKit's API")
        XCTAssertEqual(outside, [], "public outside ScanluaKit: make it package")
        XCTAssertEqual(undocumented, [], "public declarations without a doc comment")
    }

    /// docs/embedding.md shows examples/embedding's program as it is (make test builds and runs it).
    func testTheEmbeddingDocShowsTheExampleProgram() throws {
        let program = try read("examples/embedding/Sources/scan-images/main.swift")
        XCTAssertTrue(try read("docs/embedding.md").contains("// Sources/scan-images/main.swift\n" + program), "docs/embedding.md's copy of main.swift")
        XCTAssertLessThan(program.split(separator: "\n").count, 30, "a Swift program embeds the engine in under 30 lines")
    }

    func testConfigOptionsTableInLuaAPIDoc() throws {
        let expected = (["| `scan.options` key | Lua type | command line | meaning |", "|---|---|---|---|"]
            + Option.configurable.map { o in
                "| `\(o.name)` | \(o.luaType + (o.namesList ? " or list" : "")) | `\(o.flag)\(o.metavar.isEmpty ? "" : " " + o.metavar)` | \(o.configMeaning) |"
            }).joined(separator: "\n")
        try check("options", in: "docs/lua-api.md", expected: expected)
    }

    func testConfigOptionsInLuaLSAnnotations() throws {
        let expected = Option.configurable.map { o in
            let field = "---@field \(o.name)? \(luaLSType(o))"
            return field + String(repeating: " ", count: max(1, 41 - field.count)) + o.configMeaning
        }.joined(separator: "\n")
        try check("options", in: "scripts/types/scan.lua", expected: expected)
    }

    func testActionTypesInDocsAndAnnotations() throws {
        let expected = (["| action | fields | effect |", "|---|---|---|"]
            + ActionType.allCases.map { "| `\($0.rawValue)` | \($0.fields) | \($0.effect) |" }).joined(separator: "\n")
        try check("actions", in: "docs/lua-api.md", expected: expected)
        let types = try read("scripts/types/scan.lua")
        let union = ActionType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: "|")
        XCTAssertTrue(types.contains("---@field type \(union)"), "scanlua.Action's type should be \(union)")
    }

    func testSymbologyListsInDocsAndAnnotations() throws {
        let list = Symbology.knownNames.map { "`\($0)`" }.joined(separator: ", ")
        XCTAssertTrue(try read("docs/lua-api.md").contains("| `symbology` | \(list)"), "docs/lua-api.md event table: \(list)")
        XCTAssertTrue(try read("scripts/types/scan.lua").contains("---@field symbology string   \(list)"),
                      "scripts/types/scan.lua scanlua.Event: \(list)")
    }

    /// Issue 23 item 13: lua-language-server cannot be installed here (not in Debian 12, not on
    /// PyPI), so this checks what it would rely on: one `---@meta NAME` file per module the
    /// scripts can require, every scan.* function of the prelude annotated, every field the host
    /// gives an event annotated, optional fields marked `name?`, and each file valid Lua.
    func testLuaLSAnnotationsCoverEveryModuleFunctionAndField() throws {
        let dir = CLI.packageRoot.appendingPathComponent("scripts/types")
        for module in ["scan", "store", "codec", "json", "base64", "hex", "url", "checkdigit"] {
            let text = try read("scripts/types/\(module).lua")
            XCTAssertTrue(text.hasPrefix("---@meta \(module)\n"), "scripts/types/\(module).lua starts with ---@meta \(module)")
            XCTAssertTrue(text.hasSuffix("return \(module)\n"), "scripts/types/\(module).lua returns the module")
        }
        let scan = try read("scripts/types/scan.lua"), testing = try read("scripts/types/testing.lua")
        var prelude = ""
        for file in try FileManager.default.contentsOfDirectory(atPath: CLI.packageRoot.appendingPathComponent("Sources/ScanScript/Prelude").path) {
            prelude += try read("Sources/ScanScript/Prelude/" + file)
        }
        let defined = Set(prelude.matches(of: /function scan\.([a-z_]+)\(/).map { String($0.1) })
        XCTAssertGreaterThan(defined.count, 12)
        for name in defined { XCTAssertTrue(scan.contains("function scan.\(name)("), "scan.\(name) has no annotation") }
        for global in ["describe", "it", "pending", "before_each", "after_each", "expect"] {
            XCTAssertTrue(testing.contains("function \(global)("), "\(global) has no annotation")
        }
        let event = scan[scan.range(of: "---@class scanlua.Event\n")!.upperBound...].prefix { $0 != "\n" || true }
        let eventBlock = String(event.prefix(while: { _ in true })).components(separatedBy: "\n\n").first ?? ""
        for field in ["symbology", "text", "bytes", "charset", "orientation", "quality", "source", "frame", "time", "time_ms",
                      "addon", "points", "bbox", "modifiers", "siblings", "decoder", "symbology_id", "fields"] {
            XCTAssertNotNil(eventBlock.range(of: "---@field \(field)[? ]", options: .regularExpression), "scanlua.Event lacks \(field)")
        }
        // A predicate or a setting the caller may leave out is optional in the field's name, not in its type.
        for line in scan.split(separator: "\n") where line.hasPrefix("---@field ") {
            let type = line.split(separator: " ", maxSplits: 3).dropFirst(2).first ?? ""
            XCTAssertFalse(type.hasSuffix("?") || type.hasSuffix(")?"), "write optional fields as name?: \(line)")
        }
        XCTAssertTrue(scan.contains("---@field when? fun(ev: scanlua.Event): boolean"))
        // Each file is valid Lua (they are run as plain scripts: they only define tables).
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.path) where file.hasSuffix(".lua") {
            let r = try CLI.run(["run", dir.appendingPathComponent(file).path])
            XCTAssertEqual(r.status, 0, "\(file): \(r.stderr)")
        }
    }

    /// No `try!` anywhere in Sources (issues 60 and 61): an I/O error is a message, never a trap.
    func testNoForcedTryInSources() throws {
        let sources = CLI.packageRoot.appendingPathComponent("Sources")
        var found: [String] = []
        let walker = FileManager.default.enumerator(atPath: sources.path)
        while let rel = walker?.nextObject() as? String {
            guard rel.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: sources.appendingPathComponent(rel), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.contains("try!") {
                found.append("\(rel):\(n + 1)")
            }
        }
        XCTAssertEqual(found, [])
    }
}
