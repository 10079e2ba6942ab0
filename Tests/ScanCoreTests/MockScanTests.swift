import Foundation
import XCTest
@testable import ScanCore

final class MockScanTests: XCTestCase {
    private func parsed(_ line: String, file: StaticString = #filePath, line l: UInt = #line) -> (symbols: [Symbol], source: String?, time: Date?)? {
        switch MockScan.parse(line) {
        case .success(let r): return r
        case .failure(let e):
            XCTFail("'\(line)' was refused: \(e.message)", file: file, line: l)
            return nil
        }
    }

    private func error(_ line: String, file: StaticString = #filePath, line l: UInt = #line) -> String? {
        switch MockScan.parse(line) {
        case .success(let r):
            XCTFail("'\(line)' was accepted: \(r.symbols.map(\.text))", file: file, line: l)
            return nil
        case .failure(let e): return e.message
        }
    }

    func testTextDefaultsToQRCode() throws {
        let r = try XCTUnwrap(parsed(#"{"text": "hello 中文"}"#))
        XCTAssertEqual(r.symbols.count, 1)
        XCTAssertNil(r.source)
        let s = r.symbols[0]
        XCTAssertEqual(s.symbology, Symbology(rawValue: "qrcode"))
        XCTAssertEqual(s.bytes, Array("hello 中文".utf8))
        XCTAssertEqual(s.text, "hello 中文")
        XCTAssertEqual(s.charset, "utf-8")
        XCTAssertEqual(s.points, [])
        XCTAssertEqual(s.bbox, Box(x: 0, y: 0, width: 0, height: 0))
    }

    func testSymbologyIsLowercased() throws {
        let r = try XCTUnwrap(parsed(#"{"symbology": "EAN13", "text": "4719512002889"}"#))
        XCTAssertEqual(r.symbols.map(\.symbology.rawValue), ["ean13"])
        // A name outside the registry is kept (a Lua decoder's symbology).
        XCTAssertEqual(parsed(#"{"symbology": "My-Code", "text": "x"}"#)?.symbols.map(\.symbology.rawValue), ["my-code"])
        // A symbology that is not a string is refused (issue 23: nothing is silently replaced).
        XCTAssertEqual(error(#"{"symbology": 5, "text": "x"}"#), "'symbology' must be a string")
    }

    func testBase64Bytes() throws {
        let r = try XCTUnwrap(parsed(#"{"symbology": "code128", "bytes": "AAEC/w=="}"#))
        let s = try XCTUnwrap(r.symbols.first)
        XCTAssertEqual(s.bytes, [0x00, 0x01, 0x02, 0xFF])
        XCTAssertEqual(s.charset, "binary")
        XCTAssertEqual(s.text, "\u{0}\u{1}\u{2}\u{FF}")
        XCTAssertEqual(parsed(#"{"bytes": ""}"#)?.symbols.first?.bytes, [])
        XCTAssertEqual(parsed(#"{"bytes": "aGk="}"#)?.symbols.first?.text, "hi")
    }

    func testTextWinsOverBytes() {
        XCTAssertEqual(parsed(#"{"text": "t", "bytes": "aGk="}"#)?.symbols.first?.bytes, Array("t".utf8))
    }

    func testSiblingsFollowTheMainSymbolInOrder() throws {
        let line = #"{"source": "cam0", "text": "main", "siblings": [{"symbology": "ean13", "text": "1"}, {"bytes": "Mg=="}, {"text": "3"}]}"#
        let r = try XCTUnwrap(parsed(line))
        XCTAssertEqual(r.source, "cam0")
        XCTAssertEqual(r.symbols.map(\.text), ["main", "1", "2", "3"])
        XCTAssertEqual(r.symbols.map(\.symbology.rawValue), ["qrcode", "ean13", "qrcode", "qrcode"])
        XCTAssertEqual(parsed(#"{"text": "a", "siblings": []}"#)?.symbols.count, 1)
    }

    func testSourceMustBeAString() {
        XCTAssertEqual(error(#"{"text": "a", "source": 7}"#), "'source' must be a string")
        XCTAssertEqual(parsed(#"{"text": "a", "source": ""}"#)?.source, "")
    }

    func testNotAJSONObject() {
        XCTAssertEqual(error("[1, 2]"), "not a JSON object: [1, 2]")
        XCTAssertEqual(error("\"text\""), "not a JSON object: \"text\"")
        XCTAssertEqual(error("text: hello"), "not a JSON object: text: hello")
        XCTAssertEqual(error(""), "not a JSON object: ")
        XCTAssertEqual(error(#"{"text": "a"} trailing"#), #"not a JSON object: {"text": "a"} trailing"#)
        // Long lines are cut to their first 60 characters.
        let long = "{" + String(repeating: "x", count: 100)
        XCTAssertEqual(error(long), "not a JSON object: {" + String(repeating: "x", count: 59))
    }

    func testNeedsTextOrBytes() {
        let needs = #"needs "text" (a string) or "bytes" (base64)"#
        XCTAssertEqual(error("{}"), needs)
        XCTAssertEqual(error(#"{"symbology": "qrcode"}"#), needs)
        XCTAssertEqual(error(#"{"text": 5}"#), needs)
        XCTAssertEqual(error(#"{"bytes": [1, 2]}"#), needs)
        XCTAssertEqual(error(#"{"text": null}"#), needs)
    }

    func testBadBase64() {
        XCTAssertEqual(error(#"{"bytes": "!!!"}"#), "'bytes' is not valid base64")
        XCTAssertEqual(error(#"{"bytes": "AAE"}"#), "'bytes' is not valid base64")
    }

    func testSiblingErrorsNameTheSibling() {
        XCTAssertEqual(error(#"{"text": "a", "siblings": {"text": "b"}}"#), "'siblings' must be a list of objects")
        XCTAssertEqual(error(#"{"text": "a", "siblings": "b"}"#), "'siblings' must be a list of objects")
        XCTAssertEqual(error(#"{"text": "a", "siblings": [{"text": "b"}, "c"]}"#),
                       #"sibling 2: needs "text" (a string) or "bytes" (base64)"#)
        XCTAssertEqual(error(#"{"text": "a", "siblings": [{"bytes": "%%"}]}"#), "sibling 1: 'bytes' is not valid base64")
        XCTAssertEqual(error(#"{"text": "a", "siblings": [{}, {}]}"#), #"sibling 1: needs "text" (a string) or "bytes" (base64)"#)
        // The main symbol's error comes first.
        XCTAssertEqual(error(#"{"siblings": "b"}"#), #"needs "text" (a string) or "bytes" (base64)"#)
    }

    func testHexBytes() {
        XCTAssertEqual(MockScan.hexBytes("deadBEEF"), [0xDE, 0xAD, 0xBE, 0xEF])
        XCTAssertEqual(MockScan.hexBytes("de ad:be\tef\n00"), [0xDE, 0xAD, 0xBE, 0xEF, 0x00])
        XCTAssertEqual(MockScan.hexBytes("01:02:03"), [1, 2, 3])
        XCTAssertEqual(MockScan.hexBytes(""), [])
        XCTAssertEqual(MockScan.hexBytes("  :: "), [])
        XCTAssertNil(MockScan.hexBytes("abc"), "odd number of digits")
        XCTAssertNil(MockScan.hexBytes("zz"))
        XCTAssertNil(MockScan.hexBytes("0x12"))
        XCTAssertNil(MockScan.hexBytes("a b c"))
        XCTAssertNil(MockScan.hexBytes("é0"))
    }

    /// Only hex digits make bytes: a sign is not a digit.
    func testHexBytesRefusesSigns() {
        XCTAssertNil(MockScan.hexBytes("+1"), "'+1' gave \(String(describing: MockScan.hexBytes("+1")))")
        XCTAssertNil(MockScan.hexBytes("-0"), "'-0' gave \(String(describing: MockScan.hexBytes("-0")))")
        XCTAssertNil(MockScan.hexBytes("41+f"), "'41+f' gave \(String(describing: MockScan.hexBytes("41+f")))")
    }
}
