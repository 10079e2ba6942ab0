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
        case .choice(let words): return "(" + words.map { "\"\($0)\"" }.joined(separator: "|") + ")"
        case .text, .list: return o.namesList ? "(string|string[])" : "string"
        }
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
            let field = "---@field \(o.name) \(luaLSType(o))?"
            return field + String(repeating: " ", count: max(1, 41 - field.count)) + o.configMeaning
        }.joined(separator: "\n")
        try check("options", in: "scripts/types/scanlua.lua", expected: expected)
    }

    func testActionTypesInDocsAndAnnotations() throws {
        let expected = (["| action | fields | effect |", "|---|---|---|"]
            + ActionType.allCases.map { "| `\($0.rawValue)` | \($0.fields) | \($0.effect) |" }).joined(separator: "\n")
        try check("actions", in: "docs/lua-api.md", expected: expected)
        let types = try read("scripts/types/scanlua.lua")
        let union = ActionType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: "|")
        XCTAssertTrue(types.contains("---@field type \(union)"), "scanlua.Action's type should be \(union)")
    }

    func testSymbologyListsInDocsAndAnnotations() throws {
        let list = Symbology.knownNames.map { "`\($0)`" }.joined(separator: ", ")
        XCTAssertTrue(try read("docs/lua-api.md").contains("| `symbology` | \(list)"), "docs/lua-api.md event table: \(list)")
        XCTAssertTrue(try read("scripts/types/scanlua.lua").contains("---@field symbology string   \(list)"),
                      "scripts/types/scanlua.lua scanlua.Event: \(list)")
    }
}
