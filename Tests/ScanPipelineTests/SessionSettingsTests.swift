import Foundation
import ScanCore
import ScanPipeline
import XCTest

/// SessionSettings.resolve: the command line over the config's scan.options over the command's defaults.
final class SessionSettingsTests: XCTestCase {
    func values(_ pairs: [String: JSON]) -> OptionValues {
        var v = OptionValues()
        for (k, x) in pairs { v[k] = x }
        return v
    }

    func resolve(flags: [String: JSON] = [:], config: [String: JSON] = [:], defaults: [String: JSON] = [:]) throws -> SessionSettings {
        try SessionSettings.resolve(values(flags), config: values(config), defaults: values(defaults))
    }

    func message(_ body: @autoclosure () throws -> SessionSettings) -> String? {
        do {
            _ = try body()
            return nil
        } catch let e as OptionError {
            return e.message
        } catch {
            return "not an OptionError: \(error)"
        }
    }

    func testNothingGivenMeansEveryCodeEveryFrame() throws {
        let s = try resolve()
        XCTAssertEqual(s.filter.policy, .all)
        XCTAssertEqual(s.filter.interval, 1)
        XCTAssertFalse(s.filter.stopAfterFirst)
        XCTAssertNil(s.region)
        XCTAssertEqual(s.symbologies, Symbology.defaultSet)
        XCTAssertEqual(s.maxPixels, ImageLoader.defaultMaxPixels)
        XCTAssertEqual(s.limits, StreamLimits())
        XCTAssertFalse(s.dryRun)
        XCTAssertFalse(s.beep)
    }

    func testFlagsWinOverConfigWhichWinsOverDefaults() throws {
        let s = try resolve(flags: ["duplicates": .string("once"), "max_frames": .int(3)],
                            config: ["duplicates": .string("consecutive"), "interval": .double(2.5), "once": .bool(true),
                                     "max_frames": .int(10), "timeout": .double(7), "roi": .string("0.25,0.25,0.5,0.5")],
                            defaults: ["duplicates": .string("interval"), "interval": .double(1), "max_fps": .double(15), "timeout": .double(60)])
        XCTAssertEqual(s.filter.policy, .once, "the flag")
        XCTAssertEqual(s.filter.interval, 2.5, "the config")
        XCTAssertTrue(s.filter.stopAfterFirst, "the config")
        XCTAssertEqual(s.limits, StreamLimits(maxFrames: 3, maxFPS: 15, timeout: 7))
        XCTAssertEqual(s.region, try Region.parse("0.25,0.25,0.5,0.5").get())
        XCTAssertEqual(s.region?.isFraction, true)

        let d = try resolve(config: ["beep": .bool(true)], defaults: ["duplicates": .string("interval")])
        XCTAssertEqual(d.filter.policy, .interval, "the command's default when neither flag nor config says")
        XCTAssertEqual(d.filter.interval, 1)
        XCTAssertTrue(d.beep)

        let flagsOnly = try resolve(flags: ["dry_run": .bool(true), "roi": .string("10,20,30,40"), "symbologies": .string("qrcode, EAN13")])
        XCTAssertTrue(flagsOnly.dryRun)
        XCTAssertEqual(flagsOnly.region?.box(inWidth: 100, height: 100), Box(x: 10, y: 20, width: 30, height: 40))
        XCTAssertEqual(flagsOnly.region?.isFraction, false)
        XCTAssertEqual(flagsOnly.symbologies, [Symbology(rawValue: "qrcode"), Symbology(rawValue: "ean13")])
        XCTAssertEqual(try resolve(flags: ["symbologies": .string("none")]).symbologies, [])
    }

    func testBadRegionGivesTheOptionErrorMessage() {
        XCTAssertEqual(message(try resolve(flags: ["roi": .string("10,20,30")])),
                       "invalid value '10,20,30' for '--roi': expected x,y,w,h (four numbers), got '10,20,30'")
        XCTAssertEqual(message(try resolve(config: ["roi": .string("0.5,0.5,0.75,0.25")])),
                       "invalid value '0.5,0.5,0.75,0.25' for '--roi': fractions must stay inside the frame: x+w and y+h at most 1, got '0.5,0.5,0.75,0.25'")
        XCTAssertEqual(message(try resolve(flags: ["roi": .string("1,2,-3,4")])),
                       "invalid value '1,2,-3,4' for '--roi': expected four non-negative numbers, got '1,2,-3,4'")
        XCTAssertEqual(message(try resolve(flags: ["roi": .string("0,0,0,10")])),
                       "invalid value '0,0,0,10' for '--roi': width and height must be positive, got '0,0,0,10'")
        XCTAssertNil(message(try resolve(flags: ["roi": .string("0,0,10,10")], config: ["roi": .string("bad")])),
                     "the flag's good region wins over the config's bad one")
    }

    func testUnknownSymbologyIsRefusedWithTheKnownNames() {
        XCTAssertEqual(message(try resolve(flags: ["symbologies": .string("qrcode,klingon")])),
                       "unknown symbology 'klingon'; known: " + Symbology.knownNames.joined(separator: ","))
        XCTAssertEqual(message(try resolve(flags: ["symbologies": .string(",")])), "--symbologies needs at least one name, or none")
    }
}
