/// A decoder: every symbol it reads in one frame, with points in frame coordinates.
///
/// Decoders are a list (``DecoderList``): zbar, the next backend and Lua decoders each enter
/// it once, and every source's frames go through all of them.
package protocol FrameDecoder: AnyObject {
    /// The symbols in `image`, inside `region` when one is set.
    func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol]
}

/// A decoder that can be asked for linear codes only: zbar, beside a matrix code zxing-cpp read
/// (see ``DecodePlan``), where its QR pass would cost time for nothing.
package protocol LinearDecoder: FrameDecoder {
    /// The linear (one-dimensional) codes in `image`, inside `region` when one is set.
    func decodeLinear(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol]
    /// The EAN-2/EAN-5 add-ons in `image` (the place beside a product code another reader read).
    func decodeAddOns(_ image: GrayImage) -> [Symbol]
}

/// The decoders of a session, in the order they run on each frame.
package struct DecoderList {
    /// The built-in decoders (`--decoders`), in the order a reading several of them agree on names
    /// them in its `decoder` field (`zbar+zxing`).
    package static let names = ["zbar", "zxing", "gray"]

    /// Decoders made once per worker thread and run there, frames in parallel (a zbar scanner is
    /// not thread-safe, so each worker owns one).
    package private(set) var workerFactories: [@Sendable () -> FrameDecoder] = []
    /// For each worker decoder: whether it runs only when the others found nothing in the frame
    /// (a cheaper cascade for `--effort fast`).
    package private(set) var fallback: [Bool] = []
    /// For each worker decoder: whether a frame the scale pyramid decoded small first gets it
    /// only in that small pass, not again at full size (zbar: a full scan of 12 MP costs it half
    /// a second, and on the BoofCV photos it read nothing there that zxing-cpp had not).
    package private(set) var smallPassOnly: [Bool] = []
    /// Decoders run on the session's thread after the worker decoders (Lua decoders share the
    /// one lua_State); they need the frame kept until then.
    package private(set) var sessionDecoders: [FrameDecoder] = []
    /// Symbologies whose readings alone send an image file to the fallback decoders too (the
    /// `recheck` order): zbar reads EAN/UPC codes zxing-cpp misreads, and Code 128 codes beside
    /// the ones zxing-cpp read.
    package var recheck: Set<String> = []
    /// The retry passes for still images (one instance per worker), when zxing-cpp is on.
    package var retries: (@Sendable () -> StillRetries)?
    /// The gray-level EAN/UPC reader, for still images where no EAN/UPC code was read.
    package var grayLinear: GrayLinear?
    /// The MaxiCode reader for photos (one instance per worker), for still images where no MaxiCode was read.
    package var maxiCodes: (@Sendable () -> MaxiCodeReader)?
    /// `--effort thorough`: the balanced plan's decoders (one list, or none), run first on each
    /// image file, so that thorough reads at least what balanced reads (see ``DecodePlan``).
    package var baseline: [DecoderList] = []

    package init() {}

    package mutating func addWorker(fallback: Bool = false, smallPassOnly: Bool = false, _ make: @escaping @Sendable () -> FrameDecoder) {
        workerFactories.append(make)
        self.fallback.append(fallback)
        self.smallPassOnly.append(smallPassOnly)
    }
    package mutating func addSession(_ decoder: FrameDecoder) { sessionDecoders.append(decoder) }

    /// One instance of every worker decoder, for one thread.
    package func makeWorkerDecoders() -> [FrameDecoder] { workerFactories.map { $0() } }
}

extension GrayImage {
    /// Runs `decode` on the part of the image inside `region` (all of it when nil) and moves the
    /// symbols' points back to frame coordinates. A region outside the frame finds nothing.
    package func decode(inside region: Region?, _ decode: (GrayImage) -> [Symbol]) -> [Symbol] {
        guard let region else { return decode(self) }
        guard let box = region.box(inWidth: width, height: height) else { return [] }
        return decode(cropped(to: box)).map { $0.offset(dx: box.x, dy: box.y) }
    }
}
