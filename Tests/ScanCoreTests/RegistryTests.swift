import Foundation
import XCTest
@testable import ScanCore

private func value(_ r: Result<JSON, OptionError>) -> JSON? {
    if case .success(let v) = r { return v }
    return nil
}

private func message(_ r: Result<JSON, OptionError>) -> String? {
    if case .failure(let e) = r { return e.message }
    return nil
}

private func duplicates<T: Hashable>(_ items: [T]) -> [T] {
    var seen: Set<T> = [], twice: [T] = []
    for i in items where !seen.insert(i).inserted { twice.append(i) }
    return twice
}

final class SymbologyRegistryTests: XCTestCase {
    /// The drift check: every label is what zbar itself calls the type (what zbarimg prints).
    func testLabelsMatchZBarsOwnNames() {
        let zbarEntries = Symbology.registry.filter { $0.zbarType != nil }
        XCTAssertFalse(zbarEntries.isEmpty)
        for e in zbarEntries {
            XCTAssertEqual(ZBarDecoder.zbarName(ofType: e.zbarType!), e.label, "\(e.name) (zbar type \(e.zbarType!))")
        }
    }

    func testNamesLabelsAndTypesAreUnique() {
        let names = Symbology.registry.map(\.name)
        XCTAssertEqual(duplicates(names), [])
        XCTAssertEqual(duplicates(Symbology.registry.map(\.label)), [])
        XCTAssertEqual(duplicates(Symbology.registry.compactMap(\.zbarType)), [])
        for n in names {
            XCTAssertEqual(n, n.lowercased(), "names are lowercase, as flags and scripts spell them")
            XCTAssertFalse(n.contains(",") || n.contains(" "), "'\(n)' would break --symbologies a,b,c")
        }
        XCTAssertEqual(Symbology.knownNames, names)
        XCTAssertEqual(ZXingDecoder.unknownFormatNames, [], "every zxing format name of the registry is one zxing-cpp knows")
    }

    func testDefaultSetIsEverythingButISBN10() {
        let expected = Set(Symbology.knownNames.filter { $0 != "isbn10" }.map(Symbology.init(rawValue:)))
        XCTAssertEqual(Symbology.defaultSet, expected)
        XCTAssertTrue(Symbology.knownNames.contains("isbn10"))
        XCTAssertFalse(Symbology.defaultSet.contains(Symbology(rawValue: "isbn10")))
        XCTAssertTrue(Symbology.defaultSet.contains(Symbology(rawValue: "qrcode")))
    }

    func testLabelAndEntry() {
        XCTAssertEqual(Symbology(rawValue: "qrcode").label, "QR-Code")
        XCTAssertEqual(Symbology(rawValue: "ean13").label, "EAN-13")
        XCTAssertEqual(Symbology(rawValue: "ean13").entry?.zbarType, 13)
        // A Lua decoder's own name is its label, with no registry row.
        XCTAssertNil(Symbology(rawValue: "my-decoder").entry)
        XCTAssertEqual(Symbology(rawValue: "my-decoder").label, "my-decoder")
        XCTAssertEqual(Symbology(rawValue: "code39").description, "code39")
        XCTAssertLessThan(Symbology(rawValue: "code128"), Symbology(rawValue: "qrcode"))
    }
}

final class OptionRegistryTests: XCTestCase {
    func testNamesAreUnique() {
        XCTAssertEqual(duplicates(Option.registry.map(\.name)), [])
    }

    func testConfigurableOptionsHaveDistinctFlags() {
        let configurable = Option.registry.filter(\.config)
        XCTAssertFalse(configurable.isEmpty)
        XCTAssertEqual(duplicates(configurable.map(\.flag)), [])
        XCTAssertEqual(Option.configurable.map(\.name), configurable.map(\.name))
    }

    func testEveryFlagIsALongOptionAndOnlySwitchesLackAPlaceholder() {
        for o in Option.registry {
            XCTAssertTrue(o.flag.hasPrefix("--"), o.name)
            XCTAssertFalse(o.help.isEmpty, o.name)
            XCTAssertEqual(o.metavar.isEmpty, o.kind == .flag, "\(o.name): \(o.flag) \(o.metavar)")
            XCTAssertGreaterThanOrEqual(o.scale, 1, o.name)
        }
    }

    func testLuaTypes() {
        XCTAssertEqual(Option.named("beep").luaType, "boolean")
        XCTAssertEqual(Option.named("max_failures").luaType, "number")
        XCTAssertEqual(Option.named("interval").luaType, "number")
        XCTAssertEqual(Option.named("duplicates").luaType, "string")
        XCTAssertEqual(Option.named("db").luaType, "string")
        XCTAssertEqual(Option.named("script").luaType, "string")
    }

    func testMemoryLimitFlagIsMiB() {
        let o = Option.named("memory_limit")
        XCTAssertEqual(o.flag, "--memory-limit")
        XCTAssertEqual(value(o.parse("64")), .int(64 << 20))
        XCTAssertEqual(value(o.parse("0")), .int(0))
        XCTAssertEqual(value(o.parse("1048576")), .int(1 << 40))
        XCTAssertEqual(message(o.parse("1048577")), "invalid value '1048577' for '--memory-limit': expected an integer in 0...1048576")
        XCTAssertEqual(message(o.parse("-1")), "invalid value '-1' for '--memory-limit': expected an integer in 0...1048576")
        // Overflowing the scaling is out of range, not a wrap-around.
        XCTAssertEqual(message(o.parse("9000000000000000000")),
                       "invalid value '9000000000000000000' for '--memory-limit': expected an integer in 0...1048576")
        // Text that is no integer gets the range too.
        XCTAssertEqual(message(o.parse("lots")), "invalid value 'lots' for '--memory-limit': expected an integer in 0...1048576")
    }

    func testIntegerOutOfRange() {
        let o = Option.named("max_failures")
        XCTAssertEqual(message(o.parse("0")), "invalid value '0' for '--max-failures': expected an integer in 1...1000000")
        XCTAssertEqual(message(o.parse("1000001")), "invalid value '1000001' for '--max-failures': expected an integer in 1...1000000")
        XCTAssertEqual(message(o.parse("1.5")), "invalid value '1.5' for '--max-failures': expected an integer in 1...1000000")
        XCTAssertEqual(value(o.parse("1")), .int(1))
        XCTAssertEqual(value(o.parse("1000000")), .int(1_000_000))
        XCTAssertEqual(message(Option.named("max_pixels").parse("0")),
                       "invalid value '0' for '--max-pixels': expected an integer in 1...68719476720")
        XCTAssertEqual(message(Option.named("instruction_limit").parse("-5")),
                       "invalid value '-5' for '--instruction-limit': expected an integer in 0...2147483647000")
    }

    func testChoiceErrorsListTheWords() {
        XCTAssertEqual(message(Option.named("format").parse("xml")), "invalid value 'xml' for '--format': expected ndjson or text")
        XCTAssertEqual(message(Option.named("source").parse("usb")),
                       "invalid value 'usb' for '--source': expected camera, y4m, mjpeg or dir")
        XCTAssertEqual(message(Option.named("duplicates").parse("never")),
                       "invalid value 'never' for '--duplicates': expected once, interval, consecutive or all")
        XCTAssertEqual(message(Option.named("torch").parse("ON")), "invalid value 'ON' for '--torch': expected on or off")
        XCTAssertEqual(value(Option.named("format").parse("text")), .string("text"))
        XCTAssertEqual(value(Option.named("duplicates").parse("consecutive")), .string("consecutive"))
    }

    func testNumbers() {
        let interval = Option.named("interval"), fps = Option.named("max_fps")
        XCTAssertEqual(value(interval.parse("0")), .double(0))
        XCTAssertEqual(value(interval.parse("2.5")), .double(2.5))
        XCTAssertEqual(message(interval.parse("-1")), "invalid value '-1' for '--interval': expected a number at least 0")
        XCTAssertEqual(message(interval.parse("soon")), "invalid value 'soon' for '--interval': expected a number")
        XCTAssertEqual(message(fps.parse("0")), "invalid value '0' for '--max-fps': expected a number above 0")
        XCTAssertEqual(message(fps.parse("inf")), "invalid value 'inf' for '--max-fps': expected a number above 0")
        XCTAssertEqual(message(fps.parse("nan")), "invalid value 'nan' for '--max-fps': expected a number above 0")
        XCTAssertEqual(value(fps.parse("15")), .double(15))
    }

    func testSwitchesAndText() {
        XCTAssertEqual(value(Option.named("beep").parse("")), .bool(true))
        XCTAssertEqual(value(Option.named("default_scripts").parse("")), .bool(false), "--no-default-scripts turns it off")
        XCTAssertEqual(Option.named("default_scripts").flag, "--no-default-scripts")
        XCTAssertEqual(value(Option.named("roi").parse("1,2,3,4")), .string("1,2,3,4"))
        XCTAssertEqual(value(Option.named("script").parse("a.lua")), .string("a.lua"))
    }

    func testCheckOfConfigValues() {
        // Number kinds take Lua integers and floats alike.
        XCTAssertNil(Option.named("interval").check(.int(2)))
        XCTAssertNil(Option.named("interval").check(.double(0.5)))
        XCTAssertNil(Option.named("max_fps").check(.int(30)))
        XCTAssertEqual(Option.named("max_fps").check(.int(0)), "expected a number above 0")
        XCTAssertEqual(Option.named("interval").check(.int(-1)), "expected a number at least 0")
        // Integer kinds take integral floats (Lua 5.4 may hand 5.0), not fractions.
        XCTAssertNil(Option.named("max_failures").check(.int(5)))
        XCTAssertNil(Option.named("max_failures").check(.double(5)))
        XCTAssertEqual(Option.named("max_failures").check(.double(5.5)), "expected a number")
        XCTAssertEqual(Option.named("max_failures").check(.int(0)), "expected an integer in 1...1000000")
        XCTAssertNil(Option.named("memory_limit").check(.int(64 << 20)))
        // Wrong types name the Lua type.
        XCTAssertEqual(Option.named("interval").check(.string("1")), "expected a number")
        XCTAssertEqual(Option.named("beep").check(.int(1)), "expected a boolean")
        XCTAssertNil(Option.named("beep").check(.bool(false)))
        XCTAssertEqual(Option.named("db").check(.bool(true)), "expected a string")
        XCTAssertNil(Option.named("db").check(.string("x.db")))
        XCTAssertEqual(Option.named("duplicates").check(.string("twice")), "expected once, interval, consecutive or all")
        XCTAssertNil(Option.named("duplicates").check(.string("all")))
    }
}

final class OptionValuesTests: XCTestCase {
    func testFillingKeepsTheFirstsValues() {
        var command = OptionValues()
        command["once"] = .bool(false)
        command["interval"] = .double(2)
        var config = OptionValues()
        config["once"] = .bool(true)
        config["interval"] = .double(9)
        config["db"] = .string("config.db")
        let merged = command.filling(from: config)
        XCTAssertEqual(merged[.once], false)
        XCTAssertEqual(merged[.interval], 2)
        XCTAssertEqual(merged[.db], "config.db")
        XCTAssertEqual(merged.values.count, 3)
        // Neither input changes.
        XCTAssertNil(command["db"])
        XCTAssertEqual(config[.once], true)
        XCTAssertEqual(OptionValues().filling(from: config)[.db], "config.db")
        XCTAssertEqual(command.filling(from: OptionValues()).values.count, 2)
    }

    func testTypedKeysReadTheirTypeOnly() throws {
        var v = OptionValues()
        v.append("script", .string("a.lua"))
        v.append("script", .string("b.lua"))
        v["threads"] = .int(3)
        v["max_frames"] = .double(4)
        v["max_pixels"] = .double(2.5)
        v["interval"] = .int(3)
        v["timeout"] = .double(2.5)
        v["db"] = .string("x")
        v["effort"] = .string("thorough")
        v["duplicates"] = .string("twice")
        v["disable"] = .string("url, wifi")  // a config's list, joined
        XCTAssertEqual(v[.script], ["a.lua", "b.lua"])
        XCTAssertEqual(v["script"], .array([.string("a.lua"), .string("b.lua")]))
        XCTAssertNil(v[.scripts])
        XCTAssertEqual(v[.disable], ["url", "wifi"])
        XCTAssertEqual(v[.threads], 3)
        XCTAssertEqual(v[.maxFrames], 4)
        XCTAssertNil(v[.maxPixels], "2.5 is not an integer")
        XCTAssertEqual(v[.interval], 3)
        XCTAssertEqual(v[.timeout], 2.5)
        XCTAssertEqual(v[.db], "x")
        XCTAssertNil(v[.trust])
        XCTAssertEqual(v[.effort], .thorough)
        XCTAssertNil(v[.duplicates], "not a DuplicatePolicy")
        v["db"] = .bool(true)
        XCTAssertNil(v[.db], "a boolean is not a string")
    }

    func testAParsedKeyGivesItsTypeOrSaysWhyNot() throws {
        var v = OptionValues()
        XCTAssertNil(try v.value(.roi))
        v["roi"] = .string("0.25,0.25,0.5,0.5")
        XCTAssertEqual(try v.value(.roi), Region(x: 0.25, y: 0.25, width: 0.5, height: 0.5, isFraction: true))
        v["roi"] = .string("1,2,3")
        XCTAssertThrowsError(try v.value(.roi)) { error in
            XCTAssertEqual("\(error)", "invalid value '1,2,3' for '--roi': expected x,y,w,h (four numbers), got '1,2,3'")
        }
    }
}

final class ActionTypeTests: XCTestCase {
    func testAllCases() {
        XCTAssertEqual(ActionType.allCases, [.append, .stop, .http, .mqtt])
        XCTAssertEqual(ActionType.allCases.map(\.rawValue), ["append", "stop", "http", "mqtt"])
        XCTAssertEqual(ActionType.append.fields, "`path`, `line`")
        XCTAssertEqual(ActionType.stop.fields, "")
        XCTAssertFalse(ActionType.allCases.contains { $0.effect.isEmpty })
    }
}
