import Foundation
import XCTest
@testable import ScanCore

private func parse(_ text: String) -> JSON? { JSON(parsing: Array(text.utf8)) }
private func hex2(_ v: Int) -> String { String(format: "%02x", v) }

final class JSONSerializeTests: XCTestCase {
    func testStringEscapes() {
        let cases: [(String, String)] = [
            ("\"", #""\"""#),
            ("\\", #""\\""#),
            ("\n", #""\n""#),
            ("\r", #""\r""#),
            ("\t", #""\t""#),
            ("\r\n", #""\r\n""#),
            ("\u{0}", #""\u0000""#),
            ("\u{8}", #""\u0008""#),   // no \b shorthand
            ("\u{C}", #""\u000c""#),   // no \f shorthand; hex digits are lowercase
            ("\u{1B}", #""\u001b""#),
            ("\u{1F}", #""\u001f""#),
            ("\u{7F}", #""\u007f""#),  // DEL
            ("\u{80}", #""\u0080""#),  // C1 controls
            ("\u{85}", #""\u0085""#),
            ("\u{9F}", #""\u009f""#),
            ("\u{80}\u{9F}\u{85}", #""\u0080\u009f\u0085""#),
            ("\u{2028}", #""\u2028""#),
            ("\u{2029}", #""\u2029""#),
            ("a\"b\\c\nd\u{1}e\u{2028}f中\u{85}g", #""a\"b\\c\nd\u0001e\u2028f中\u0085g""#),
            ("", #""""#),
            (" ~/", #"" ~/""#),  // the solidus is not escaped
        ]
        for (input, expected) in cases {
            XCTAssertEqual(JSON.string(input).serialized, expected, "input scalars \(input.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    func testEveryC0AndC1ControlIsEscapedAsUnicode() {
        for v in Array(0..<0x20) + [0x7F] + Array(0x80..<0xA0) {
            let s = String(Character(Unicode.Scalar(UInt32(v))!))
            let expected: String
            switch v {
            case 0x09: expected = #""\t""#
            case 0x0A: expected = #""\n""#
            case 0x0D: expected = #""\r""#
            default: expected = "\"\\u00\(hex2(v))\""
            }
            XCTAssertEqual(JSON.string(s).serialized, expected, "U+\(String(v, radix: 16))")
        }
    }

    func testOtherNonASCIIPassesThroughUnescaped() {
        // U+00A0 (C2 A0) and U+00BF (C2 BF) share the C1 controls' lead byte; U+2000, U+2027, U+202A
        // and U+20AC share U+2028's first bytes.
        for s in ["中文", "😀", "👩‍👩‍👧", "é", "\u{A0}", "\u{BF}", "\u{100}", "\u{2000}", "\u{2027}", "\u{202A}", "€",
                  "Ａ", "\u{FEFF}", "\u{10FFFF}"] {
            XCTAssertEqual(JSON.string(s).serialized, "\"" + s + "\"", "U+\(s.unicodeScalars.map { String($0.value, radix: 16) })")
            var out: [UInt8] = []
            JSON.string(s).write(to: &out)
            XCTAssertEqual(out, [0x22] + Array(s.utf8) + [0x22])
        }
    }

    func testKeysAreEscapedAndOrderIsKept() {
        let value = JSON.object([
            ("z", .int(1)),
            ("a\"\n", .array([.null, .bool(true), .bool(false), .double(2.5), .string("s"), .array([]), .object([])])),
            ("m", .object([("k", .int(-7))])),
            ("z", .int(2)),  // repeated keys are written as given
        ])
        XCTAssertEqual(value.serialized, #"{"z":1,"a\"\n":[null,true,false,2.5,"s",[],{}],"m":{"k":-7},"z":2}"#)
    }

    func testIntegers() {
        XCTAssertEqual(JSON.int(0).serialized, "0")
        XCTAssertEqual(JSON.int(-42).serialized, "-42")
        XCTAssertEqual(JSON.int(Int.max).serialized, "9223372036854775807")
        XCTAssertEqual(JSON.int(Int.min).serialized, "-9223372036854775808")
    }

    func testDoubles() {
        let cases: [(Double, String)] = [
            (3, "3"), (-2, "-2"), (0, "0"), (-0.0, "0"),
            (999_999_999_999_999, "999999999999999"), (-999_999_999_999_999, "-999999999999999"),
            (1.5, "1.5"), (0.1, "0.1"), (-1.5e-7, "-1.5e-07"), (1e-300, "1e-300"),
            (1e15, "1e+15"), (-1e15, "-1e+15"), (1e20, "1e+20"), (Double.leastNonzeroMagnitude, "4.94065645841247e-324"), (1.0 / 3, "0.3333333333333333"),
            (.nan, "null"), (.infinity, "null"), (-.infinity, "null"),
        ]
        for (d, expected) in cases {
            XCTAssertEqual(JSON.double(d).serialized, expected, "\(d)")
        }
        XCTAssertEqual(JSON.array([.double(.nan), .double(1)]).serialized, "[null,1]")
    }

    func testWriteAppends() {
        var out = Array("prefix ".utf8)
        JSON.object([("a", .string("\u{2029}"))]).write(to: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), #"prefix {"a":"\u2029"}"#)
    }
}

final class JSONParseTests: XCTestCase {
    func testEscapedStringsRoundTrip() {
        var samples = ["\"", "\\", "\n", "\r", "\t", "\r\n", "\u{7F}", "\u{2028}", "\u{2029}", "中文", "😀", "👩‍👩‍👧",
                       "a\"b\\c\nd\u{1}e\u{2028}f中\u{85}g", "", "/"]
        samples += (0..<0x100).map { String(Character(Unicode.Scalar(UInt32($0))!)) }
        for s in samples {
            let text = JSON.string(s).serialized
            XCTAssertEqual(parse(text), .string(s), "\(text)")
        }
    }

    func testRandomStringsRoundTrip() {
        let seed: UInt64 = 0x5CA7_1A2B
        var g = SplitMix64(seed: seed)
        for n in 0..<200 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int(g.next() % 12) {
                // Mostly the interesting low ranges, sometimes anywhere in Unicode (no surrogates).
                let v: UInt32
                switch g.next() % 4 {
                case 0: v = UInt32(g.next() % 0x100)
                case 1: v = 0x2020 + UInt32(g.next() % 16)
                default: v = UInt32(g.next() % 0x110000)
                }
                scalars.append(Unicode.Scalar(v) ?? "x")
            }
            let s = String(scalars)
            let value = JSON.object([(s, .array([.string(s)]))])
            XCTAssertEqual(parse(value.serialized), value, "seed \(seed), string \(n): \(s.unicodeScalars.map(\.value))")
        }
    }

    func testDoublesRoundTrip() {
        for d in [1.5, 0.1, -1.5e-7, 1e-300, 1e15, -1e15, 1e20, .greatestFiniteMagnitude, .leastNonzeroMagnitude, -0.25] {
            XCTAssertEqual(parse(JSON.double(d).serialized), .double(d), "\(d)")
        }
        // Integral doubles below 1e15 print as integers, so they come back as .int; NaN comes back as null.
        XCTAssertEqual(parse(JSON.double(3).serialized), .int(3))
        XCTAssertEqual(parse(JSON.double(.nan).serialized), .null)
    }

    func testKeyOrderAndRepeatedKeys() throws {
        let value = try XCTUnwrap(parse(#"{"z":1,"a":{"y":true,"b":null},"m":[3,2,1],"z":"again"}"#))
        guard case .object(let pairs) = value else { return XCTFail("not an object: \(value)") }
        XCTAssertEqual(pairs.map(\.0), ["z", "a", "m", "z"])
        XCTAssertEqual(value, .object([("z", .int(1)), ("a", .object([("y", .bool(true)), ("b", .null)])),
                                       ("m", .array([.int(3), .int(2), .int(1)])), ("z", .string("again"))]))
        XCTAssertEqual(value["z"], .int(1))  // the first of repeated keys
        XCTAssertEqual(value["a"]?["b"], .null)
        XCTAssertNil(value["nope"])
        XCTAssertEqual(value.serialized, #"{"z":1,"a":{"y":true,"b":null},"m":[3,2,1],"z":"again"}"#)
        // Order matters for equality.
        XCTAssertNotEqual(parse(#"{"a":1,"b":2}"#), parse(#"{"b":2,"a":1}"#))
    }

    func testWhiteSpaceAroundValues() {
        XCTAssertEqual(parse(" \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } }\r\n "),
                       .object([("a", .array([.int(1), .int(2)])), ("b", .object([]))]))
        XCTAssertEqual(parse(" null "), .null)
        XCTAssertEqual(parse("[ ]"), .array([]))
    }

    func testNumbers() {
        XCTAssertEqual(parse("0"), .int(0))
        XCTAssertEqual(parse("-0"), .int(0))
        XCTAssertEqual(parse("-12"), .int(-12))
        XCTAssertEqual(parse("1.0"), .double(1))
        XCTAssertEqual(parse("1e2"), .double(100))
        XCTAssertEqual(parse("-2.5E-3"), .double(-0.0025))
        XCTAssertEqual(parse("9223372036854775807"), .int(Int.max))
        XCTAssertEqual(parse("-9223372036854775808"), .int(Int.min))
        XCTAssertEqual(parse("9223372036854775808"), .double(9_223_372_036_854_775_808))  // too big for Int
    }

    func testEscapesAndSurrogatePairs() {
        XCTAssertEqual(parse(#""\b\f\n\r\t\/\"\\""#), .string("\u{8}\u{C}\n\r\t/\"\\"))
        XCTAssertEqual(parse(#""\u00e9\u4E2D\u0000""#), .string("é中\u{0}"))
        XCTAssertEqual(parse(#""\uD83D\uDE00""#), .string("😀"))
        XCTAssertEqual(parse(#""\ud83d\ude00!""#), .string("😀!"))
        XCTAssertEqual(parse(#""a\uDBFF\uDFFFb""#), .string("a\u{10FFFF}b"))
        // A lone surrogate becomes U+FFFD.
        XCTAssertEqual(parse(#""\uD83D""#), .string("\u{FFFD}"))
        XCTAssertEqual(parse(#""\uDE00x""#), .string("\u{FFFD}x"))
        XCTAssertEqual(parse(#""\uD83Dx""#), .string("\u{FFFD}x"))
        // Raw UTF-8 in strings is kept as is.
        XCTAssertEqual(parse("\"中文😀\""), .string("中文😀"))
    }

    func testNotOneJSONValue() {
        let bad = [
            "", "   ", #"{"a":1} x"#, "1 2", "[1,2]]", "{}{}", "nul", "tru", "falsey", "[", "{", "]", "-", "+", ".",
            // unterminated strings
            #""abc"#, #"{"a":"b"#, #""abc\"#, #"["a\""#, "\"",
            // bad escapes
            #""\u12""#, #""\u12G4""#, #""\u""#,
            // structure
            "[1,]", "[,1]", #"{"a":}"#, "{a:1}", #"{"a" 1}"#, #"{"a":1,}"#, #"{"a":1 "b":2}"#, "[1 2]",
            "NaN", "Infinity", "-Infinity", "'a'",
        ]
        for text in bad {
            XCTAssertNil(parse(text), "'\(text)' parsed as \(String(describing: parse(text)))")
        }
    }

    /// JSON allows only \" \\ \/ \b \f \n \r \t and \u followed by exactly four hex digits.
    func testInvalidEscapesAreRejected() {
        for text in [#""\x""#, #""\a""#, #""\'""#, #""\0""#, #""\u+041""#, #""\u-000""#] {
            XCTAssertNil(parse(text), "'\(text)' parsed as \(String(describing: parse(text)))")
        }
    }

    func testNestingDepthIsLimited() {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        XCTAssertNotNil(parse(ok))
        let deep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        XCTAssertNil(parse(deep))
        // A hostile prefix is refused, not a stack overflow.
        XCTAssertNil(parse(String(repeating: "[", count: 100_000)))
        XCTAssertNil(parse(String(repeating: #"{"a":"#, count: 100_000)))
    }
}

final class JSONRawTests: XCTestCase {
    private let text = #"{"a":1,"b":[true,null],"c":"x\n"}"#
    private var parsed: JSON { .object([("a", .int(1)), ("b", .array([.bool(true), .null])), ("c", .string("x\n"))]) }

    func testRawEqualsItsParsedValueBothWays() {
        let raw = JSON.raw(ArraySlice(text.utf8))
        XCTAssertEqual(raw, parsed)
        XCTAssertEqual(parsed, raw)
        XCTAssertEqual(JSON.raw(ArraySlice(" { \"a\" : 1 , \"b\" : [ true , null ] , \"c\" : \"x\\n\" } ".utf8)), parsed)
        XCTAssertEqual(JSON.array([.raw(ArraySlice(text.utf8)), .int(2)]), .array([parsed, .int(2)]))
        XCTAssertEqual(JSON.object([("p", parsed)]), .object([("p", .raw(ArraySlice(text.utf8)))]))
        XCTAssertNotEqual(raw, .object([("a", .int(1))]))
        XCTAssertNotEqual(JSON.raw(ArraySlice("{bad".utf8)), .null)
        XCTAssertNotEqual(JSON.null, .raw(ArraySlice("{bad".utf8)))
        XCTAssertEqual(JSON.raw(ArraySlice("null".utf8)), .null)
    }

    func testSubscriptOnRaw() {
        let raw = JSON.raw(ArraySlice(text.utf8))
        XCTAssertEqual(raw["a"], .int(1))
        XCTAssertEqual(raw["b"], .array([.bool(true), .null]))
        XCTAssertEqual(raw["c"], .string("x\n"))
        XCTAssertNil(raw["d"])
        XCTAssertNil(JSON.raw(ArraySlice("[1]".utf8))["a"])
        XCTAssertNil(JSON.raw(ArraySlice("{bad".utf8))["a"])
        XCTAssertNil(JSON.int(1)["a"])
        XCTAssertNil(JSON.array([.object([("a", .int(1))])])["a"])
    }

    func testRawFromTheMiddleOfABuffer() {
        // An ArraySlice whose indices do not start at 0.
        let buffer = Array(#"xx{"k":[1,2]}yy"#.utf8)
        let raw = JSON.raw(buffer[2..<13])
        XCTAssertEqual(raw, .object([("k", .array([.int(1), .int(2)]))]))
        XCTAssertEqual(raw["k"], .array([.int(1), .int(2)]))
        XCTAssertEqual(JSON.array([raw]).serialized, #"[{"k":[1,2]}]"#)
    }

    func testRawIsCopiedOutAsItIs() {
        let spaced = #"{ "a" : 1 }"#
        XCTAssertEqual(JSON.object([("payload", .raw(ArraySlice(spaced.utf8))), ("n", .int(2))]).serialized,
                       #"{"payload":{ "a" : 1 },"n":2}"#)
    }
}

final class Base64Tests: XCTestCase {
    func testRFC4648Vectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            XCTAssertEqual(Array(plain.utf8).base64, encoded, plain)
        }
    }

    func testMatchesFoundationForShortLengths() {
        let seed: UInt64 = 20_240_601
        for n in 0...20 {
            let bytes = SplitMix64.bytes(n, seed: seed &+ UInt64(n))
            XCTAssertEqual(bytes.base64, Data(bytes).base64EncodedString(), "seed \(seed) + \(n), length \(n): \(bytes)")
        }
        let all = (0...255).map(UInt8.init)
        XCTAssertEqual(all.base64, Data(all).base64EncodedString())
        XCTAssertEqual([UInt8](repeating: 0xFF, count: 5).base64, "//////8=")
    }

    func testMatchesFoundationFor1000RandomBytes() {
        let seed: UInt64 = 0xB64_B64_B64
        let bytes = SplitMix64.bytes(1000, seed: seed)
        let encoded = bytes.base64
        XCTAssertEqual(encoded, Data(bytes).base64EncodedString(), "seed \(seed)")
        XCTAssertEqual(encoded.count, 1336, "seed \(seed)")
        XCTAssertEqual(Data(base64Encoded: encoded).map { [UInt8]($0) }, bytes, "seed \(seed)")
    }

    func testEncodeAppendsToTheBuffer() {
        var out = Array("b64:".utf8)
        Base64.encode(Array("foob".utf8), to: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "b64:Zm9vYg==")
    }
}
