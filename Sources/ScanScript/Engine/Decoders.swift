import Foundation
import ScanCore

/// Lua decoders (`scan.decoder`): new symbologies read from scan lines or from the frame.
extension ScriptEngine {
    struct DecoderSpec {
        var index: Int
        var name: String
        var kind: String
        var directions: String
        var step: Int
        var minLines: Int
        var enabled: Bool
        /// `file:line` of its decode function, for errors about what it returned.
        var location: String = ""
    }

    /// The registered decoders, in registration order (the prelude's `decoder_specs`, by field name).
    func decoderSpecs() -> [DecoderSpec] {
        var specs: [DecoderSpec] = []
        try? callCore("decoder_specs", results: 1) {
            for i in 0..<lua.rawLength(-1) {
                lua.rawIndex(-1, i + 1)
                // Each push moves the spec one slot down: the stack ends spec, name, ..., enabled.
                for (k, field) in ["name", "kind", "directions", "step", "min_lines", "enabled", "where"].enumerated() {
                    lua.rawField(Int32(-1 - k), field)
                }
                specs.append(DecoderSpec(index: i + 1, name: lua.string(at: -7) ?? "", kind: lua.string(at: -6) ?? "linear",
                                         directions: lua.string(at: -5) ?? "rows", step: lua.integer(at: -4) ?? 4,
                                         minLines: lua.integer(at: -3) ?? 1, enabled: lua.bool(at: -2), location: lua.string(at: -1) ?? ""))
                lua.pop(8)
            }
        }
        return specs
    }

    /// Different values one Lua decoder may give on one frame: more is a runaway decoder (each
    /// value becomes a symbol, an event and a record), not a picture of codes.
    package static let maxValuesPerFrame = 1000
    /// Different values one Lua decoder may offer on one frame before the rest are not looked at
    /// (what bounds memory: a value on one line is a candidate until `min_lines` lines agree).
    package static let maxCandidatesPerFrame = 20_000

    /// Whether any decoder is registered (the scanner then keeps frames for them).
    package var hasDecoders: Bool { !decoderSpecs().isEmpty }

    /// The symbologies the Lua decoders read (each decoder's name), for `--symbologies` and `simulate`.
    package var luaSymbologies: [String] { decoderSpecs().map(\.name) }

    /// Runs every enabled Lua decoder over `image` (inside `region` when set). A linear decoder
    /// sees every `step`-th row and/or column; a value found on at least `min_lines` neighbouring
    /// lines (with overlapping extents) becomes one symbol, its points the ends of the runs on
    /// those lines and its quality the line count.
    /// Decoder errors go to the log, once per decoder and frame; the frame goes on. A decoder
    /// gives at most ``maxValuesPerFrame`` symbols per frame, from at most ``maxCandidatesPerFrame``
    /// different values (noise read on single lines counts only toward the second); what is
    /// beyond is dropped and said, as a decoder failure.
    package func decode(_ image: GrayImage, region: Region?, info: FrameInfo) -> [Symbol] {
        let specs = decoderSpecs().filter { $0.enabled && (enabledDecoderNames?.contains($0.name) ?? true) }
        guard !specs.isEmpty else { return [] }
        try? callCore("clear_decoder_fields")
        let box = region.map { $0.box(inWidth: image.width, height: image.height) } ?? Box(x: 0, y: 0, width: image.width, height: image.height)
        guard let box else { return [] }
        var symbols: [Symbol] = []
        for spec in specs {
            var failure: String?
            var found: [[UInt8]: Hits] = [:]
            var order: [[UInt8]] = []
            var dropped = 0
            func record(_ values: [DecodedValue], line: Int, extent: ClosedRange<Int>, fallback: [Point]) {
                for v in values {
                    if found[v.bytes] == nil {
                        guard order.count < Self.maxCandidatesPerFrame else { dropped += 1; continue }
                        order.append(v.bytes)
                        found[v.bytes] = Hits()
                    }
                    found[v.bytes]!.add(line: line, extent: extent, points: v.points ?? fallback)
                }
            }
            if spec.kind == "image" {
                switch callDecoder(spec.index, push: { pushCore("frame_mt"); lua.pushFrame(image, box: box) }) {
                case .success(let values):
                    record(values.map { v in
                        DecodedValue(bytes: v.bytes, points: v.points?.map { Point(x: $0.x + box.x, y: $0.y + box.y) })
                    }, line: 0, extent: 0...0,
                       fallback: [Point(x: box.x, y: box.y), Point(x: box.x + box.width - 1, y: box.y + box.height - 1)])
                case .failure(let error): failure = located(error, spec)
                }
            } else {
                lines: for line in scanlines(image, box: box, directions: spec.directions, step: spec.step) {
                    switch callDecoder(spec.index, push: { lua.pushScanline(line.line) }) {
                    case .success(let values):
                        guard !values.isEmpty else { continue }
                        let l = line.line
                        let first = l.positions.first ?? l.origin
                        let last = (l.positions.last ?? first) + (l.widths.last ?? 1) - 1
                        let ends = l.direction == "row"
                            ? [Point(x: first, y: l.index), Point(x: last, y: l.index)]
                            : [Point(x: l.index, y: first), Point(x: l.index, y: last)]
                        record(values, line: line.sequence, extent: first...last, fallback: ends)
                    case .failure(let error):
                        failure = located(error, spec)
                        break lines
                    }
                }
            }
            let read = order.filter { (found[$0]?.best ?? 0) >= (spec.kind == "image" ? 1 : spec.minLines) }
            if failure == nil && (dropped > 0 || read.count > Self.maxValuesPerFrame) {
                failure = "more than \(Self.maxValuesPerFrame) different values on one frame"
                    + (dropped > 0 ? " (\(dropped) values past \(Self.maxCandidatesPerFrame) candidates were not looked at)" : "")
                    + ": the first \(min(read.count, Self.maxValuesPerFrame)) are kept"
            }
            if let failure {
                decoderFailures += 1
                log("scanlua: decoder '\(spec.name)' on \(info.source): \(failure)\n")
            }
            for bytes in read.prefix(Self.maxValuesPerFrame) {
                guard let hits = found[bytes] else { continue }
                var symbol = Symbol(symbology: Symbology(rawValue: spec.name), bytes: bytes,
                                    points: Symbol.outline(hits.bestPoints), quality: hits.best)
                symbol.orientation = "unknown"
                symbol.decoder = "lua"
                // A decoder may say anything about where: the record's points stay in the frame.
                symbols.append(symbol.clamped(width: image.width, height: image.height))
            }
        }
        return symbols
    }

    /// The lines on which one value was found, grouped into runs of neighbouring scan lines whose
    /// extents overlap: a code covers several neighbouring lines, noise does not line up like that.
    struct Hits {
        private var runs: [(lastLine: Int, extent: ClosedRange<Int>, count: Int, points: [Point])] = []
        var best: Int { runs.map(\.count).max() ?? 0 }
        var bestPoints: [Point] { runs.max { $0.count < $1.count }?.points ?? [] }

        mutating func add(line: Int, extent: ClosedRange<Int>, points: [Point]) {
            if let i = runs.lastIndex(where: { $0.lastLine == line - 1 && $0.extent.overlaps(extent) }) {
                runs[i].lastLine = line
                runs[i].extent = extent
                runs[i].count += 1
                runs[i].points += points
            } else if let i = runs.lastIndex(where: { $0.lastLine == line && $0.extent.overlaps(extent) }) {
                runs[i].points += points  // the same value twice on one line
            } else {
                runs.append((line, extent, 1, points))
            }
        }
    }

    /// The scan lines a linear decoder sees, centred in each `step`-pixel band, each with its
    /// sequence number among the lines of its direction (rows and columns never neighbour).
    func scanlines(_ image: GrayImage, box: Box, directions: String, step: Int) -> [(sequence: Int, line: Scanline)] {
        var lines: [(Int, Scanline)] = []
        if directions != "columns" {
            var y = box.y + step / 2, n = 0
            while y < box.y + box.height {
                let start = y * image.width + box.x
                if var line = Scanline.cut(Array(image.pixels[start..<start + box.width]), direction: "row", index: y, origin: box.x) {
                    line.edgeBefore = box.x == 0
                    line.edgeAfter = box.x + box.width == image.width
                    lines.append((n, line))
                }
                y += step
                n += 1
            }
        }
        if directions != "rows" {
            var x = box.x + step / 2, n = 1_000_000
            while x < box.x + box.width {
                let column = (box.y..<box.y + box.height).map { image.pixels[$0 * image.width + x] }
                if var line = Scanline.cut(column, direction: "column", index: x, origin: box.y) {
                    line.edgeBefore = box.y == 0
                    line.edgeAfter = box.y + box.height == image.height
                    lines.append((n, line))
                }
                x += step
                n += 1
            }
        }
        return lines
    }

    /// An error about what a decoder returned, at its decode function's `file:line` (a Lua error
    /// names its own line already).
    private func located(_ error: ScriptError, _ spec: DecoderSpec) -> String {
        if case .conversion = error, !spec.location.isEmpty { return spec.location + ": " + error.message }
        return error.message
    }

    private func callDecoder(_ index: Int, push: () -> Void) -> Result<[DecodedValue], ScriptError> {
        let base = lua.top
        defer { lua.setTop(base) }
        do {
            pushCore("call_decoder")
            lua.push(.int(index))
            try lua.withoutMemoryLimit { () throws(ScriptError) in push() }
            // Called from Lua (scan.decode_file in a test), stack slot 1 is not the engine's handler.
            try lua.call(nargs: 2, nresults: 2, handlerAt: decodingFromLua ? 0 : 1)
            guard lua.bool(at: -2) else { return .failure(.runtime(message: lua.string(at: -1) ?? "decoder failed", traceback: "")) }
            return .success(try lua.withoutMemoryLimit { () throws(ScriptError) in try lua.decodedValues(at: -1) })
        } catch {
            return .failure(error)
        }
    }
}
