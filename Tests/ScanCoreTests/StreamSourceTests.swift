import Foundation
import XCTest
@testable import ScanCore

/// Reads every item of a source: the frames, then the error that ended it (if any).
private func drain(_ source: FrameSource, limit: Int = 1000,
                   file: StaticString = #filePath, line: UInt = #line) -> (frames: [Frame], error: SourceError?) {
    var frames: [Frame] = []
    do throws(SourceError) {
        while frames.count < limit, let item = try source.next(deadline: nil) {
            guard case .frame(let f) = item else {
                XCTFail("expected a frame, got \(item)", file: file, line: line)
                break
            }
            frames.append(f)
        }
    } catch {
        return (frames, error)
    }
    return (frames, nil)
}

/// The error a throwing initializer gives, or nil.
private func initError<T>(_ make: () throws(SourceError) -> T) -> SourceError? {
    do throws(SourceError) {
        _ = try make()
        return nil
    } catch {
        return error
    }
}

/// Texts zbar reads in each frame, sorted within a frame.
private func texts(_ frames: [Frame]) -> [[String]] {
    let zbar = ZBarDecoder(symbologies: Symbology.defaultSet)
    return frames.map { zbar.decode($0.image).map(\.text).sorted() }
}

/// Frame by frame, what scripts/make-fixtures drew into stream-10fps.{y4m,mjpeg}: A A A+B B A - A x9.
private let streamCodes: [[String]] = [["code-A"], ["code-A"], ["code-A", "code-B"], ["code-B"], ["code-A"], []]
    + Array(repeating: ["code-A"], count: 9)

// MARK: - YUV4MPEG2

final class Y4MSourceTests: XCTestCase {
    private let header = "YUV4MPEG2 W4 H2 F25:1 Ip A1:1 C420jpeg\n"
    /// A 4x2 4:2:0 frame: 8 luma bytes, then 2 x (2x1) chroma bytes.
    private let luma0: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7]
    private let luma1: [UInt8] = [200, 201, 202, 203, 250, 251, 252, 255]
    private let chroma: [UInt8] = [128, 129, 130, 131]

    private func frameBytes(_ luma: [UInt8], chroma: [UInt8], marker: String = "FRAME\n") -> [UInt8] {
        Array(marker.utf8) + luma + chroma
    }

    private func source(_ bytes: [UInt8], name: String = "pipe") throws(SourceError) -> Y4MSource {
        try Y4MSource(handle: pipeReading(bytes), name: name)
    }

    func testTwoFramesGiveExactLumaIndexAndSize() throws {
        let bytes = Array(header.utf8) + frameBytes(luma0, chroma: chroma) + frameBytes(luma1, chroma: chroma)
        let src = try source(bytes, name: "cam.y4m")
        XCTAssertEqual(src.width, 4)
        XCTAssertEqual(src.height, 2)
        XCTAssertEqual(src.fps, 25)
        XCTAssertFalse(src.isLive)
        XCTAssertEqual(src.dropped, 0)
        let (frames, error) = drain(src)
        XCTAssertNil(error)
        XCTAssertEqual(frames.count, 2)
        XCTAssertEqual(frames.map(\.image.pixels), [luma0, luma1])
        XCTAssertEqual(frames.map(\.info.index), [0, 1])
        XCTAssertEqual(frames.map(\.info.source), ["cam.y4m", "cam.y4m"])
        for f in frames {
            XCTAssertEqual([f.info.width, f.info.height, f.image.width, f.image.height], [4, 2, 4, 2])
        }
        XCTAssertEqual(frames[0].image[3, 1], 7)
        // The capture time comes from the frame rate: frame n is at n / fps seconds.
        XCTAssertEqual(frames[0].info.time, Date(timeIntervalSince1970: 0))
        XCTAssertEqual(frames[1].info.time.timeIntervalSince1970, 1.0 / 25, accuracy: 1e-6)
        // The end stays the end.
        XCTAssertNil(try src.next(deadline: nil))
    }

    func testFrameHeaderParametersAreIgnored() throws {
        let bytes = Array(header.utf8) + frameBytes(luma0, chroma: chroma, marker: "FRAME Ip XYZ=1\n")
            + frameBytes(luma1, chroma: chroma)
        let (frames, error) = drain(try source(bytes))
        XCTAssertNil(error)
        XCTAssertEqual(frames.map(\.image.pixels), [luma0, luma1])
    }

    func testFractionalFrameRateAndMissingRate() throws {
        let ntsc = try source(Array("YUV4MPEG2 W4 H2 F30000:1001\n".utf8) + frameBytes(luma0, chroma: chroma)
            + frameBytes(luma1, chroma: chroma))
        XCTAssertEqual(try XCTUnwrap(ntsc.fps), 30000.0 / 1001.0, accuracy: 1e-12)
        let frames = drain(ntsc).frames
        XCTAssertEqual(frames[1].info.time.timeIntervalSince1970, 1001.0 / 30000.0, accuracy: 1e-6)

        // Without F (or with a zero denominator) there is no rate, and frames carry the time they were read.
        for head in ["YUV4MPEG2 W4 H2\n", "YUV4MPEG2 W4 H2 F25:0\n"] {
            let before = Date()
            let src = try source(Array(head.utf8) + frameBytes(luma0, chroma: chroma))
            XCTAssertNil(src.fps, head)
            let f = try XCTUnwrap(drain(src).frames.first, head)
            XCTAssertGreaterThanOrEqual(f.info.time, before, head)
            XCTAssertLessThanOrEqual(f.info.time, Date(), head)
        }
    }

    /// The chroma planes are skipped by their size for each colour space; a wrong size would
    /// shift the next frame's luma.
    func testChromaSizesPerColourSpace() throws {
        let cases: [(colour: String, width: Int, height: Int, chroma: Int)] = [
            ("420jpeg", 4, 2, 4), ("420paldv", 4, 2, 4), ("420mpeg2", 4, 2, 4), ("420", 4, 2, 4),
            ("420jpeg", 3, 3, 8),  // odd sizes round the chroma planes up: 2 x (2x2)
            ("422", 4, 2, 8), ("422", 3, 2, 8), ("444", 4, 2, 16), ("444alpha", 4, 2, 24), ("mono", 4, 2, 0),
        ]
        for c in cases {
            let n = c.width * c.height
            let a = (0..<n).map { UInt8($0 + 1) }, b = (0..<n).map { UInt8(100 + $0) }
            let filler = [UInt8](repeating: 0xEE, count: c.chroma)
            let bytes = Array("YUV4MPEG2 W\(c.width) H\(c.height) C\(c.colour)\n".utf8)
                + frameBytes(a, chroma: filler) + frameBytes(b, chroma: filler)
            let (frames, error) = drain(try source(bytes))
            let label = "C\(c.colour) \(c.width)x\(c.height)"
            XCTAssertNil(error, label)
            XCTAssertEqual(frames.map(\.image.pixels), [a, b], label)
            XCTAssertEqual(frames.map(\.image.width), [c.width, c.width], label)
        }
    }

    func testNotAY4MStream() {
        for bytes in [Array("P5\n4 2\n255\n".utf8), [], Array("YUV4MPEG W4 H2\n".utf8)] {
            XCTAssertEqual(initError { () throws(SourceError) in try source(bytes, name: "in.y4m") },
                           SourceError("in.y4m: not a YUV4MPEG2 stream (it must start with 'YUV4MPEG2 ')"),
                           String(decoding: bytes, as: UTF8.self))
        }
    }

    func testHeaderWithoutSize() {
        let cases = [
            ("YUV4MPEG2 C420jpeg F25:1\n", "W0 H0"),
            ("YUV4MPEG2 W4 F25:1\n", "W4 H0"),
            ("YUV4MPEG2 H2\n", "W0 H2"),
            ("YUV4MPEG2 Wabc H2\n", "W0 H2"),
            ("YUV4MPEG2 W-4 H2\n", "W-4 H2"),
            ("YUV4MPEG2 W20000 H20000\n", "W20000 H20000"),  // over ImageLoader.defaultMaxPixels
        ]
        for (head, size) in cases {
            XCTAssertEqual(initError { () throws(SourceError) in try source(Array(head.utf8), name: "s.y4m") },
                           SourceError("s.y4m: bad YUV4MPEG2 size \(size)"), head)
        }
    }

    func testUnsupportedColourSpace() {
        XCTAssertEqual(initError { () throws(SourceError) in try source(Array("YUV4MPEG2 W4 H2 C420p10\n".utf8), name: "s.y4m") },
                       SourceError("s.y4m: colour space C420p10 is not supported (8-bit 420, 422, 444 and mono are)"))
    }

    func testCannotOpenPath() {
        let path = NSTemporaryDirectory() + "scanlua-no-such-\(UUID().uuidString).y4m"
        XCTAssertEqual(initError { () throws(SourceError) in try Y4MSource(path: path) },
                       SourceError("\(path): cannot open: No such file or directory"))
    }

    func testTruncatedFrame() throws {
        let bytes = Array(header.utf8) + frameBytes(luma0, chroma: chroma) + Array("FRAME\n".utf8) + [9, 9, 9, 9, 9]
        let (frames, error) = drain(try source(bytes, name: "cut.y4m"))
        XCTAssertEqual(frames.map(\.image.pixels), [luma0])
        XCTAssertEqual(error, SourceError("cut.y4m: stream ends inside frame 1"))
    }

    func testTruncatedFirstFrame() throws {
        let bytes = Array(header.utf8) + Array("FRAME\n".utf8) + [1, 2, 3]
        let (frames, error) = drain(try source(bytes, name: "cut.y4m"))
        XCTAssertEqual(frames.count, 0)
        XCTAssertEqual(error, SourceError("cut.y4m: stream ends inside frame 0"))
    }

    func testBadFrameMarkerNamesItsByteOffset() throws {
        let first = Array(header.utf8) + frameBytes(luma0, chroma: chroma)
        // The second frame's marker is wrong: the offset is where its line starts.
        let (frames, error) = drain(try source(first + frameBytes(luma1, chroma: chroma, marker: "FRAMX\n"), name: "bad.y4m"))
        XCTAssertEqual(frames.map(\.image.pixels), [luma0])
        XCTAssertEqual(error, SourceError("bad.y4m: expected FRAME at byte \(first.count)"))
        XCTAssertEqual(first.count, header.utf8.count + 6 + 12)

        // Right after the header.
        let (none, error0) = drain(try source(Array(header.utf8) + Array("JUNK\n".utf8) + luma0 + chroma, name: "bad.y4m"))
        XCTAssertEqual(none.count, 0)
        XCTAssertEqual(error0, SourceError("bad.y4m: expected FRAME at byte \(header.utf8.count)"))
    }

    func testUnterminatedOrOverlongFrameHeader() throws {
        let first = Array(header.utf8) + frameBytes(luma0, chroma: chroma)
        // A partial marker without its newline at the end of the stream.
        let (frames, error) = drain(try source(first + Array("FRA".utf8), name: "end.y4m"))
        XCTAssertEqual(frames.count, 1)
        XCTAssertEqual(error, SourceError("end.y4m: bad frame header at byte \(first.count)"))

        // A frame header line longer than 1024 bytes.
        let long = first + Array("FRAME ".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 2000) + [0x0A] + luma1 + chroma
        let (frames2, error2) = drain(try source(long, name: "long.y4m"))
        XCTAssertEqual(frames2.count, 1)
        XCTAssertEqual(error2, SourceError("long.y4m: bad frame header at byte \(first.count)"))
    }

    func testHeaderOnlyStreamHasNoFrames() throws {
        let (frames, error) = drain(try source(Array(header.utf8)))
        XCTAssertEqual(frames.count, 0)
        XCTAssertNil(error)
    }

    func testFixtureStreamFromPathAndFromPipeAgree() throws {
        let path = Fixture.path("stream-10fps.y4m")
        let fromPath = try Y4MSource(path: path)
        XCTAssertEqual([fromPath.width, fromPath.height], [240, 180])
        XCTAssertEqual(fromPath.fps, 10)
        let (frames, error) = drain(fromPath)
        XCTAssertNil(error)
        XCTAssertEqual(frames.count, 15)
        XCTAssertEqual(frames.map(\.info.index), Array(0..<15))
        XCTAssertEqual(Set(frames.map(\.info.source)), [path])
        // (Date counts from 2001, so times since 1970 are exact to about 1e-7 s.)
        for (i, f) in frames.enumerated() {
            XCTAssertEqual(f.info.time.timeIntervalSince1970, Double(i) / 10, accuracy: 1e-6, "frame \(i)")
        }
        XCTAssertEqual(texts(frames), streamCodes)

        // The same ~1 MB through a pipe (many short reads) gives the same pixels.
        let piped = drain(try Y4MSource(handle: pipeReading(try fixtureBytes("stream-10fps.y4m")), name: "-"))
        XCTAssertNil(piped.error)
        XCTAssertEqual(piped.frames.map(\.image), frames.map(\.image))
        XCTAssertEqual(Set(piped.frames.map(\.info.source)), ["-"])
    }
}

// MARK: - MJPEG

final class MJPEGSourceTests: XCTestCase {
    private func source(_ bytes: [UInt8], name: String = "pipe") throws(SourceError) -> MJPEGSource {
        try MJPEGSource(handle: pipeReading(bytes), name: name)
    }

    /// The JPEGs of stream-10fps.mjpeg, cut where each SOI begins (the fixture has no FF D8 FF elsewhere).
    private func fixtureFrames() throws -> [[UInt8]] {
        let all = try fixtureBytes("stream-10fps.mjpeg")
        var starts: [Int] = []
        for i in 0..<(all.count - 2) where all[i] == 0xFF && all[i + 1] == 0xD8 && all[i + 2] == 0xFF { starts.append(i) }
        return zip(starts, starts.dropFirst() + [all.count]).map { Array(all[$0..<$1]) }
    }

    func testFixtureStreamSplitsIntoFifteenFrames() throws {
        let path = Fixture.path("stream-10fps.mjpeg")
        let src = try MJPEGSource(path: path)
        XCTAssertFalse(src.isLive)
        let (frames, error) = drain(src)
        XCTAssertNil(error)
        XCTAssertEqual(frames.count, 15)
        XCTAssertEqual(frames.map(\.info.index), Array(0..<15))
        XCTAssertEqual(Set(frames.map(\.info.source)), [path])
        for f in frames {
            XCTAssertEqual([f.info.width, f.info.height, f.image.width, f.image.height], [240, 180, 240, 180])
        }
        XCTAssertEqual(texts(frames), streamCodes)
    }

    func testFramesAreCutAtExactlyTheirBytes() throws {
        let parts = try fixtureFrames()
        XCTAssertEqual(parts.count, 15)
        let src = try source(parts.flatMap { $0 })
        for (i, part) in parts.enumerated() {
            XCTAssertEqual(try src.nextJPEG(), part, "frame \(i)")
        }
        XCTAssertNil(try src.nextJPEG())
    }

    func testDifferentSizesWithGarbageBetweenAndAfter() throws {
        let plain = try fixtureBytes("jpeg-plain.jpg")      // 132x132
        let photo = try fixtureBytes("einvoice-photo.jpg")  // 616x413
        let frame = try fixtureFrames()[2]                  // 240x180
        let bytes = Array("leading junk\n".utf8) + plain + [0x00, 0xFF, 0x00, 0xD9, 0x12] + photo
            + Array("between".utf8) + frame + Array("trailing junk, no SOI".utf8) + [0xFF]
        let (frames, error) = drain(try source(bytes, name: "cam.mjpeg"))
        XCTAssertNil(error)
        XCTAssertEqual(frames.map { [$0.image.width, $0.image.height] }, [[132, 132], [616, 413], [240, 180]])
        XCTAssertEqual(frames.map { [$0.info.width, $0.info.height] }, [[132, 132], [616, 413], [240, 180]])
        XCTAssertEqual(frames.map(\.info.index), [0, 1, 2])
        // The same decoder on the same bytes: the frame is the file, pixel for pixel.
        XCTAssertEqual(frames[0].image, try Fixture.image("jpeg-plain.jpg"))
        XCTAssertEqual(frames[1].image, try Fixture.image("einvoice-photo.jpg"))
        XCTAssertEqual(texts([frames[2]]), [["code-A", "code-B"]])
    }

    func testEndOfImageInsideASegmentDoesNotEndTheFrame() throws {
        let plain = try fixtureBytes("jpeg-plain.jpg")
        // A comment segment (FF FE, length 8) right after SOI whose payload holds FF D9 twice.
        let comment: [UInt8] = [0xFF, 0xFE, 0x00, 0x08, 0x61, 0xFF, 0xD9, 0x62, 0xFF, 0xD9]
        let tricky = Array(plain[0..<2]) + comment + Array(plain[2...])
        let src = try source(tricky + plain)
        XCTAssertEqual(try src.nextJPEG(), tricky)
        XCTAssertEqual(try src.nextJPEG(), plain)
        XCTAssertNil(try src.nextJPEG())

        let (frames, error) = drain(try source(tricky + plain))
        XCTAssertNil(error)
        XCTAssertEqual(frames.map(\.image), [try Fixture.image("jpeg-plain.jpg"), try Fixture.image("jpeg-plain.jpg")])
    }

    func testFillBytesBeforeAMarker() throws {
        let plain = try fixtureBytes("jpeg-plain.jpg")
        let filled = Array(plain[0..<2]) + [0xFF, 0xFF] + Array(plain[2...])
        let src = try source(filled)
        XCTAssertEqual(try src.nextJPEG(), filled)
        XCTAssertNil(try src.nextJPEG())
    }

    func testTruncatedLastJPEG() throws {
        let plain = try fixtureBytes("jpeg-plain.jpg")
        let truncated = try fixtureBytes("truncated.jpg")  // the first 900 bytes of jpeg-plain.jpg
        let (frames, error) = drain(try source(plain + plain + truncated, name: "cut.mjpeg"))
        XCTAssertEqual(frames.count, 2)
        XCTAssertEqual(error, SourceError("cut.mjpeg: stream ends inside frame 2"))

        // Cut right after a marker's FF, inside a segment's length, and after the FF of the next marker.
        for n in [3, 4, 5, 21] {
            let (f, e) = drain(try source(plain + Array(plain[0..<n]), name: "cut.mjpeg"))
            XCTAssertEqual(f.count, 1, "cut after \(n) bytes")
            XCTAssertEqual(e, SourceError("cut.mjpeg: stream ends inside frame 1"), "cut after \(n) bytes")
        }
    }

    /// jpeg-plain.jpg's APP0 segment ends at byte 20: a stream that ends exactly there ends inside
    /// the frame too (it is not "not a JPEG").
    func testStreamCutAtASegmentBoundary() throws {
        let plain = try fixtureBytes("jpeg-plain.jpg")
        XCTAssertEqual(Array(plain[2..<6]), [0xFF, 0xE0, 0x00, 0x10])
        let (frames, error) = drain(try source(plain + Array(plain[0..<20]), name: "cut.mjpeg"))
        XCTAssertEqual(frames.count, 1)
        XCTAssertEqual(error, SourceError("cut.mjpeg: stream ends inside frame 1"))
    }

    func testNoMarkerAfterSOINamesTheAbsoluteByte() throws {
        let (none, error) = drain(try source(Array("xy".utf8) + [0xFF, 0xD8, 0x00, 0x00], name: "bad.mjpeg"))
        XCTAssertEqual(none.count, 0)
        XCTAssertEqual(error, SourceError("bad.mjpeg: frame 0 is not a JPEG (no marker at byte 4)"))

        let plain = try fixtureBytes("jpeg-plain.jpg")
        let (one, error1) = drain(try source(plain + [0xFF, 0xD8, 0x41, 0x42], name: "bad.mjpeg"))
        XCTAssertEqual(one.count, 1)
        XCTAssertEqual(error1, SourceError("bad.mjpeg: frame 1 is not a JPEG (no marker at byte \(plain.count + 2))"))
    }

    func testStructurallyCompleteButUndecodableJPEG() throws {
        // SOI then EOI: a whole frame to the splitter, but libjpeg has no image in it. The stream
        // goes on: the frame is handed over as a file of its own, whose load gives its error record.
        let source = try source([0xFF, 0xD8, 0xFF, 0xD9], name: "odd.mjpeg")
        guard case .file(.data(let bytes, let name))? = try source.next(deadline: nil) else { return XCTFail("expected the frame as data") }
        XCTAssertEqual(bytes, Data([0xFF, 0xD8, 0xFF, 0xD9]))
        XCTAssertEqual(name, "odd.mjpeg#0")
        XCTAssertNil(try source.next(deadline: nil), "then the end of the stream, not an error")
    }

    func testAnEmptyStreamHasNoFramesAndGarbageIsNoMJPEG() throws {
        let (frames, error) = drain(try source([]))
        XCTAssertEqual(frames.count, 0)
        XCTAssertNil(error, "an empty stream simply ends")
        for bytes in [Array("no jpeg here at all".utf8), [0xFF, 0xD9, 0xFF]] as [[UInt8]] {
            let (frames, error) = drain(try source(bytes))
            XCTAssertEqual(frames.count, 0, "\(bytes)")
            XCTAssertTrue("\(error.map { "\($0)" } ?? "")".contains("no JPEG frame in \(bytes.count) bytes: not an MJPEG stream"), "\(bytes)")
        }
    }
}
