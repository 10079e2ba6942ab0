import Foundation
import ScanCore
import XCTest

/// Issue 20: the gray-level EAN/UPC reader. Fixtures from scripts/make-fixtures (zint, then
/// ImageMagick's Gaussian and motion blur, downscale and JPEG quality 30).
final class GrayLinearTests: XCTestCase {
    let all = Symbology.defaultSet
    var gray: GrayLinear { GrayLinear(symbologies: all) }

    /// Tests/ScanCoreTests/Linear: out of Fixtures/, which the CLI tests scan whole.
    func linearPath(_ name: String) -> String { Bundle.module.url(forResource: "Linear/" + name, withExtension: nil)!.path }
    func linear(_ name: String) throws -> GrayImage { try ImageLoader().load(path: linearPath(name)) }

    func texts(_ symbols: [Symbol]) -> [String] { symbols.map { "\($0.symbology.rawValue) \($0.text)" }.sorted() }

    /// Blurred codes zbar and zxing-cpp read nothing of are read with their exact digits.
    func testReadsBlurredCodesTheBinarizingReadersLose() throws {
        for (name, expected) in [("blurred/ean13-blur-small-q30.jpg", "ean13 5901234123457"),
                                 ("blurred/upca-blur-small-q30.jpg", "upca 036000291452"),
                                 ("blurred/upca-motion.png", "upca 036000291452"),
                                 ("blurred/upca-rotated-blurred.jpg", "upca 036000291452"),
                                 // Modules narrowing along the code (a curved or slanted surface): read as bent (GrayLinear.Bend).
                                 ("blurred/ean13-bent.jpg", "ean13 4006381333931"),
                                 ("blurred/ean13-slanted.jpg", "ean13 4006381333931"),
                                 // Two strong lines with 4 ambiguous digits each (1s, 7s, 8s): strong, so they count.
                                 ("blurred/upca-motion-ambiguous.jpg", "upca 473187964999"),
                                 // EAN-8: read on lines where no EAN-13 fits.
                                 ("blurred/ean8-blur-small-q30.jpg", "ean8 96385074"),
                                 ("blurred/ean8-motion.png", "ean8 96385074"),
                                 // UPC-E: its 51 modules fit an EAN-13's 95 at half the width (0.95): read
                                 // where it matches clearly better than that.
                                 ("blurred/upce-blur-small-q30.jpg", "upce 04252614"),
                                 ("blurred/upce-motion.png", "upce 04252614"),
                                 // Under a pixel per module, tilted: read from the rows projected together.
                                 ("blurred/ean13-small-tilted.jpg", "ean13 4006381333931"),
                                 ("blurred/upca-small-tilted.jpg", "upca 036000291452")] {
            let image = try linear(name)
            XCTAssertEqual(ZBarDecoder(symbologies: all).decode(image).count, 0, "\(name): zbar reads it, no test of ours")
            XCTAssertEqual(ZXingDecoder(symbologies: all, effort: .balanced).decode(image).count, 0, "\(name): zxing-cpp reads it")
            let read = gray.decode(image)
            XCTAssertEqual(texts(read), [expected], name)
            XCTAssertEqual(read.first?.decoder, "gray")
            XCTAssertEqual(read.first?.points.count, 4, "an outline of the code")
        }
    }

    /// A code under a pixel per module: no single scan line reads it (its bars alias), the
    /// projection of its rows does, along the bar direction it finds (the candidate's is a few
    /// degrees off), with an outline around the code.
    func testReadsCodesUnderAPixelPerModuleFromTheirRowsProjected() throws {
        for (name, expected, degrees) in [("ean13-small-tilted.jpg", "ean13 4006381333931", 3.0), ("upca-small-tilted.jpg", "upca 036000291452", 6.0)] {
            let image = try linear("blurred/" + name)
            let candidates = GrayLinear.candidates(in: image)
            XCTAssertTrue(candidates.allSatisfy { gray.readLines($0, in: image).symbol == nil }, "\(name): the scan lines read it")
            let read = candidates.compactMap { gray.readProjected($0, in: image) }
            XCTAssertEqual(texts(read), [expected], name)
            // The code (95 modules at 0.95 px, about 90 px long, 40 tall) lies about the image's centre, turned by `degrees`.
            guard let s = read.first else { continue }
            XCTAssertEqual(Double(s.bbox.x + s.bbox.width / 2), 200, accuracy: 6, name)
            XCTAssertEqual(Double(s.bbox.y + s.bbox.height / 2), 150, accuracy: 6, name)
            XCTAssertEqual(Double(s.bbox.width), 92, accuracy: 10, name)
            let turn = atan2(Double(s.points[1].y - s.points[0].y), Double(s.points[1].x - s.points[0].x)) * 180 / .pi
            XCTAssertEqual(abs(turn), degrees, accuracy: 1.5, "\(name): the outline follows the code")
        }
    }

    /// The projection's own checks, on EAN-13s drawn here (bars of the standard's L, G and R
    /// patterns, 4x4 samples a pixel, on a white label on a gray card): a valid code at 0.95 px
    /// per module is read; the same bars with a wrong check digit are not; a line's confident
    /// reading of another code vetoes it; a candidate whose direction is a few degrees off is
    /// read at the direction searched (with the search reduced to the candidate's own direction,
    /// these assertions fail); a code at 2.2 px per module is the scan lines' to read.
    func testTheProjectionReadsOnlyAValidCodeOfItsOwnSize() {
        let l = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
        let r = l.map { String($0.map { $0 == "0" ? "1" : "0" }) }, g = r.map { String($0.reversed()) }
        let parity = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]
        func draw(_ code: String, module m: Double, degrees: Double) -> GrayImage {
            let d = code.compactMap(\.wholeNumberValue), first = Array(parity[d[0]])
            let left = (1...6).map { first[$0 - 1] == "L" ? l[d[$0]] : g[d[$0]] }.joined()
            let bars = Array("101" + left + "01010" + (7...12).map { r[d[$0]] }.joined() + "101")
            let w = 400, h = 300, t = degrees * .pi / 180
            var pixels = [UInt8](repeating: 150, count: w * h)
            for y in 0..<h { for x in 0..<w {
                var sum = 0.0
                for sy in 0..<4 { for sx in 0..<4 {
                    let px = Double(x) + (Double(sx) + 0.5) / 4 - 0.5 - 200, py = Double(y) + (Double(sy) + 0.5) / 4 - 0.5 - 150
                    let u = px * cos(t) + py * sin(t) + 47.5 * m, v = -px * sin(t) + py * cos(t)
                    let k = Int((u / m).rounded(.down))
                    if abs(v) < 22 * m + 8, k >= -12, k < 107 { sum += k >= 0 && k < 95 && bars[k] == "1" ? 20 : 235 } else { sum += 150 }
                } }
                pixels[y * w + x] = UInt8(sum / 16)
            } }
            return GrayImage(width: w, height: h, pixels: pixels)
        }
        func projected(_ image: GrayImage, heard: Set<String> = []) -> [String] {
            texts(GrayLinear.candidates(in: image).compactMap { gray.readProjected($0, in: image, heard: heard) })
        }
        let valid = draw("4006381333931", module: 0.95, degrees: 4)
        XCTAssertEqual(projected(valid), ["ean13 4006381333931"])
        XCTAssertEqual(projected(draw("4006381333932", module: 0.95, degrees: 4)), [], "a wrong check digit")
        XCTAssertEqual(projected(valid, heard: ["4006381333948"]), [], "a line read another code")
        XCTAssertEqual(projected(valid, heard: ["4006381333931"]), ["ean13 4006381333931"], "a line read this one")
        // The bar direction is searched: a candidate whose direction is 3 or 5 degrees off (the
        // localizer's blocks were 6 degrees off on a code turned 10) still reads, though at its
        // own direction the rows smear the bars: the halves' edges disagree (measured: -0.46 and
        // -0.35, against 0.52 at the direction the localizer found).
        guard let found = GrayLinear.candidates(in: valid).first else { return XCTFail("no candidate") }
        let a = atan2(found.dy, found.dx)
        func agreement(_ c: GrayLinear.Candidate, _ angle: Double) -> Double? {
            guard let upper = GrayLinear.projection(valid, c, half: c.halfLength, angle: angle, band: -0.6...0).profile,
                  let lower = GrayLinear.projection(valid, c, half: c.halfLength, angle: angle, band: 0...0.6).profile else { return nil }
            return GrayLinear.edgeCorrelation(upper, lower)
        }
        for off in [3.0, 5.0] {
            var c = found
            c.dx = cos(a + off * .pi / 180)
            c.dy = sin(a + off * .pi / 180)
            XCTAssertEqual(texts([gray.readProjected(c, in: valid)].compactMap { $0 }), ["ean13 4006381333931"], "\(off) degrees off")
            guard let smeared = agreement(c, a + off * .pi / 180), let aligned = agreement(c, a) else { return XCTFail("no profile") }
            XCTAssertLessThan(smeared, 0, "\(off) degrees off")
            XCTAssertGreaterThan(aligned, 0.4)
        }
        let large = draw("4006381333931", module: 2.2, degrees: 4)
        XCTAssertEqual(projected(large), [], "2.2 px per module")
        XCTAssertEqual(texts(gray.decode(large)), ["ean13 4006381333931"], "the scan lines read it")
    }

    /// The projection's profile: a pixel's value lands in the step of its distance along the
    /// axis; steps no pixel centre falls in are interpolated; bars along the pixel grid give
    /// nothing to gain (half the steps empty at half-pixel steps): nil.
    func testTheProjectedProfileAveragesRowsAlongTheBars() {
        // Vertical bars 3 px wide, alternately 0 and 200, turned 4 degrees.
        let w = 160, h = 100, turn = 4.0 * .pi / 180
        var pixels = [UInt8](repeating: 255, count: w * h)
        for y in 0..<h { for x in 0..<w {
            let u = (Double(x) - 80) * cos(turn) + (Double(y) - 50) * sin(turn)
            pixels[y * w + x] = Int((u + 300).rounded(.down)) / 3 % 2 == 0 ? 0 : 200
        } }
        let image = GrayImage(width: w, height: h, pixels: pixels)
        let c = GrayLinear.Candidate(cx: 80, cy: 50, dx: cos(turn), dy: sin(turn), halfLength: 40, halfHeight: 30)
        let projection = GrayLinear.projection(image, c, half: 40, angle: turn, band: -0.6...0.6)
        // Every pixel centre within 40 px along the axis and 18 across it, once: about 80 x 36.
        XCTAssertEqual(Double(projection.hits.reduce(0, +)), 80 * 36, accuracy: 60)
        guard let p = projection.profile else { return XCTFail("no profile") }
        XCTAssertEqual(p.count, 160)
        // Away from the edges every step is one bar's value; at the edges a mix.
        let pure = p.filter { $0 < 1 || $0 > 199 }.count
        XCTAssertGreaterThan(pure, 110, "\(p)")
        // Off by 2 degrees, the edges smear: fewer pure steps, and the two halves agree less.
        let off = GrayLinear.projection(image, c, half: 40, angle: turn + 2 * .pi / 180, band: -0.6...0.6).profile!
        XCTAssertLessThan(off.filter { $0 < 1 || $0 > 199 }.count, pure - 30)
        func halves(_ a: Double) -> Double {
            GrayLinear.edgeCorrelation(GrayLinear.projection(image, c, half: 40, angle: a, band: -0.6...0).profile!,
                                       GrayLinear.projection(image, c, half: 40, angle: a, band: 0...0.6).profile!)
        }
        XCTAssertGreaterThan(halves(turn), halves(turn + 2 * .pi / 180) + 0.2)
        // Upright bars: every pixel centre in a column falls on one step, the next step is empty (half of them).
        let upright = GrayLinear.Candidate(cx: 80, cy: 50, dx: 1, dy: 0, halfLength: 40, halfHeight: 30)
        XCTAssertNil(GrayLinear.projection(image, upright, half: 40.25, angle: 0, band: -0.6...0.6).profile)
    }

    /// An EAN-13 whose scan lines fit another valid code strongly in its digits but not in its
    /// guards is not read as that code (it was, from two strong lines, before the guards counted).
    func testLinesThatMissTheGuardsDoNotMakeAnotherCode() throws {
        let read = texts(gray.decode(try linear("blurred/ean13-guards-misfit.png")))
        XCTAssertTrue(read.isEmpty || read == ["ean13 4331815019281"], "\(read)")
    }

    /// The negative set: other linear symbologies, shelf stripes, noise, and a code blurred past
    /// reading: no EAN/UPC comes out of the gray-level reader.
    func testTheNegativeSetGivesNoProductCode() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: linearPath("negative")).sorted()
        XCTAssertGreaterThanOrEqual(names.count, 10)
        for name in names {
            XCTAssertEqual(gray.decode(try linear("negative/" + name)), [], name)
        }
    }

    /// A book's EAN-13 (978/979) is named isbn13 when ISBN-13 is wanted, as zxing-cpp names it, so
    /// that the two decoders' readings of one book merge; ean13 otherwise.
    func testNamesABooksCodeISBN13AsZXingDoes() throws {
        let image = try linear("blurred/isbn13-blur-small-q30.jpg")
        XCTAssertEqual(texts(gray.decode(image)), ["isbn13 9780306406157"])
        let noISBN = GrayLinear(symbologies: [Symbology(rawValue: "ean13"), Symbology(rawValue: "upca")])
        XCTAssertEqual(texts(noISBN.decode(image)), ["ean13 9780306406157"])
    }

    /// Only the wanted symbologies: without ean13, upca and ean8 it reads nothing.
    func testReadsOnlyWhatIsWanted() throws {
        let image = try linear("blurred/upca-motion.png")
        XCTAssertFalse(GrayLinear(symbologies: [Symbology(rawValue: "qrcode")]).readsSomething)
        XCTAssertEqual(GrayLinear(symbologies: [Symbology(rawValue: "ean13")]).decode(image).map(\.text), ["0036000291452"],
                       "a UPC-A is an EAN-13 with a leading 0 when only EAN-13 is wanted")
        let ean8 = try linear("blurred/ean8-motion.png"), upce = try linear("blurred/upce-motion.png")
        let long = GrayLinear(symbologies: [Symbology(rawValue: "ean13"), Symbology(rawValue: "upca")])
        XCTAssertEqual(long.decode(ean8).count, 0)
        XCTAssertEqual(long.decode(upce).count, 0)
        XCTAssertEqual(texts(GrayLinear(symbologies: [Symbology(rawValue: "ean8")]).decode(ean8)), ["ean8 96385074"],
                       "EAN-8 alone: read as the first format")
        XCTAssertEqual(texts(GrayLinear(symbologies: [Symbology(rawValue: "upce")]).decode(upce)), ["upce 04252614"])
        XCTAssertEqual(GrayLinear(symbologies: [Symbology(rawValue: "ean8")]).decode(upce).count, 0)
        // Every line is read as an EAN-13 first, also when only EAN-8 or UPC-E is wanted: no part
        // of a blurred EAN-13 or UPC-A comes out as one (the EAN-13 ean13-guards-misfit.png, blurred
        // 1.5 modules, fitted a UPC-E's templates at 0.97 on 3 lines before UPC-E's 0.965 floor).
        for name in ["upca-motion.png", "ean13-blur-small-q30.jpg", "upca-blur-small-q30.jpg", "upca-rotated-blurred.jpg",
                     "ean13-bent.jpg", "ean13-slanted.jpg", "upca-motion-ambiguous.jpg", "ean13-low-contrast.jpg", "ean13-guards-misfit.png"] {
            let short = GrayLinear(symbologies: [Symbology(rawValue: "ean8"), Symbology(rawValue: "upce")])
            XCTAssertEqual(texts(short.decode(try linear("blurred/" + name))), [], name)
            XCTAssertEqual(texts(gray.decode(try linear("blurred/" + name))).filter { $0.hasPrefix("ean8") || $0.hasPrefix("upce") }, [], name)
        }
    }

    /// The dynamic program picks the valid code: a single wrong digit's best score does not win
    /// when the check digit says otherwise.
    func testTheCheckDigitDecidesBetweenCloseDigits() {
        // Perfect scores for 5901234123457 except the last slot, where 8 scores a little above 7.
        let code = Array("5901234123457").compactMap { Int(String($0)) }
        let parities = [0, 1, 1, 0, 0, 1]  // first digit 5: LGGLLG
        var scores: [[Double]] = []
        for slot in 0..<12 {
            let digit = code[slot + 1]
            var row = [Double](repeating: 0, count: slot < 6 ? 20 : 10)
            row[(slot < 6 ? parities[slot] * 10 : 0) + digit] = 1
            scores.append(row)
        }
        scores[11][8] = 1.01
        scores[11][7] = 0.95
        let best = GrayLinear.bestValid(scores, format: .ean13)
        XCTAssertEqual(best?.0, "5901234123457")
    }

    /// The dynamic program gives what the plain one below gives (every state of every slot a
    /// list of its own, the first best kept): the same digits, sums and weakest match, on random
    /// scores (with ties: scores in tenths) for both formats.
    func testTheDynamicProgramMatchesThePlainOne() {
        var seed: UInt64 = 11
        func next() -> Double { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Double(seed >> 60) / 10 }
        func plain(_ scores: [[Double]], format: GrayLinear.Format) -> (String, Double, Double, Double)? {
            let n = scores.count, left = n / 2, weights = (0..<n).map { $0 % 2 == 0 ? 3 : 1 }
            let parityStates = format == .ean13 ? 64 : 1, states = 10 * parityStates
            var value = [Double](repeating: -.infinity, count: states)
            value[0] = 0
            var back: [[(prev: Int, cand: Int)]] = []
            for slot in 0..<n {
                var next = [Double](repeating: -.infinity, count: states)
                var from = [(prev: Int, cand: Int)](repeating: (-1, -1), count: states)
                for st in 0..<states where value[st] > -.infinity {
                    let mod = st / parityStates, bits = st % parityStates
                    for (cand, sc) in scores[slot].enumerated() {
                        let digit = cand % 10, isG = cand >= 10
                        if format == .ean8 && isG { continue }
                        var nb = bits
                        if format == .ean13 && slot < left && isG { nb |= 1 << slot }
                        let ns = ((mod + weights[slot] * digit) % 10) * parityStates + nb
                        if value[st] + sc > next[ns] { next[ns] = value[st] + sc; from[ns] = (st, cand) }
                    }
                }
                value = next
                back.append(from)
            }
            var bestState = -1, bestValue = -Double.infinity
            for st in 0..<states where value[st] > bestValue {
                let mod = st / parityStates, bits = st % parityStates
                if format == .ean13 {
                    guard let d = GrayLinear.firstDigit[bits], (mod + d) % 10 == 0 else { continue }
                } else {
                    guard mod == 0 else { continue }
                }
                bestState = st
                bestValue = value[st]
            }
            guard bestState >= 0 else { return nil }
            var digits = [Int](repeating: 0, count: n), minimum = Double.infinity, st = bestState
            for slot in stride(from: n - 1, through: 0, by: -1) {
                let (prev, cand) = back[slot][st]
                digits[slot] = cand % 10
                minimum = min(minimum, scores[slot][cand])
                st = prev
            }
            let first = format == .ean13 ? String(GrayLinear.firstDigit[bestState % parityStates]!) : ""
            return (first + digits.map(String.init).joined(), bestValue, scores.reduce(0) { $0 + ($1.max() ?? 0) }, minimum)
        }
        for round in 0..<200 {
            let format: GrayLinear.Format = round % 2 == 0 ? .ean13 : .ean8
            let n = format == .ean13 ? 12 : 8
            let scores = (0..<n).map { slot in (0..<(slot < n / 2 ? 20 : 10)).map { _ in next() } }
            let (fast, reference) = (GrayLinear.bestValid(scores, format: format), plain(scores, format: format))
            XCTAssertEqual(fast?.0, reference?.0, "round \(round)")
            XCTAssertEqual(fast?.1, reference?.1)
            XCTAssertEqual(fast?.2, reference?.2)
            XCTAssertEqual(fast?.3, reference?.3)
        }
    }

    /// UPC-E's dynamic programs give the valid code with the best sum that trying every UPC-E
    /// gives (number system 0 or 1 and six digits, expanded to the UPC-A its check digit is
    /// computed on, the check digit setting each digit's set): the same digits, sum and weakest
    /// match, on random scores.
    func testUPCEsBestCodeIsTheBestOfEveryCode() {
        var seed: UInt64 = 21
        func next() -> Double { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Double(seed >> 11) / Double(1 << 53) }
        // Number system 0's sets (E: even, the G set) by check digit; number system 1 the opposite.
        let parities = ["EEEOOO", "EEOEOO", "EEOOEO", "EEOOOE", "EOEEOO", "EOOEEO", "EOOOEE", "EOEOEO", "EOEOOE", "EOOEOE"].map { Array($0) }
        for round in 0..<1 {
            let scores = (0..<6).map { _ in (0..<20).map { _ in next() } }
            var best: (text: String, total: Double, minimum: Double)?
            var upca = [Int](repeating: 0, count: 11)
            for system in 0...1 {
                for number in 0..<1_000_000 {
                    var d = [Int](repeating: 0, count: 6), rest = number
                    for i in stride(from: 5, through: 0, by: -1) { d[i] = rest % 10; rest /= 10 }
                    // The UPC-A without its check digit, as the last digit says.
                    switch d[5] {
                    case 0...2: upca = [system, d[0], d[1], d[5], 0, 0, 0, 0, d[2], d[3], d[4]]
                    case 3: upca = [system, d[0], d[1], d[2], 0, 0, 0, 0, 0, d[3], d[4]]
                    case 4: upca = [system, d[0], d[1], d[2], d[3], 0, 0, 0, 0, 0, d[4]]
                    default: upca = [system, d[0], d[1], d[2], d[3], d[4], 0, 0, 0, 0, d[5]]
                    }
                    var sum = 0
                    for (i, digit) in upca.enumerated() { sum += (i % 2 == 0 ? 3 : 1) * digit }
                    let check = (10 - sum % 10) % 10
                    var total = 0.0, minimum = Double.infinity
                    for i in 0..<6 {
                        let even = (parities[check][i] == "E") != (system == 1)
                        let score = scores[i][(even ? 10 : 0) + d[i]]
                        total += score
                        minimum = min(minimum, score)
                    }
                    if total > (best?.total ?? -.infinity) {
                        best = ("\(system)" + d.map(String.init).joined() + "\(check)", total, minimum)
                    }
                }
            }
            let fast = GrayLinear.bestValid(scores, format: .upce)
            XCTAssertEqual(fast?.0, best?.text, "round \(round)")
            XCTAssertEqual(fast?.1 ?? 0, best?.total ?? 1, accuracy: 1e-9)
            XCTAssertEqual(fast?.2 ?? 0, scores.reduce(0) { $0 + $1.max()! }, accuracy: 1e-9)
            XCTAssertEqual(fast?.3, best?.minimum)
        }
        // The text is one BarPattern draws: a UPC-E of those digits.
        let drawn = GrayLinear.bestValid((0..<6).map { _ in (0..<20).map { _ in next() } }, format: .upce)
        XCTAssertNotNil(BarPattern.modules(symbology: "upce", digits: drawn!.0.compactMap(\.wholeNumberValue)))
    }

    /// The grid search's score (one resampling of the span, one division a window) is the
    /// correlation of each slot's normalised window with each digit's template, as written out
    /// here one window and one template at a time: on noise and on a blurred code's profile, for
    /// every blur, both layouts, shifts of one and two samples, and starts past the profile's ends.
    func testSlotScoresAreTheCorrelationsOfEachWindow() {
        var seed: UInt64 = 20
        func random() -> Double { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Double(seed >> 11) / Double(1 << 53) }
        let noise = (0..<400).map { _ in 255 * random() }
        // EAN-13 5901234123457 drawn at 3 px a module between quiet zones, box-blurred.
        let bars = BarPattern.modules(symbology: "ean13", digits: [5, 9, 0, 1, 2, 3, 4, 1, 2, 3, 4, 5, 7])!
        let drawn = [Double](repeating: 220, count: 30) + bars.flatMap { [Double](repeating: $0 == 1 ? 30 : 220, count: 3) } + [Double](repeating: 220, count: 30)
        let code = drawn.indices.map { i in (max(0, i - 2)...min(drawn.count - 1, i + 2)).map { drawn[$0] }.reduce(0, +) / Double(min(drawn.count - 1, i + 2) - max(0, i - 2) + 1) }
        let flat = [Double](repeating: 128, count: 300)
        func reference(_ p: [Double], layout: GrayLinear.Layout, start: Double, w: Double, sigma: Int, shifts: Int) -> Double {
            var sum = 0.0
            for slot in layout.slots {
                var best = -1.0
                for shift in -shifts...shifts {
                    let win = GrayLinear.normalised(GrayLinear.window(p, start: start, w: w, from: Double(slot.start) + Double(shift) / Double(GrayLinear.perModule), count: 7))
                    for set in slot.left ? [0, 1] : [2] {
                        for t in GrayLinear.templates[sigma][set] { best = max(best, zip(t, win).map { $0 * $1 }.reduce(0, +)) }
                    }
                }
                sum += best
            }
            return sum
        }
        var compared = 0, stopped = 0
        for (p, starts, w) in [(noise, [-20.0, 0, 13.3, 90, 150], 2.7), (code, [28.0, 30, 31.4], 3.0), (code, [29.0], 2.94), (flat, [10.0], 2)] {
            for layout in [GrayLinear.ean13Layout, GrayLinear.ean8Layout] {
                for start in starts {
                    for sigma in GrayLinear.sigmas.indices {
                        for shifts in [1, 2] {
                            let fast = GrayLinear.slotScoreSum(p, layout: layout, start: start, w: w, sigma: sigma, shifts: shifts)
                            XCTAssertEqual(fast, reference(p, layout: layout, start: start, w: w, sigma: sigma, shifts: shifts), accuracy: 1e-12,
                                           "start \(start), w \(w), sigma \(sigma), shifts \(shifts)")
                            compared += 1
                            // With a limit: the same sum where it comes above it, else -infinity
                            // (or the sum, where the bound could not tell early).
                            for limit in [fast - 0.5, fast - 1e-6, fast, fast + 1e-6, fast + 3] {
                                let bounded = GrayLinear.slotScoreSum(p, layout: layout, start: start, w: w, sigma: sigma, shifts: shifts, limit: limit)
                                if fast > limit {
                                    XCTAssertEqual(bounded, fast, "limit \(limit)")
                                } else {
                                    XCTAssertTrue(bounded == fast || bounded == -.infinity, "limit \(limit): \(bounded)")
                                    if bounded == -.infinity { stopped += 1 }
                                }
                            }
                        }
                    }
                }
            }
        }
        XCTAssertEqual(compared, 160)
        XCTAssertGreaterThan(stopped, 100, "the bound stops most sums that cannot pass their limit")
        // The drawn code's slots match their digits nearly perfectly at its true place and scale.
        XCTAssertGreaterThan(GrayLinear.slotScoreSum(code, layout: GrayLinear.ean13Layout, start: 30, w: 3, sigma: 1, shifts: 1), 11)
    }
}
