import Foundation

/// PDF pages, rendered by Poppler's `pdftoppm` as a child process (poppler-utils): a PDF parser
/// has a long history of crashes, and a child with a time and memory limit keeps a hostile PDF
/// from taking the scan with it. The document reaches the child on its stdin; each page is one
/// run (`-f N -l N`), so the decoding threads render pages side by side, each as it gets to it.
enum PDFCodec: ImageCodec {
    static let name = "PDF"
    static let multiPage = true
    /// The renderer's memory is its own (its child process, with its own limit): here the
    /// page's gray pixels, twice (the PGM read, then the image).
    static let bytesPerPixel = 2
    static func pageSize(_ data: Data, page: Int, options: DecodeOptions) -> (width: Int, height: Int)? {
        try? pixelSize(data, page: page, dpi: options.dpi, name: "", options: options)
    }
    static func matches(_ head: [UInt8]) -> Bool {
        // The header may follow up to 1024 bytes of junk; writers put it first.
        starts(head, Array("%PDF-".utf8))
    }

    static func pages(_ data: Data, name: String, options: DecodeOptions) throws(ImageError) -> Int {
        let info = try pdfinfo(data, name: name, options: options, first: nil)
        // pdfinfo prints the document's Info strings (a Title may hold "Pages: 900") before its own
        // lines: the last line of each kind is pdfinfo's.
        guard let line = info.last(where: { $0.hasPrefix("Pages:") }),
              let n = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)), n > 0 else {
            throw .corrupt(path: name, format: self.name, reason: "no readable page (truncated or damaged: pdfinfo counts none)")
        }
        return min(n, options.maxPages + 1)
    }

    /// Page `page` (0-based) in pixels at `dpi`, from pdfinfo's size in points and its rotation.
    static func pixelSize(_ data: Data, page: Int, dpi: Int, name: String, options: DecodeOptions) throws(ImageError) -> (width: Int, height: Int) {
        let info = try pdfinfo(data, name: name, options: options, first: page + 1)
        // "Page    1 size:  595.276 x 841.89 pts (A4)" and "Page    1 rot:   90"
        guard let size = info.last(where: { $0.hasPrefix("Page ") && $0.contains(" size:") }) else {
            throw .corrupt(path: name, format: self.name, reason: "no page \(page + 1)")
        }
        let numbers = size.split(separator: ":", maxSplits: 1).last?.split(separator: " ").compactMap { Double($0) } ?? []
        guard numbers.count >= 2, numbers[0] > 0, numbers[1] > 0, numbers[0] < 1e6, numbers[1] < 1e6 else {
            throw .corrupt(path: name, format: self.name, reason: "page \(page + 1) has no usable size")
        }
        let rot = info.last(where: { $0.hasPrefix("Page ") && $0.contains(" rot:") }).flatMap { $0.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } } ?? 0
        let w = Int((numbers[0] / 72 * Double(dpi)).rounded(.up)), h = Int((numbers[1] / 72 * Double(dpi)).rounded(.up))
        return rot % 180 == 0 ? (w, h) : (h, w)
    }

    static func decode(_ data: Data, page: Int, name: String, options: DecodeOptions) throws(ImageError) -> GrayImage {
        try render(data, page: page, dpi: options.dpi, crop: nil, name: name, options: options)
    }

    static func decodeColor(_ data: Data, page: Int, name: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        let size = try pixelSize(data, page: page, dpi: options.dpi, name: name, options: options)
        try checkPixels(size, name: name, options: options)
        let png = try run("pdftoppm", ["-png", "-r", "\(options.dpi)", "-f", "\(page + 1)", "-l", "\(page + 1)", "-singlefile", "-q", "-"],
                          data, name: name, options: options, expected: size.width * size.height * 3)
        return try PNGDecoder.decodeColor(Data(png), name: name, maxPixels: options.maxPixels)
    }

    /// Page `page` (0-based) rendered in gray at `dpi`, or only `crop` of it (in pixels at `dpi`).
    static func render(_ data: Data, page: Int, dpi: Int, crop: Box?, name: String, options: DecodeOptions) throws(ImageError) -> GrayImage {
        var arguments = ["-gray", "-r", "\(dpi)", "-f", "\(page + 1)", "-l", "\(page + 1)", "-singlefile", "-q"]
        let size: (width: Int, height: Int)
        if let crop {
            arguments += ["-x", "\(crop.x)", "-y", "\(crop.y)", "-W", "\(crop.width)", "-H", "\(crop.height)"]
            size = (crop.width, crop.height)
        } else {
            size = try pixelSize(data, page: page, dpi: dpi, name: name, options: options)
        }
        try checkPixels(size, name: name, options: options)
        let pgm = try run("pdftoppm", arguments + ["-"], data, name: name, options: options, expected: size.width * size.height)
        let image = try PNMDecoder.decode(Data(pgm), name: name, maxPixels: options.maxPixels)
        // Poppler writes a 1x1 page when it cannot allocate the real one (and exits 0).
        guard crop != nil || (abs(image.width - size.width) <= 2 && abs(image.height - size.height) <= 2) else {
            throw .corrupt(path: name, format: self.name, reason: "pdftoppm rendered page \(page + 1) as \(image.width)x\(image.height)"
                           + " where \(size.width)x\(size.height) was expected (it could not allocate the page)")
        }
        return image
    }

    private static func checkPixels(_ size: (width: Int, height: Int), name: String, options: DecodeOptions) throws(ImageError) {
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        if overflow || pixels > options.maxPixels {
            throw .tooLarge(path: name, width: size.width, height: size.height, limit: options.maxPixels)
        }
    }

    private static func pdfinfo(_ data: Data, name: String, options: DecodeOptions, first: Int?) throws(ImageError) -> [String] {
        let range = first.map { ["-f", "\($0)", "-l", "\($0)"] } ?? []
        let out = try run("pdfinfo", range + ["-"], data, name: name, options: options, expected: 1 << 16)
        return String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Runs a Poppler program on the document (on its stdin) within the limits; its stdout.
    private static func run(_ program: String, _ arguments: [String], _ data: Data, name: String, options: DecodeOptions,
                            expected: Int) throws(ImageError) -> [UInt8] {
        let limits = ChildLimits(seconds: options.renderSeconds, memory: options.renderMemory, maxOutput: expected + (1 << 20))
        guard let out = runChild(program, arguments, input: data, limits: limits) else {
            throw .corrupt(path: name, format: self.name, reason: "cannot run \(program) (is poppler-utils installed? scripts/install-deps installs it)")
        }
        if let stopped = out.stopped { throw .corrupt(path: name, format: self.name, reason: "\(program) \(stopped): stopped") }
        guard out.status == 0 else {
            if out.status == 127 {  // the shell's "command not found"
                throw .corrupt(path: name, format: self.name, reason: "cannot run \(program) (is poppler-utils installed? scripts/install-deps installs it)")
            }
            let why = out.stderr.split(separator: "\n").last.map(String.init) ?? ""
            // Poppler finds no page tree in a truncated file, then refuses the page range "1-0".
            if why.contains("Wrong page range") {
                let first = out.stderr.split(separator: "\n").first.map { " (\($0))" } ?? ""
                throw .corrupt(path: name, format: self.name, reason: "no readable page: truncated or damaged" + first)
            }
            let how = out.status.map { "exit status \($0)" } ?? "killed by a signal (its memory limit?)"
            throw .corrupt(path: name, format: self.name, reason: "\(program) failed (\(how))" + (why.isEmpty ? "" : ": \(why)"))
        }
        return out.stdout
    }
}
