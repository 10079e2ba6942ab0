import Foundation
import ScanCore
import XCTest

/// The contrast and size changes of the still-image retries, and the retries themselves.
final class EnhanceTests: XCTestCase {
    func testGammaTableBrightensTheDarkLevelsApart() {
        let t = GrayImage.gammaTable(0.5)
        XCTAssertEqual([t[0], t[16], t[64], t[255]], [0, 64, 128, 255])
        let image = GrayImage(width: 2, height: 1, pixels: [6, 23]).mapped(t)
        XCTAssertEqual(image.pixels, [39, 77], "17 levels apart become 38")
    }

    func testMedianBrightness() {
        let image = GrayImage(width: 8, height: 8, pixels: (0..<64).map { $0 < 40 ? 10 : 200 })
        XCTAssertEqual(image.medianBrightness(step: 1), 10)
        XCTAssertEqual(GrayImage(width: 4, height: 4, pixels: Array(repeating: 77, count: 16)).medianBrightness(), 77)
    }

    func testLocalEqualisationRaisesTheContrastOfTheDarkPartAndKeepsAFlatImageFlat() {
        // Left half: a dark checkerboard (levels 10 and 40); right half: bright (200 and 230).
        let w = 256
        let pixels: [UInt8] = (0..<(w * w)).map { i in
            let (x, y) = (i % w, i / w)
            let on = (x / 4 + y / 4) % 2 == 0
            return x < w / 2 ? (on ? 40 : 10) : (on ? 230 : 200)
        }
        let out = GrayImage(width: w, height: w, pixels: pixels).equalizedLocally(clip: 4)
        XCTAssertEqual([out.width, out.height], [w, w])
        // Well inside the dark half, the two levels end further apart than the 30 they were.
        // (The clip limits how far: a two-level tile's table rises at most 4x the mean bin's slope.)
        let (dark, light) = (out[32, 36], out[36, 36])
        XCTAssertEqual([pixels[36 * w + 32], pixels[36 * w + 36]], [10, 40])
        XCTAssertGreaterThan(Int(light) - Int(dark), 30, "\(dark) \(light)")
        XCTAssertLessThan(Int(dark), 30, "still dark")
        // Every pixel of a flat image maps to one level, edges included.
        let flat = GrayImage(width: 100, height: 70, pixels: Array(repeating: 90, count: 7000)).equalizedLocally(clip: 2)
        XCTAssertEqual(Set(flat.pixels).count, 1)
    }

    func testResizeKeepsLevelsAndOrder() {
        let ramp = GrayImage(width: 4, height: 2, pixels: [0, 80, 160, 240, 0, 80, 160, 240])
        let big = ramp.resized(by: 1.5)
        XCTAssertEqual([big.width, big.height], [6, 3])
        let row = Array(big.pixels[0..<6])
        XCTAssertEqual(row, row.sorted(), "still a ramp: \(row)")
        XCTAssertEqual(row.first, 0)
        XCTAssertEqual(row.last, 240)
        XCTAssertEqual(Array(big.pixels[6..<12]), row, "rows alike")
    }

    /// The equalisation and the enlargement give, pixel for pixel, what the plain per-pixel
    /// formulas below give (their fast forms share rows and skip bounds checks), on noisy images
    /// of odd sizes.
    func testEqualisationAndEnlargementMatchThePlainFormulas() {
        var seed: UInt64 = 7
        func next() -> UInt8 { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return UInt8(truncatingIfNeeded: seed >> 56) }
        for (w, h) in [(8, 8), (37, 23), (101, 64), (250, 190)] {
            // Noise over a gradient: every table and blend weight is used.
            let image = GrayImage(width: w, height: h, pixels: (0..<(w * h)).map { i in UInt8((Int(next()) / 4 + (i % w) * 150 / w) % 256) })
            for clip in [2.0, 4.0] {
                XCTAssertEqual(image.equalizedLocally(clip: clip).pixels, Self.plainEqualized(image, clip: clip), "\(w)x\(h) clip \(clip)")
            }
            for factor in [1.25, 1.5, 2.0] {
                let big = image.resized(by: factor)
                XCTAssertEqual(big.pixels, Self.plainResized(image, by: factor), "\(w)x\(h) x\(factor)")
            }
        }
    }

    static func plainEqualized(_ image: GrayImage, tiles: Int = 8, clip: Double) -> [UInt8] {
        let (width, height, px) = (image.width, image.height, image.pixels)
        let th = (height + tiles - 1) / tiles, tw = (width + tiles - 1) / tiles
        var t = [UInt8](repeating: 0, count: tiles * tiles * 256)
        for ty in 0..<tiles {
            for tx in 0..<tiles {
                let y0 = ty * th, y1 = min(height, y0 + th), x0 = tx * tw, x1 = min(width, x0 + tw)
                guard y0 < y1, x0 < x1 else { continue }
                var histogram = [Double](repeating: 0, count: 256)
                for y in y0..<y1 { for x in x0..<x1 { histogram[Int(px[y * width + x])] += 1 } }
                let count = Double((y1 - y0) * (x1 - x0)), limit = clip * count / 256
                var excess = 0.0
                for v in 0..<256 where histogram[v] > limit { excess += histogram[v] - limit; histogram[v] = limit }
                var sum = 0.0
                for v in 0..<256 {
                    sum += histogram[v] + excess / 256
                    t[(ty * tiles + tx) * 256 + v] = UInt8(min(255, 255 * sum / count + 0.5))
                }
            }
        }
        func blend(_ n: Int, _ size: Int) -> (Int, Int, Int) {
            let c = (Double(n) + 0.5) / Double(size) - 0.5
            if c < 0 { return (0, 0, 0) }
            let lo = Int(c)
            if lo >= tiles - 1 { return (tiles - 1, tiles - 1, 0) }
            return (lo, lo + 1, Int((c - Double(lo)) * 256 + 0.5))
        }
        return (0..<(width * height)).map { i in
            let (x, y) = (i % width, i / width), v = Int(px[i])
            let (xa, xb, fx) = blend(x, tw), (ya, yb, fy) = blend(y, th)
            func at(_ ty: Int, _ tx: Int) -> Int { Int(t[(ty * tiles + tx) * 256 + v]) }
            let top = at(ya, xa) * (256 - fx) + at(ya, xb) * fx, bottom = at(yb, xa) * (256 - fx) + at(yb, xb) * fx
            return UInt8((top * (256 - fy) + bottom * fy + 32768) >> 16)
        }
    }

    static func plainResized(_ image: GrayImage, by factor: Double) -> [UInt8] {
        let (width, height, px) = (image.width, image.height, image.pixels)
        let w = Int((Double(width) * factor).rounded()), h = Int((Double(height) * factor).rounded())
        func source(_ n: Int, _ size: Int) -> (Int, Int) {
            let s = min(Double(size - 1), max(0, (Double(n) + 0.5) / factor - 0.5))
            let i = min(size - 2, Int(s))
            return (i, Int((s - Double(i)) * 65536))
        }
        return (0..<(w * h)).map { k in
            let (i, fx) = source(k % w, width), (j, fy) = source(k / w, height)
            func across(_ r: Int) -> Int { (Int(px[r * width + i]) * (65536 - fx) + Int(px[r * width + i + 1]) * fx) >> 8 }
            return UInt8((across(j) * (65536 - fy) + across(j + 1) * fy + (1 << 23)) >> 24)
        }
    }

    /// A QR code at levels 6 to 23 (a dark photo): zxing-cpp's first read sees a flat image,
    /// its gamma retry reads it.
    func testTheRetriesReadADarkCode() throws {
        let image = try Fixture.image("qr-dark.png")
        let qr: Set<Symbology> = [Symbology(rawValue: "qrcode")]
        XCTAssertEqual(ZXingDecoder(symbologies: qr).decode(image).count, 0, "the first read finds nothing")
        let retries = StillRetries(symbologies: qr, effort: .balanced)
        let (open, read) = retries.check(image, k: 1, found: [], region: nil)
        XCTAssertEqual(open, StillRetries.Open(dark: true, nothingRead: true, failedQR: false))
        XCTAssertTrue(read.isEmpty)
        let found = Symbol.merged(retries.retry(image, open: open, region: nil).0)
        XCTAssertEqual(found.map(\.text), ["scanlua dark photo"])
        XCTAssertEqual(found.first?.bbox.width ?? 0, 200, accuracy: 16, "in the image's own coordinates (25 modules of 8 pixels)")
        XCTAssertTrue(retries.retry(image, open: StillRetries.Open(), region: nil).0.isEmpty, "nothing open: no pass")
    }

    /// The same dark code white-on-black (levels 23 to 6): the first read looked for inverted
    /// codes already, so balanced's passes over the whole image look for dark-on-light ones only;
    /// thorough's look both ways and read it.
    func testOnlyThoroughRetriesLookForWhiteOnBlackCodes() throws {
        let dark = try Fixture.image("qr-dark.png")
        let image = GrayImage(width: dark.width, height: dark.height, pixels: dark.pixels.map { 29 - min($0, 29) })
        // Nothing read (every wanted format), and a QR code that failed beside others (QR only).
        for (symbologies, open) in [([Symbology(rawValue: "qrcode")], StillRetries.Open(dark: true, nothingRead: true)),
                                    (Array(Symbology.defaultSet), StillRetries.Open(dark: true, failedQR: true))] {
            let wanted = Set(symbologies)
            XCTAssertTrue(StillRetries(symbologies: wanted, effort: .balanced).retry(image, open: open, region: nil).0.isEmpty, "\(open)")
            let found = Symbol.merged(StillRetries(symbologies: wanted, effort: .thorough).retry(image, open: open, region: nil).0)
            XCTAssertEqual(found.map(\.text), ["scanlua dark photo"], "\(open)")
            XCTAssertEqual(found.map(\.inverted), [true])
        }
    }

    /// Four DataMatrix labels, the fourth blurred and washed out: zxing-cpp reads three and finds
    /// the fourth but fails its checksum. The check looks for DataMatrix failures because
    /// DataMatrix codes were read; the failed place, read by itself, gives the fourth.
    func testAFailedDataMatrixBesideReadOnesIsReadAgainAtItsPlace() throws {
        let image = try Fixture.image("datamatrix-tray.jpg")
        let wanted = Symbology.defaultSet
        let first = ZXingDecoder(symbologies: wanted).decode(image)
        XCTAssertEqual(first.map(\.text).sorted(), ["case-001", "case-002", "case-003"])
        let retries = StillRetries(symbologies: wanted, effort: .balanced)
        let (open, _) = retries.check(image, k: 1, found: first, region: nil)
        XCTAssertEqual(open.failedPlaces.map(\.symbology.rawValue), ["datamatrix"])
        XCTAssertFalse(open.failedQR || open.nothingRead || open.dark)
        XCTAssertEqual(open.failedPlaces.first.map { $0.box.x > 180 }, true, "the fourth label's place")
        let (read, skipped) = retries.retry(image, open: open, region: nil)
        XCTAssertFalse(skipped)
        XCTAssertEqual(read.map(\.text), ["case-004"])
        XCTAssertGreaterThan(read.first?.bbox.x ?? 0, 180, "in the image's coordinates")
        // A place partly outside the image is read inside it (the crop is clamped), and an empty one not at all.
        let edge = ZXingDecoder.Failure(symbology: Symbology(rawValue: "datamatrix"), box: Box(x: image.width - 5, y: -3, width: 20, height: 10))
        let gone = ZXingDecoder.Failure(symbology: Symbology(rawValue: "datamatrix"), box: Box(x: image.width + 50, y: 0, width: 20, height: 10))
        XCTAssertEqual(retries.retry(image, open: .init(failedPlaces: [edge, gone]), region: nil).0, [])

        // Where no DataMatrix was read, the check looks for QR codes only: no failed places.
        let qrOnly = first.map { s -> Symbol in var s = s; s.symbology = Symbology(rawValue: "qrcode"); return s }
        XCTAssertEqual(retries.check(image, k: 1, found: qrOnly, region: nil).open.failedPlaces, [])
        // DataMatrix not wanted: nothing looked for.
        let noMatrix = StillRetries(symbologies: wanted.subtracting([Symbology(rawValue: "datamatrix")]), effort: .balanced)
        XCTAssertEqual(noMatrix.check(image, k: 1, found: first, region: nil).open.failedPlaces, [])
    }

    /// Tiles overlap by half and cover the bounds; their side follows the codes read (three
    /// times their median size) but keeps to about 64 tiles on a large image; a bounds under two
    /// tiles gets none (the first read saw it whole).
    func testTilesForManyCodesOfOneKind() {
        func code(side: Int) -> Symbol {
            Symbol(symbology: Symbology(rawValue: "datamatrix"), bytes: [0x41],
                   points: [Point(x: 0, y: 0), Point(x: side, y: 0), Point(x: side, y: side), Point(x: 0, y: side)])
        }
        XCTAssertEqual(StillRetries.tileSide(codes: [200, 290, 300, 310, 280].map(code), width: 3072, height: 4096), 886,
                       "a quarter of the mean side, over three times the median (873)")
        XCTAssertLessThanOrEqual(StillRetries.tiles(side: 886, over: Box(x: 0, y: 0, width: 3072, height: 4096)).count, 64)
        XCTAssertEqual(StillRetries.tileSide(codes: [400, 420, 410, 390].map(code), width: 3072, height: 4096), 1233)
        XCTAssertEqual(StillRetries.tileSide(codes: [20, 20, 20, 20].map(code), width: 800, height: 600), 256)
        let bounds = Box(x: 10, y: 20, width: 1000, height: 700)
        let tiles = StillRetries.tiles(side: 400, over: bounds)
        XCTAssertEqual(tiles.count, 4 * 3)
        XCTAssertEqual(tiles.first, Box(x: 10, y: 20, width: 400, height: 400))
        XCTAssertEqual(tiles.last, Box(x: 610, y: 420, width: 400, height: 300))
        // Every pixel of the bounds is in a tile, and any 200 x 200 square wholly in one.
        for (x, y) in [(10, 20), (1009, 719), (505, 365), (209, 219)] {
            XCTAssertTrue(tiles.contains { $0.intersects(Box(x: x, y: y, width: 1, height: 1)) }, "\(x),\(y)")
        }
        for (x, y) in [(10, 20), (700, 400), (333, 111), (809, 519)] {
            XCTAssertTrue(tiles.contains { $0.x <= x && $0.y <= y && x + 200 <= $0.x + $0.width && y + 200 <= $0.y + $0.height }, "\(x),\(y)")
        }
        XCTAssertEqual(StillRetries.tiles(side: 600, over: bounds), [], "under two tiles each way")
    }

    /// 4 x 4 copies of `tile`, row by row.
    static func mosaic(of tile: GrayImage) -> GrayImage {
        var pixels = [UInt8](repeating: 0, count: tile.width * 4 * tile.height * 4)
        for copy in 0..<16 {
            let ox = (copy % 4) * tile.width, oy = (copy / 4) * tile.height
            for y in 0..<tile.height {
                for x in 0..<tile.width { pixels[(oy + y) * tile.width * 4 + ox + x] = tile.pixels[y * tile.width + x] }
            }
        }
        return GrayImage(width: tile.width * 4, height: tile.height * 4, pixels: pixels)
    }

    /// Where four codes of one kind were read the check asks for tiles (three codes: none), and
    /// the tiles' readings come back in the image's coordinates: a mosaic of 4 x 4 copies of the
    /// tray fixture, each copy's case-001 inside that copy.
    func testTilesAreAskedForAndReadInTheImagesCoordinates() throws {
        let tray = try Fixture.image("datamatrix-tray.jpg")
        let mosaic = Self.mosaic(of: tray)
        let dm = Symbology(rawValue: "datamatrix")
        let retries = StillRetries(symbologies: Symbology.defaultSet, effort: .balanced)
        let first = ZXingDecoder(symbologies: Symbology.defaultSet).decode(tray)
        XCTAssertEqual(first.count, 3)
        XCTAssertEqual(retries.check(tray, k: 1, found: first, region: nil).open.tiles, [:], "three codes: no tiles")
        let four = first + [first[0].offset(dx: 0, dy: 0)]
        XCTAssertEqual(retries.check(mosaic, k: 1, found: four, region: nil).open.tiles, [dm: 256])
        XCTAssertFalse(retries.check(mosaic, k: 1, found: four, region: nil).open.tilesInverted, "dark codes on light: tiles for those only")
        // Only the tiled kind's codes tell: a QR code read white-on-black beside them does not.
        var qr = first[0]
        qr.symbology = Symbology(rawValue: "qrcode")
        qr.inverted = true
        XCTAssertFalse(retries.check(mosaic, k: 1, found: four + [qr], region: nil).open.tilesInverted)
        let (read, skipped) = retries.retry(mosaic, open: .init(tiles: [dm: 256]), region: nil)
        XCTAssertFalse(skipped)
        let ones = Symbol.merged(read).filter { $0.text == "case-001" }
        XCTAssertEqual(ones.count, 16, "one record per copy")
        for copy in 0..<16 {
            let ox = (copy % 4) * tray.width, oy = (copy / 4) * tray.height
            XCTAssertEqual(ones.filter { $0.bbox.x >= ox && $0.bbox.x + $0.bbox.width <= ox + tray.width
                && $0.bbox.y >= oy && $0.bbox.y + $0.bbox.height <= oy + tray.height }.count, 1, "copy \(copy)")
        }
        // Code 128 codes are not read in tiles (one check character).
        let shelf = four.map { s -> Symbol in var s = s; s.symbology = Symbology(rawValue: "code128"); return s }
        XCTAssertEqual(retries.check(mosaic, k: 1, found: shelf, region: nil).open.tiles, [:])
    }

    /// White-on-black codes are looked for in the tiles only where a code that asked for them
    /// was read white-on-black: on the mosaic inverted, the tiles read every copy's code then,
    /// and none when told the codes are dark on light.
    func testTilesLookForWhiteOnBlackCodesWhereTheCodesReadWere() throws {
        let tray = try Fixture.image("datamatrix-tray.jpg")
        let inverted = GrayImage(width: tray.width, height: tray.height, pixels: tray.pixels.map { 255 - $0 })
        let mosaic = Self.mosaic(of: inverted)
        let dm = Symbology(rawValue: "datamatrix")
        let first = ZXingDecoder(symbologies: Symbology.defaultSet).decode(inverted)
        XCTAssertEqual(first.count, 3)
        XCTAssertEqual(first.map(\.inverted), [true, true, true])
        let retries = StillRetries(symbologies: Symbology.defaultSet, effort: .balanced)
        let open = retries.check(mosaic, k: 1, found: first + [first[0]], region: nil).open
        XCTAssertEqual(open.tiles, [dm: 256])
        XCTAssertTrue(open.tilesInverted)
        // The tiles alone (no failed places), inverted as the check asked.
        let tilesOnly = StillRetries.Open(tiles: open.tiles, tilesInverted: open.tilesInverted)
        let ones = Symbol.merged(retries.retry(mosaic, open: tilesOnly, region: nil).0).filter { $0.text == "case-001" }
        XCTAssertEqual(ones.count, 16, "one record per copy")
        let darkOnly = retries.retry(mosaic, open: .init(tiles: [dm: 256]), region: nil).0
        XCTAssertEqual(darkOnly.filter { $0.text == "case-001" }.count, 0)
    }

    /// One code's failure reported twice (overlapping boxes) is one place; other kinds and
    /// places stay apart, in the order first reported.
    func testOverlappingFailuresOfOneKindAreOnePlace() {
        let dm = Symbology(rawValue: "datamatrix"), c128 = Symbology(rawValue: "code128")
        let failures = [ZXingDecoder.Failure(symbology: dm, box: Box(x: 10, y: 10, width: 20, height: 20)),
                        ZXingDecoder.Failure(symbology: c128, box: Box(x: 15, y: 15, width: 40, height: 5)),
                        ZXingDecoder.Failure(symbology: dm, box: Box(x: 25, y: 5, width: 20, height: 20)),
                        ZXingDecoder.Failure(symbology: dm, box: Box(x: 100, y: 100, width: 20, height: 20))]
        // A box grown by a later failure reaches an earlier place: all three are one.
        let bridged = [ZXingDecoder.Failure(symbology: dm, box: Box(x: 0, y: 0, width: 10, height: 10)),
                       ZXingDecoder.Failure(symbology: dm, box: Box(x: 20, y: 0, width: 10, height: 10)),
                       ZXingDecoder.Failure(symbology: dm, box: Box(x: 5, y: 0, width: 20, height: 10))]
        XCTAssertEqual(StillRetries.joined(bridged), [ZXingDecoder.Failure(symbology: dm, box: Box(x: 0, y: 0, width: 30, height: 10))])
        XCTAssertEqual(StillRetries.joined(failures), [
            ZXingDecoder.Failure(symbology: dm, box: Box(x: 10, y: 5, width: 35, height: 25)),
            ZXingDecoder.Failure(symbology: c128, box: Box(x: 15, y: 15, width: 40, height: 5)),
            ZXingDecoder.Failure(symbology: dm, box: Box(x: 100, y: 100, width: 20, height: 20))])
    }
}
