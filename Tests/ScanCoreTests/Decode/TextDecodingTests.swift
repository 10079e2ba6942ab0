import XCTest
@testable import ScanCore

final class TextDecodingTests: XCTestCase {
    private func bytes(_ text: String, _ charset: String) -> [UInt8] { try! Iconv.convert(Array(text.utf8), from: "UTF-8", to: charset).get() }

    func testValidUTF8IsKept() {
        XCTAssertEqual(TextDecoding.decode(Array("口罩 ok".utf8)).charset, "utf-8")
        XCTAssertEqual(TextDecoding.decode(Array("ASCII".utf8)).text, "ASCII")
        XCTAssertEqual(TextDecoding.decode([]).charset, "utf-8")
    }

    func testChineseAndJapaneseCharsets() {
        let cases: [(String, String)] = [
            ("乾電池:1:105:口罩:1:210:牛奶:1:25", "BIG5"),
            ("味味一品原汁珍味牛肉麵", "BIG5"),
            ("你好世界，简体中文", "GB18030"),
            ("ありがとうございます", "SHIFT_JIS"),
            ("東京都千代田区", "SHIFT_JIS"),
            ("*ﾃﾞｻﾞｲﾝQR*", "SHIFT_JIS"),  // half-width katakana, as in the corpus's qrcode-2/18
            ("九五無鉛", "BIG5"),
            // Short GB18030 texts whose bytes are valid Big5 too: frequent simplified hanzi decide.
            ("你好", "GB18030"), ("北京", "GB18030"), ("上海市", "GB18030"), ("中国银行", "GB18030"),
            // and short Big5 texts whose bytes are valid GB18030.
            ("牛奶", "BIG5"), ("臺北", "BIG5"), ("發票", "BIG5"), ("統一", "BIG5"),
        ]
        for (text, charset) in cases {
            let decoded = TextDecoding.decode(bytes(text, charset))
            XCTAssertEqual(decoded.text, text, charset)
            XCTAssertEqual(decoded.charset, charset == "SHIFT_JIS" ? "shift_jis" : charset.lowercased(), text)
        }
    }

    func testLatin1WordsAreNotReadAsBig5() {
        // zbar reads these as Big5 (research/payloads.md §8.3: "Fran蔞is", "Z羹rich").
        for text in ["François", "Zürich", "Grüße aus Köln", "Crème brûlée"] {
            let decoded = TextDecoding.decode(bytes(text, "ISO-8859-1"))
            XCTAssertEqual(decoded.charset, "iso-8859-1", text)
            XCTAssertEqual(decoded.text, text)
        }
    }

    func testControlBytesMeanBinary() {
        let d = TextDecoding.decode([0x00, 0x41, 0xFF])
        XCTAssertEqual(d.charset, "binary")
        XCTAssertEqual(d.text, "\u{0}A\u{FF}")
        // GS1 group separators are text, not binary.
        XCTAssertEqual(TextDecoding.decode(Array("]d2\u{1D}10ABC".utf8)).charset, "utf-8")
    }
}
