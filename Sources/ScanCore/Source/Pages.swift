import Foundation

/// A document's pages as inputs of their own: a PDF, a TIFF (single-page ones too: their records
/// carry `page`), an animated GIF, or images concatenated on stdin (`pdftoppm | scanlua scan -`).
/// The source reads and counts the document once; each page is then decoded by whichever
/// decoding thread is free, so pages are rendered and decoded side by side.
package enum Pages {
    /// The inputs `input` stands for: its pages, or itself (a plain image is read by a decoding
    /// thread, as before). `foundInFolder`: a file a folder walk or a watched folder found, which
    /// is skipped with a word when its first bytes are no image or document (one named on the
    /// command line is an error record instead).
    package static func expand(_ input: Input, options: DecodeOptions, foundInFolder: Bool = false) -> [Input] {
        func skipped(_ path: String, _ head: [UInt8]) -> [Input]? {
            guard foundInFolder, !head.isEmpty, ImageFormat.sniff(head: head) == .unknown else { return nil }
            return [.skipped(path, reason: "no signature of \(ImageFormat.readable)")]
        }
        switch input {
        case .file(let path):
            guard case .success(let head) = readRegularFileHead(path, count: ImageFormat.headLength) else { return [input] }
            if let skipped = skipped(path, head) { return skipped }
            guard ImageFormat.sniff(head: head).codec?.multiPage == true else { return [input] }
            switch readRegularFile(path, limit: options.maxFileBytes) {
            case .success(let bytes): return expand(Data(bytes), name: path, options: options) ?? [.data(Data(bytes), name: path)]
            case .failure(let f): return [.missing(path, reason: options.sizeReason(f.reason))]
            }
        case .data(let data, let name):
            if let skipped = skipped(name, [UInt8](data.prefix(ImageFormat.headLength))) { return skipped }
            if let pages = expand(data, name: name, options: options) { return pages }
            // Images one after another on stdin: each is a frame of its own.
            let parts = ImageSplitter.parts(of: data)
            // What follows the last whole image (a truncated one, a format not split) is said.
            let rest = data.count - (parts.last?.upperBound ?? 0)
            let tail: [Input] = parts.isEmpty || rest <= 2 ? [] : [.skipped(name, reason: "\(rest) bytes after image \(parts.count) are no whole"
                                                                            + " JPEG, PNG or binary PNM (truncated, or another format: one image of those per input)")]
            guard parts.count > 1 else { return [input] + tail }
            let doc = Document(name: name, data: data, count: parts.count, numbering: .frames, parts: parts)
            return (0..<parts.count).filter { options.pages?.contains($0 + 1) ?? true }.map { .page(doc, $0) } + tail
        default:
            return [input]
        }
    }

    /// A multi-page format's pages; nil when the bytes are not one. A file whose pages cannot be
    /// counted, or a `--pages` list that selects none of them, is an error record; pages past the
    /// cap are said, not dropped without a word.
    private static func expand(_ data: Data, name: String, options: DecodeOptions) -> [Input]? {
        guard let codec = ImageFormat.sniff(data).codec, codec.multiPage else { return nil }
        let counted: Int
        do { counted = try codec.pages(data, name: name, options: options) } catch { return [.failed(error)] }
        // Counting stops one past the cap: more than the cap means some are left.
        let count = min(counted, codec.pageLimit(data, options: options))
        let doc = Document(name: name, data: data, count: count, numbering: codec.numbering)
        let selected = (0..<count).filter { options.pages?.contains($0 + 1) ?? true }
        let what = codec.numbering == .pages ? "pages" : "frames"
        var inputs: [Input] = selected.map { .page(doc, $0) }
        if inputs.isEmpty {
            return [.failed(.noPageSelected(path: name, count: "\(counted > count ? "more than \(count)" : "\(count)") \(what)"))]
        }
        if counted > count {
            inputs.append(.skipped(name, reason: "\(what) after the first \(count) not read (the most read from one file)"))
        }
        return inputs
    }
}

/// Where each image of several concatenated ones starts and ends: PNG by its chunks, PNM by its
/// header, JPEG by its markers. What follows the last whole image is ignored.
package enum ImageSplitter {
    package static func parts(of data: Data) -> [Range<Int>] {
        let b = [UInt8](data)
        var parts: [Range<Int>] = []
        var at = 0
        while at < b.count, parts.count < 10_000 {
            let head = Array(b[at..<min(b.count, at + ImageFormat.headLength)])
            let end: Int?
            switch ImageFormat.sniff(head: head) {
            case .png: end = pngEnd(b, at)
            case .pnm: end = pnmEnd(b, at)
            case .jpeg: end = jpegEnd(b, at)
            default: end = nil
            }
            guard let end, end > at else { break }
            parts.append(at..<end)
            at = end
            while at < b.count, b[at] == 0x0A || b[at] == 0x0D || b[at] == 0x20 { at += 1 }
        }
        return parts
    }

    private static func be32(_ b: [UInt8], _ i: Int) -> Int {
        Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
    }

    private static func pngEnd(_ b: [UInt8], _ start: Int) -> Int? {
        var i = start + 8
        while i + 12 <= b.count {
            let length = be32(b, i)
            guard length >= 0, length < 1 << 31 else { return nil }
            let isEnd = b[i + 4..<i + 8].elementsEqual("IEND".utf8)
            i += 12 + length
            if isEnd { return i <= b.count ? i : nil }
        }
        return nil
    }

    /// Binary PNM (P5, P6) only: their size follows from the header.
    private static func pnmEnd(_ b: [UInt8], _ start: Int) -> Int? {
        guard start + 2 < b.count, b[start + 1] == UInt8(ascii: "5") || b[start + 1] == UInt8(ascii: "6") else { return nil }
        var i = start + 2
        var numbers: [Int] = []
        while numbers.count < 3, i < b.count {
            if b[i] == UInt8(ascii: "#") { while i < b.count, b[i] != 0x0A { i += 1 }; continue }
            if b[i] >= 0x30 && b[i] <= 0x39 {
                var n = 0
                while i < b.count, b[i] >= 0x30 && b[i] <= 0x39, n < 1 << 30 { n = n * 10 + Int(b[i] - 0x30); i += 1 }
                numbers.append(n)
            } else { i += 1 }
        }
        guard numbers.count == 3, i < b.count, numbers[0] > 0, numbers[1] > 0, numbers[2] > 0 else { return nil }
        i += 1  // the one whitespace after maxval
        let (pixels, o1) = numbers[0].multipliedReportingOverflow(by: numbers[1])
        let sample = (b[start + 1] == UInt8(ascii: "6") ? 3 : 1) * (numbers[2] > 255 ? 2 : 1)
        let (size, o2) = pixels.multipliedReportingOverflow(by: sample)
        let (end, o3) = i.addingReportingOverflow(size)
        guard !o1, !o2, !o3, end <= b.count else { return nil }
        return end
    }

    /// Walks the markers to EOI; entropy-coded data is skipped to the next marker that is not a
    /// stuffed byte or a restart.
    private static func jpegEnd(_ b: [UInt8], _ start: Int) -> Int? {
        var i = start + 2
        while i + 1 < b.count {
            guard b[i] == 0xFF else { return nil }
            let m = b[i + 1]
            if m == 0xFF { i += 1; continue }
            if m == 0xD9 { return i + 2 }
            if m == 0x01 || (m >= 0xD0 && m <= 0xD7) { i += 2; continue }
            guard i + 3 < b.count else { return nil }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            i += 2 + length
            if m == 0xDA {
                while i + 1 < b.count, !(b[i] == 0xFF && b[i + 1] != 0x00 && !(b[i + 1] >= 0xD0 && b[i + 1] <= 0xD7)) { i += 1 }
            }
        }
        return nil
    }
}
