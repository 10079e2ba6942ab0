import Dispatch
import Foundation
import ScanCore
import XCTest

/// Issue 20, item 1: the decode plan of one image, without threads.
final class DecodePlanTests: XCTestCase {
    /// A decoder that reads one fixed code wherever the image is at least `minWidth` wide (a
    /// small code only the full-size pass resolves), and counts its calls by image width.
    final class SizedDecoder: FrameDecoder, @unchecked Sendable {
        let text: String, minWidth: Int
        var widths: [Int] = []
        init(_ text: String, minWidth: Int) { self.text = text; self.minWidth = minWidth }
        func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] {
            widths.append(image.width)
            guard image.width >= minWidth else { return [] }
            return [Symbol(symbology: Symbology(rawValue: "datamatrix"), bytes: Array(text.utf8),
                           points: [Point(x: 10, y: 10), Point(x: 40, y: 10), Point(x: 40, y: 40), Point(x: 10, y: 40)])]
        }
    }

    /// A 3000x2000 frame file: over the pyramid's 2.5 MP, so it is decoded small first.
    func file() -> SourceItem {
        var pixels = [UInt8](repeating: 255, count: 3000 * 2000)
        for i in stride(from: 0, to: pixels.count, by: 7) { pixels[i] = 0 }
        let pgm = Data("P5 3000 2000 255\n".utf8) + Data(pixels)
        return .file(.data(pgm, name: "tray.pgm"))
    }

    func plan(_ decoders: [SizedDecoder], budget: TimeInterval? = nil) -> DecodePlan {
        var list = DecoderList()
        for d in decoders { list.addWorker { d } }
        return DecodePlan(list: list, stillOrder: .together, timeBudget: budget)
    }

    /// A small code found in the small pass does not end the search: a code that only the full
    /// size resolves is read too.
    func testASmallCodeFoundSmallDoesNotStopTheSearch() throws {
        let big = SizedDecoder("big", minWidth: 0), small = SizedDecoder("small", minWidth: 2000)
        let frame = plan([big, small]).decode(file(), arrival: .now())
        let texts = try frame.outcome.get().map(\.text).sorted()
        XCTAssertEqual(texts, ["big", "small"])
        XCTAssertEqual(big.widths, [750, 3000, 1500], "the small pass (1/4), full size, then 1/2")
    }

    /// A code that binarizes well only between the small pass and full size is read at 1/2, with
    /// its points in full-size pixels; `fast` (the fallback order) skips that level.
    func testTheHalfSizeLevelReadsWhatNeitherOtherDoes() throws {
        final class HalfOnly: FrameDecoder, @unchecked Sendable {
            func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] {
                guard image.width == 1500 else { return [] }
                return [Symbol(symbology: Symbology(rawValue: "datamatrix"), bytes: Array("half".utf8),
                               points: [Point(x: 100, y: 100), Point(x: 130, y: 100), Point(x: 130, y: 130), Point(x: 100, y: 130)])]
            }
        }
        var list = DecoderList()
        list.addWorker { HalfOnly() }
        let symbols = try DecodePlan(list: list, stillOrder: .recheck).decode(file(), arrival: .now()).outcome.get()
        XCTAssertEqual(symbols.map(\.text), ["half"])
        XCTAssertEqual(symbols.first?.bbox, Box(x: 201, y: 201, width: 61, height: 61), "each pixel at 1/2 stands for the centre of its 2x2 block")
        XCTAssertEqual(try DecodePlan(list: list, stillOrder: .fallback).decode(file(), arrival: .now()).outcome.get().count, 0)
    }

    /// A code that fills much of the image, found small, is the answer: no full-size pass.
    func testALargeCodeFoundSmallIsTheAnswer() throws {
        final class Filling: FrameDecoder, @unchecked Sendable {
            var widths: [Int] = []
            func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] {
                widths.append(image.width)
                let w = image.width, h = image.height
                return [Symbol(symbology: Symbology(rawValue: "qrcode"), bytes: Array("whole".utf8),
                               points: [Point(x: 0, y: 0), Point(x: w - 1, y: 0), Point(x: w - 1, y: h - 1), Point(x: 0, y: h - 1)])]
            }
        }
        let d = Filling()
        var list = DecoderList()
        list.addWorker { d }
        let frame = DecodePlan(list: list, stillOrder: .together).decode(file(), arrival: .now())
        XCTAssertEqual(try frame.outcome.get().map(\.text), ["whole"])
        XCTAssertEqual(d.widths, [750], "the small pass only")
    }

    /// A spent time budget skips the passes left, and the record's warnings say so.
    func testASpentTimeBudgetSkipsTheRestAndSaysSo() throws {
        final class Slow: FrameDecoder, @unchecked Sendable {
            var calls = 0
            func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] {
                calls += 1
                Thread.sleep(forTimeInterval: 0.3)
                return []
            }
        }
        let d = Slow()
        var list = DecoderList()
        list.addWorker { d }
        let frame = DecodePlan(list: list, stillOrder: .together, timeBudget: 0.1).decode(file(), arrival: .now())
        XCTAssertEqual(d.calls, 1, "the small pass ran, the full-size pass was skipped")
        XCTAssertEqual(frame.info.warnings,
                       ["time budget of 0.1 s per image spent: the full-size pass and what follows skipped (--time-budget)"])
    }
}

/// Issue 20, item 4: two EAN/UPC readings of one place that disagree.
final class EANConflictTests: XCTestCase {
    func symbol(_ symbology: String, _ text: String, decoder: String, at x: Int) -> Symbol {
        var s = Symbol(symbology: Symbology(rawValue: symbology), bytes: Array(text.utf8),
                       points: [Point(x: x, y: 10), Point(x: x + 200, y: 10), Point(x: x + 200, y: 110), Point(x: x, y: 110)])
        s.decoder = decoder
        return s
    }

    func testTheReadingTwoDecodersAgreeOnStaysAndAWrongOneGoes() {
        // Foto(794) of Arte-Lab: zxing-cpp's EAN-8 inside the EAN-13 both decoders read.
        let both = symbol("ean13", "8005235212442", decoder: "zbar+zxing", at: 0)
        let part = symbol("ean8", "10052358", decoder: "zxing", at: 40)
        XCTAssertEqual(Symbol.resolvingEANConflicts([both, part]).map(\.text), ["8005235212442"])
    }

    func testTwoLoneReadingsThatDisagreeBothGo() {
        // Foto(512): zbar's 8083882032262 and a zxing-cpp retry's 8023222032262 at one place.
        let zbar = symbol("ean13", "8083882032262", decoder: "zbar", at: 0)
        let zxing = symbol("ean13", "8023222032262", decoder: "zxing", at: 5)
        XCTAssertEqual(Symbol.resolvingEANConflicts([zbar, zxing]), [])
    }

    /// One binarizer's reading on many more scan lines than the other's stands: Foto(512)'s
    /// zxing-cpp retry read 8023222032262 (printed) on 39 lines, zbar 8083882032262 on 4.
    func testAReadingOnManyMoreLinesOfTheOtherBinarizerStands() {
        func lines(_ s: Symbol, _ n: Int) -> Symbol { var s = s; s.quality = n; s.linesAtFullSize = n; return s }
        let zbar = symbol("ean13", "8083882032262", decoder: "zbar", at: 0)
        let zxing = symbol("ean13", "8023222032262", decoder: "zxing", at: 5)
        XCTAssertEqual(Symbol.resolvingEANConflicts([lines(zbar, 4), lines(zxing, 39)]).map(\.text), ["8023222032262"])
        XCTAssertEqual(Symbol.resolvingEANConflicts([lines(zxing, 2), lines(zbar, 37)]).map(\.text), ["8083882032262"])
        XCTAssertEqual(Symbol.resolvingEANConflicts([lines(zbar, 6), lines(zxing, 10)]), [], "not four times as many: both go")
        XCTAssertEqual(Symbol.resolvingEANConflicts([lines(zbar, 1), lines(zxing, 7)]), [], "under 8 lines: both go")
        // Lines counted on a reduced copy (the small pass of a large photo, here at 1/2) or an
        // enlarged one are not weighed against full-size ones: both go.
        XCTAssertEqual(Symbol.resolvingEANConflicts([lines(zbar, 4).scaled(by: 2), lines(zxing, 39)]), [])
        let merged = Symbol.merged([lines(zbar, 4).scaled(by: 2), lines(zbar, 3)])
        XCTAssertEqual(merged.map(\.linesAtFullSize), [3], "a full-size pass's count goes with the merged reading")
        XCTAssertEqual(Symbol.resolvingEANConflicts(merged + [lines(zxing, 39)]).map(\.text), ["8023222032262"])
        // One decoder's two readings are not weighed so (precision-check seed 5's ean13-195-small:
        // zbar's printed digits on 4 lines, others on 19), nor the gray-level reader's votes.
        let zbar2 = symbol("ean13", "8023222032262", decoder: "zbar", at: 5)
        XCTAssertEqual(Symbol.resolvingEANConflicts([lines(zbar, 19), lines(zbar2, 4)]), [])
        let gray = symbol("ean13", "8023222032262", decoder: "gray", at: 5)
        XCTAssertEqual(Symbol.resolvingEANConflicts([lines(zbar, 40), lines(gray, 3)]), [])
    }

    /// A UPC-E or EAN-8 inside an EAN-13 or UPC-A disagreeing with it was read from part of it:
    /// it goes (zxing/ upca-2/38.png: zbar's UPC-E 02212166 on zxing-cpp's UPC-A 012546619592
    /// took both away), unless only it has a second decoder's word. Beside it, it is another code.
    func testAShortCodeInsideALongOneGoes() {
        let upca = symbol("upca", "012546619592", decoder: "zxing", at: 0)
        let upce = symbol("upce", "02212166", decoder: "zbar", at: 60)
        XCTAssertEqual(Symbol.resolvingEANConflicts([upce, upca]).map(\.text), ["012546619592"])
        let ean8 = symbol("ean8", "10052358", decoder: "zxing", at: 40)
        XCTAssertEqual(Symbol.resolvingEANConflicts([upca, ean8]).map(\.text), ["012546619592"])
        // Only the short one has a second decoder's word: it stays, the long one goes.
        let confirmed = symbol("upce", "02212166", decoder: "zbar+zxing", at: 60)
        XCTAssertEqual(Symbol.resolvingEANConflicts([confirmed, upca]).map(\.text), ["02212166"])
        // A long code outlined by one scan line stands for its bars 0.3 of its length either side:
        // zbar's UPC-E 42 pixels above zxing-cpp's one-row UPC-A was read from its right half.
        var row = Symbol(symbology: Symbology(rawValue: "upca"), bytes: Array("802308089394".utf8),
                         points: [Point(x: 34, y: 83), Point(x: 187, y: 83), Point(x: 187, y: 85), Point(x: 34, y: 85)])
        row.decoder = "zxing"
        var above = Symbol(symbology: Symbology(rawValue: "upce"), bytes: Array("04248806".utf8),
                           points: [Point(x: 109, y: 18), Point(x: 189, y: 18), Point(x: 189, y: 66), Point(x: 109, y: 66)])
        above.decoder = "zbar"
        XCTAssertEqual(Symbol.resolvingEANConflicts([above, row]).map(\.text), ["802308089394"])
        // Both confirmed: an EAN-13 and a UPC-E of a stack are two codes.
        row.decoder = "zbar+zxing"
        above.decoder = "zbar+zxing"
        XCTAssertEqual(Symbol.resolvingEANConflicts([above, row]).map(\.text), ["04248806", "802308089394"])
        let beside = symbol("upce", "02212166", decoder: "zbar", at: 170)
        XCTAssertEqual(Symbol.resolvingEANConflicts([upca, beside]), [], "overlapping, centre outside: both go as before")
    }

    /// One code read on two scan lines far apart: thin boxes that do not overlap but cover the same
    /// stretch of bars (a noisy low-contrast EAN-13: 5376397103217 right, 9376325103117 74 pixels
    /// lower). Both go. A second code of a stack, 0.9 of a code length lower, is another code.
    func testTwoReadingsAcrossTheSameBarsDisagree() {
        func line(_ text: String, x: Int, y: Int, width: Int = 390) -> Symbol {
            var s = Symbol(symbology: Symbology(rawValue: "ean13"), bytes: Array(text.utf8),
                           points: [Point(x: x, y: y), Point(x: x + width, y: y), Point(x: x + width, y: y + 20), Point(x: x, y: y + 20)])
            s.decoder = "zxing"
            return s
        }
        let right = line("5376397103217", x: 90, y: 112), wrong = line("9376325103117", x: 102, y: 186)
        XCTAssertEqual(Symbol.resolvingEANConflicts([right, wrong]), [])
        let below = line("4006381333931", x: 90, y: 112 + 351)
        XCTAssertEqual(Symbol.resolvingEANConflicts([right, below]).map(\.text), ["5376397103217", "4006381333931"])
        // Two codes of a stack with short bars, 0.43 of a length apart, each read by both decoders:
        // two codes (a review helper's pair of EAN-13s 16 modules apart used to lose both).
        var top = line("5901234123457", x: 16, y: 16, width: 380), under = line("4006381333931", x: 16, y: 180, width: 380)
        top.decoder = "zbar+zxing"
        under.decoder = "zbar+zxing"
        XCTAssertEqual(Symbol.resolvingEANConflicts([top, under]).map(\.text), ["5901234123457", "4006381333931"])
        // One confirmed, the other not, across the same bars: the confirmed one stays (zbar's one-row
        // 7710712556216 under the 8710759556216 both decoders read).
        var confirmed = line("8710759556216", x: 54, y: 100, width: 235), lone = line("7710712556216", x: 166, y: 144, width: 121)
        confirmed.decoder = "zbar+zxing"
        lone.decoder = "zbar"
        XCTAssertEqual(Symbol.resolvingEANConflicts([confirmed, lone]).map(\.text), ["8710759556216"])
        // Upright codes the same way round.
        let up = Symbol(symbology: Symbology(rawValue: "ean13"), bytes: Array("5376397103217".utf8),
                        points: [Point(x: 100, y: 50), Point(x: 120, y: 50), Point(x: 120, y: 440), Point(x: 100, y: 440)])
        let upWrong = Symbol(symbology: Symbology(rawValue: "ean13"), bytes: Array("9376325103117".utf8),
                             points: [Point(x: 170, y: 60), Point(x: 190, y: 60), Point(x: 190, y: 445), Point(x: 170, y: 445)])
        XCTAssertEqual(Symbol.resolvingEANConflicts([up, upWrong]), [])
    }

    func testAgreeingOrDistantCodesStay() {
        let upca = symbol("upca", "036000291452", decoder: "zbar", at: 0)
        let ean = symbol("ean13", "0036000291452", decoder: "zxing", at: 0)
        let other = symbol("ean13", "5901234123457", decoder: "zxing", at: 1000)
        let qr = symbol("qrcode", "hello", decoder: "zxing", at: 0)
        XCTAssertEqual(Symbol.resolvingEANConflicts([upca, ean, other, qr]).count, 4)
    }

    /// One product code read as a box of its bars by the gray-level reader and on one row beside
    /// that box by zxing-cpp is one record (the row stands for its bars up to 0.3 of its length
    /// either side); the same digits a row 0.35 of a length away, or on another stretch, are
    /// another code. The boxes are those of the blurred UPC-E in scripts/make-fixtures
    /// (upce-blur-0x2.5.jpg) and of Arte-Lab noaf Foto(713).jpg.
    func testOneCodeReadAsABoxAndAsARowBesideItIsOneRecord() {
        func reading(_ symbology: String, _ text: String, _ decoder: String, x: Int, y: Int, width: Int, height: Int) -> Symbol {
            var s = Symbol(symbology: Symbology(rawValue: symbology), bytes: Array(text.utf8),
                           points: [Point(x: x, y: y), Point(x: x + width, y: y), Point(x: x + width, y: y + height), Point(x: x, y: y + height)])
            s.decoder = decoder
            return s
        }
        let gray = reading("upce", "04252614", "gray", x: 49, y: 42, width: 124, height: 78)
        let row = reading("upce", "04252614", "zxing", x: 50, y: 139, width: 123, height: 3)
        XCTAssertEqual(Symbol.merged([gray, row]).map(\.decoder), ["zxing+gray"])
        XCTAssertEqual(Symbol.merged([row, gray]).map(\.decoder), ["zxing+gray"])
        let box = reading("ean13", "8002330024451", "gray", x: 468, y: 384, width: 268, height: 120)
        let above = reading("ean13", "8002330024451", "zxing", x: 470, y: 348, width: 266, height: 4)
        XCTAssertEqual(Symbol.merged([box, above]).count, 1)
        // 0.35 of the row's length below the box, or half the row beside it: two codes.
        let far = reading("upce", "04252614", "zxing", x: 50, y: 120 + 44, width: 123, height: 3)
        XCTAssertEqual(Symbol.merged([gray, far]).count, 2)
        let beside = reading("upce", "04252614", "zxing", x: 49 + 124 + 20, y: 100, width: 123, height: 3)
        XCTAssertEqual(Symbol.merged([gray, beside]).count, 2)
        // Two identical labels with short bars stacked 62 pixels apart, each a gray box 288 by 59
        // (several rows, not one): two codes (a review helper's find).
        let upper = reading("ean13", "4006381333931", "gray", x: 40, y: 61, width: 288, height: 59)
        let lower = reading("ean13", "4006381333931", "gray", x: 40, y: 181, width: 288, height: 59)
        XCTAssertEqual(Symbol.merged([upper, lower]).count, 2)
        // Not for other digits: that is a conflict, settled elsewhere (resolvingEANConflicts).
        let other = reading("upce", "04252621", "zxing", x: 50, y: 139, width: 123, height: 3)
        XCTAssertEqual(Symbol.merged([gray, other]).count, 2)
    }

    /// A decoder that reads fixed symbols on every image.
    final class FixedDecoder: FrameDecoder, @unchecked Sendable {
        let symbols: [Symbol]
        init(_ symbols: [Symbol]) { self.symbols = symbols }
        func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] { symbols }
    }

    /// balanced's recheck (zxing-cpp read only Code 128 here, so zbar runs too) keeps zbar's
    /// Code 128 codes elsewhere and its agreeing reading, and leaves out its other text at the
    /// place of a code read (two characters wrong) and its readings of other symbologies (a
    /// rotated Code 128 taken for ITF).
    func testARecheckAddsOnlyMoreCodesOfTheKindsRead() throws {
        let read = symbol("code128", "MRLP6-SRX-7Hb7", decoder: "zxing", at: 0)
        let zbar = [symbol("code128", "MRLP6#SRX-7H?7", decoder: "zbar", at: 20), symbol("code128", "MRLP6-SRX-7Hb7", decoder: "zbar", at: 5),
                    symbol("itf", "112569", decoder: "zbar", at: 600), symbol("code128", "2241", decoder: "zbar", at: 1000)]
        var list = DecoderList()
        list.addWorker { FixedDecoder([read]) }
        list.addWorker(fallback: true) { FixedDecoder(zbar) }
        list.recheck = ["code128"]
        let pgm = Data("P5 64 64 255\n".utf8) + Data([UInt8](repeating: 255, count: 64 * 64))
        let frame = DecodePlan(list: list, stillOrder: .recheck).decode(.file(.data(pgm, name: "label.pgm")), arrival: .now())
        let symbols = try frame.outcome.get()
        XCTAssertEqual(symbols.map { "\($0.text) \($0.decoder)" }.sorted(), ["2241 zbar", "MRLP6-SRX-7Hb7 zbar+zxing"])
    }

    /// balanced's second opinion reads the place of each code read (its box grown by three
    /// quarters of its longer side plus 8 pixels each way, inside the image), not the whole image:
    /// its readings come back in the image's pixels, and a UPC-E reaching the place's edge inside
    /// the image (part of a code the place cuts) is left out; one well inside stays.
    func testTheSecondOpinionReadsAroundEachCode() throws {
        final class Around: FrameDecoder, @unchecked Sendable {
            var sizes: [String] = []
            func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] {
                sizes.append("\(image.width)x\(image.height)")
                func at(_ symbology: String, _ text: String, x: Int, y: Int, width: Int, height: Int) -> Symbol {
                    var s = Symbol(symbology: Symbology(rawValue: symbology), bytes: Array(text.utf8),
                                   points: [Point(x: x, y: y), Point(x: x + width, y: y), Point(x: x + width, y: y + height), Point(x: x, y: y + height)])
                    s.decoder = "zbar"
                    return s
                }
                // In the place's pixels: the code read, a UPC-E inside, one at the place's right edge.
                return [at("code128", "MRLP6-SRX-7Hb7", x: 158, y: 10, width: 200, height: 100),
                        at("upce", "04252614", x: 380, y: 150, width: 100, height: 50),
                        at("upce", "01234565", x: image.width - 100, y: 150, width: 100, height: 50)]
            }
        }
        let around = Around()
        var list = DecoderList()
        let read0 = symbol("code128", "MRLP6-SRX-7Hb7", decoder: "zxing", at: 500)
        list.addWorker { FixedDecoder([read0]) }
        list.addWorker(fallback: true) { around }
        list.recheck = ["code128", "upce"]
        let pgm = Data("P5 2000 1000 255\n".utf8) + Data([UInt8](repeating: 255, count: 2000 * 1000))
        let read = try DecodePlan(list: list, stillOrder: .recheck).decode(.file(.data(pgm, name: "label.pgm")), arrival: .now()).outcome.get()
        // The code's box is pixels 500-700 by 10-110 (201 by 101): the place 342-858 by 0-268.
        XCTAssertEqual(around.sizes, ["517x269"])
        XCTAssertEqual(read.map { "\($0.symbology.rawValue) \($0.text) \($0.decoder) \($0.bbox.x),\($0.bbox.y)" }.sorted(),
                       ["code128 MRLP6-SRX-7Hb7 zbar+zxing 500,10", "upce 04252614 zbar 722,150"])
    }

    /// balanced, where the main decoders found nothing: the gray-level reader before the fallback
    /// ones (zbar), which run only where it read nothing either; a zbar misread then cannot take
    /// the gray-level reader's true reading with it as a conflict.
    func testTheFallbackDecodersWaitForTheGrayLevelReader() throws {
        final class Counting: FrameDecoder, @unchecked Sendable {
            let symbols: [Symbol]
            var calls = 0
            init(_ symbols: [Symbol]) { self.symbols = symbols }
            func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] { calls += 1; return symbols }
        }
        func plan(_ fallback: Counting) -> DecodePlan {
            var list = DecoderList()
            list.addWorker { FixedDecoder([]) }
            list.addWorker(fallback: true) { fallback }
            list.grayLinear = GrayLinear(symbologies: Symbology.defaultSet)
            return DecodePlan(list: list, stillOrder: .recheck)
        }
        // A blurred EAN-13 the gray-level reader reads (zbar and zxing-cpp read nothing of it).
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Linear/blurred/ean13-blur-small-q30.jpg", withExtension: nil))
        let blurred = SourceItem.file(.data(try Data(contentsOf: url), name: "blurred.jpg"))
        let misread = Counting([symbol("ean13", "5901234723457", decoder: "zbar", at: 0)])
        let read = try plan(misread).decode(blurred, arrival: .now()).outcome.get()
        XCTAssertEqual(read.map { "\($0.text) \($0.decoder)" }, ["5901234123457 gray"])
        XCTAssertEqual(misread.calls, 0)
        // Where the gray-level reader reads nothing, the fallback decoders run and their readings stand.
        let code = Counting([symbol("code128", "SCANLUA-42", decoder: "zbar", at: 0)])
        let pgm = Data("P5 64 64 255\n".utf8) + Data([UInt8](repeating: 255, count: 64 * 64))
        let blank = try plan(code).decode(.file(.data(pgm, name: "blank.pgm")), arrival: .now()).outcome.get()
        XCTAssertEqual(blank.map { "\($0.text) \($0.decoder)" }, ["SCANLUA-42 zbar"])
        XCTAssertEqual(code.calls, 1)
    }

    /// Where zbar was left out after a gray-level reading, it still reads the place beside the
    /// code for an EAN-2/EAN-5 add-on (it alone reads them), which is attached to the code; with
    /// --roi, only inside the region.
    func testAnAddOnBesideAGrayReadingIsRead() throws {
        final class AddOns: LinearDecoder, @unchecked Sendable {
            var calls = 0, addOnCalls = 0, widths: [Int] = []
            func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] { calls += 1; return [] }
            func decodeLinear(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] { calls += 1; return [] }
            // An EAN-2 at the right end of the place it is given, on the code's rows.
            func decodeAddOns(_ image: GrayImage) -> [Symbol] {
                addOnCalls += 1
                widths.append(image.width)
                let x = image.width - 30, y = image.height / 2
                var s = Symbol(symbology: Symbology(rawValue: "ean2"), bytes: Array("12".utf8),
                               points: [Point(x: x, y: y - 5), Point(x: x + 20, y: y - 5), Point(x: x + 20, y: y + 5), Point(x: x, y: y + 5)])
                s.decoder = "zbar"
                return [s]
            }
        }
        func list(_ zbar: AddOns) -> DecoderList {
            var list = DecoderList()
            list.addWorker { FixedDecoder([]) }
            list.addWorker(fallback: true) { zbar }
            list.grayLinear = GrayLinear(symbologies: Symbology.defaultSet)
            return list
        }
        // The code is 231 pixels long at x 54 in a 329-pixel-wide image: the place beside it
        // (three quarters of its length each way) is the image's whole width.
        let url = try XCTUnwrap(Bundle.module.url(forResource: "Linear/blurred/ean13-blur-small-q30.jpg", withExtension: nil))
        let file = SourceItem.file(.data(try Data(contentsOf: url), name: "blurred.jpg"))
        let zbar = AddOns()
        let read = try DecodePlan(list: list(zbar), stillOrder: .recheck).decode(file, arrival: .now()).outcome.get()
        XCTAssertEqual(read.map { "\($0.symbology.rawValue) \($0.text) \($0.addon ?? "-")" }, ["ean13 5901234123457 12", "ean2 12 -"])
        XCTAssertEqual(zbar.calls, 0, "no whole-image zbar pass after a gray-level reading")
        XCTAssertEqual(zbar.addOnCalls, 1)
        XCTAssertEqual(zbar.widths, [329])
        // Inside --roi 20,20,280,150: the place ends at the region's edge.
        let inRegion = AddOns()
        let region = try Region.parse("20,20,280,150").get()
        let regionRead = try DecodePlan(list: list(inRegion), region: region, stillOrder: .recheck).decode(file, arrival: .now()).outcome.get()
        XCTAssertEqual(regionRead.first?.text, "5901234123457")
        XCTAssertEqual(inRegion.widths, [280])
    }

    /// thorough reads at least what balanced reads: balanced's plan (the list's baseline) runs
    /// first, its codes stay, and a thorough EAN/UPC reading that disagrees with one of its at the
    /// same place is left out (balanced's stands); thorough's other codes are added.
    func testThoroughKeepsWhatBalancedReadsAndAddsTheRest() throws {
        let right = symbol("ean13", "8023222032262", decoder: "zxing", at: 0)
        let wrong = symbol("upce", "07805411", decoder: "zxing", at: 10)
        let more = symbol("qrcode", "extra", decoder: "zxing", at: 1000)
        var balanced = DecoderList()
        balanced.addWorker { FixedDecoder([right]) }
        var thorough = DecoderList()
        thorough.addWorker { FixedDecoder([wrong, more]) }
        thorough.baseline = [balanced]
        let pgm = Data("P5 64 64 255\n".utf8) + Data([UInt8](repeating: 255, count: 64 * 64))
        let frame = DecodePlan(list: thorough, stillOrder: .together).decode(.file(.data(pgm, name: "photo.pgm")), arrival: .now())
        guard case .success(let symbols) = frame.outcome else { return XCTFail("\(frame.outcome)") }
        XCTAssertEqual(symbols.map(\.text), ["8023222032262", "extra"])
        // A video frame gets thorough's own plan only.
        let video = DecodePlan(list: thorough, stillOrder: .together)
            .decode(.frame(Frame(info: FrameInfo(source: "cam"), image: GrayImage(width: 64, height: 64, pixels: [UInt8](repeating: 255, count: 4096)))),
                    arrival: .now())
        guard case .success(let own) = video.outcome else { return XCTFail("\(video.outcome)") }
        XCTAssertEqual(own.map(\.text), ["07805411", "extra"])
    }
}
