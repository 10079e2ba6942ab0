import Foundation

/// One image or document file format: recognised by its first bytes, sized from its header
/// before anything is allocated, decoded to gray (for the decoders) or color (for annotated
/// copies), page by page. Adding a format is one conforming type in `Image/Codecs/` and one
/// entry in ``ImageCodecs/all``.
package protocol ImageCodec: SendableMetatype {
    /// The format's name in messages ("TIFF").
    static var name: String { get }
    /// Whether a file's first bytes (up to 32; fewer when the file is shorter) are this format's.
    static func matches(_ head: [UInt8]) -> Bool
    /// The first page's size from the header alone, or nil when the header does not say cheaply.
    static func size(_ data: Data) -> (width: Int, height: Int)?
    /// Page `page`'s size as decoded, before decoding (nil: not known beforehand).
    static func pageSize(_ data: Data, page: Int, options: DecodeOptions) -> (width: Int, height: Int)?
    /// Bytes a decode holds per pixel of the page at its peak (intermediate RGBA rasters,
    /// canvases): what the decoding threads' shared budget reserves.
    static var bytesPerPixel: Int { get }
    /// Whether a file may hold several pages or frames: the source then reads and counts it,
    /// and hands its pages over one by one (single-page ones too: their records carry `page`).
    static var multiPage: Bool { get }
    /// How a file's several images are numbered: pages of a document, or frames of an animation.
    static var numbering: PageNumbering { get }
    /// The most pages (or frames) read from this file (``DecodeOptions/maxPages``, or fewer
    /// where each costs more: a GIF frame is the whole screen drawn again).
    static func pageLimit(_ data: Data, options: DecodeOptions) -> Int
    /// How many pages (or frames) the file holds, counted to one past ``pageLimit(_:options:)``.
    static func pages(_ data: Data, name: String, options: DecodeOptions) throws(ImageError) -> Int
    /// Page `page` (0-based) in gray.
    static func decode(_ data: Data, page: Int, name: String, options: DecodeOptions) throws(ImageError) -> GrayImage
    /// Page `page` (0-based) in color.
    static func decodeColor(_ data: Data, page: Int, name: String, options: DecodeOptions) throws(ImageError) -> RGBImage
}

/// How a multi-image file's images are numbered in records.
package enum PageNumbering: Sendable {
    /// A document's pages (PDF, TIFF): records carry `page`, from 1.
    case pages
    /// An animation's frames (GIF): records carry `frame`, from 0, as a stream's frames do.
    case frames
}

/// What decoding may cost and how documents are rendered.
package struct DecodeOptions: Sendable, Equatable {
    /// Images with more pixels than this are refused from their header, before allocation.
    package var maxPixels: Int
    /// Resolution a PDF page is rendered at.
    package var dpi: Int = 300
    /// Files larger than this many bytes are refused before they are read (`--max-file-size`).
    package var maxFileBytes = DecodeOptions.defaultMaxFileBytes
    package static let defaultMaxFileBytes = 200 << 20
    /// At most this many pages or frames of one file are read (a long IFD chain, an animation).
    package var maxPages: Int = 1000
    /// Seconds a PDF page's renderer may run.
    package var renderSeconds: Double = 60
    /// Address space (bytes) a PDF page's renderer may take.
    package var renderMemory: Int = 2 << 30
    /// The pages (or frames) read of a multi-page file (`--pages`); nil: all.
    package var pages: PageSelection?
    package init(maxPixels: Int) { self.maxPixels = maxPixels }

    /// A read failure's reason, with the flag that raises the size limit when that was it.
    package func sizeReason(_ reason: String) -> String {
        reason.hasPrefix("larger than") ? reason + ", the limit of --max-file-size" : reason
    }
}

extension ImageCodec {
    package static func size(_ data: Data) -> (width: Int, height: Int)? { nil }
    package static var multiPage: Bool { false }
    package static func pageSize(_ data: Data, page: Int, options: DecodeOptions) -> (width: Int, height: Int)? {
        page == 0 ? size(data) : nil
    }
    package static var bytesPerPixel: Int { 1 }
    package static func pageLimit(_ data: Data, options: DecodeOptions) -> Int { options.maxPages }
    package static var numbering: PageNumbering { .pages }
    package static func pages(_ data: Data, name: String, options: DecodeOptions) throws(ImageError) -> Int { 1 }
    package static func decodeColor(_ data: Data, page: Int, name: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        RGBImage(try decode(data, page: page, name: name, options: options))
    }
}

/// The formats scanlua reads, in the order their signatures are tried, and those it recognises
/// but does not read (named in the error).
package enum ImageCodecs {
    package static let all: [any ImageCodec.Type] = [
        JPEGCodec.self, PNGCodec.self, PNMCodec.self, TIFFCodec.self, WebPCodec.self, HEIFCodec.self, GIFCodec.self,
        BMPCodec.self, PDFCodec.self,
    ]

    /// Formats recognised by their signature that no codec reads: the error names them.
    static let unread: [(name: String, matches: @Sendable ([UInt8]) -> Bool)] = [
        ("JPEG 2000", { starts($0, [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50]) || starts($0, [0xFF, 0x4F, 0xFF, 0x51]) }),
        ("PBM/PAM", { $0.count >= 2 && $0[0] == UInt8(ascii: "P") && [UInt8(ascii: "1"), UInt8(ascii: "4"), UInt8(ascii: "7")].contains($0[1]) }),
        ("MP4/MOV video", { ISOBrands.kind($0) == .video }),
        ("HEIF image sequence", { ISOBrands.kind($0) == .sequence }),
        ("PostScript/EPS", { starts($0, Array("%!PS".utf8)) || starts($0, [0xC5, 0xD0, 0xD3, 0xC6]) }),
        ("SVG", { let t = String(decoding: $0, as: UTF8.self); return t.contains("<svg") || t.hasPrefix("<?xml") }),
    ]

    /// The codec whose signature the bytes carry, or nil.
    static func codec(for head: [UInt8]) -> (any ImageCodec.Type)? {
        all.first { $0.matches(head) }
    }
}

/// Whether `bytes` begins with `prefix`.
func starts(_ bytes: [UInt8], _ prefix: [UInt8]) -> Bool {
    bytes.count >= prefix.count && bytes[0..<prefix.count].elementsEqual(prefix)
}

/// The brands of an ISO base media file's `ftyp` box: HEIF/AVIF stills, image sequences, and
/// MP4/MOV video share the box and differ only there.
enum ISOBrands {
    enum Kind { case still, sequence, video }

    static func kind(_ head: [UInt8]) -> Kind? {
        guard head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let boxSize = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        var brands = [String(decoding: head[8..<12], as: UTF8.self)]
        var i = 16
        while i + 4 <= min(head.count, max(boxSize, 16)) {
            brands.append(String(decoding: head[i..<i + 4], as: UTF8.self))
            i += 4
        }
        let stills: Set<String> = ["heic", "heix", "heim", "heis", "mif1", "mif2", "avif", "avio", "miaf"]
        let sequences: Set<String> = ["msf1", "hevc", "hevx", "avis"]
        // The major brand decides; a video file lists no still-image brand among the rest.
        if stills.contains(brands[0]) { return .still }
        if sequences.contains(brands[0]) { return .sequence }
        if brands.contains(where: stills.contains) { return .still }
        return .video
    }
}

/// The image formats recognised by their first bytes.
package struct ImageFormat: Equatable, Sendable, CustomStringConvertible {
    /// The format's name ("TIFF"); empty when nothing was recognised.
    package let name: String
    /// The codec that reads it; nil for a format recognised but not read, or none at all.
    package let codec: (any ImageCodec.Type)?

    package static func == (a: ImageFormat, b: ImageFormat) -> Bool { a.name == b.name && (a.codec == nil) == (b.codec == nil) }
    package var description: String { name.isEmpty ? "unknown" : name }

    package static let jpeg = ImageFormat(name: JPEGCodec.name, codec: JPEGCodec.self)
    package static let png = ImageFormat(name: PNGCodec.name, codec: PNGCodec.self)
    package static let pnm = ImageFormat(name: PNMCodec.name, codec: PNMCodec.self)
    /// Recognised, not read.
    package static func other(_ name: String) -> ImageFormat { ImageFormat(name: name, codec: nil) }
    package static let unknown = ImageFormat(name: "", codec: nil)

    /// How many first bytes sniffing looks at.
    package static let headLength = 32

    package static func sniff(_ data: Data) -> ImageFormat {
        sniff(head: [UInt8](data.prefix(headLength)))
    }

    package static func sniff(head: [UInt8]) -> ImageFormat {
        if let codec = ImageCodecs.codec(for: head) { return ImageFormat(name: codec.name, codec: codec) }
        if let other = ImageCodecs.unread.first(where: { $0.matches(head) }) { return .other(other.name) }
        return .unknown
    }

    /// The names of the formats read, for messages ("JPEG, PNG, ...").
    package static var readable: String { ImageCodecs.all.map { $0.name }.joined(separator: ", ") }
}

/// A list of page ranges, from 1 (`--pages 1-3,7` or `5-`).
package struct PageSelection: Sendable, Equatable {
    package let ranges: [ClosedRange<Int>]

    /// Parses `1-3,7,10-`; nil with the reason when the text is no such list.
    package init(parsing text: String) throws(OptionError) {
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let ends = part.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let first = Int(ends[0]), first >= 1 else { throw OptionError("--pages: '\(part)' is not a page or range like 1-3 (pages count from 1)") }
            if ends.count == 1 { ranges.append(first...first); continue }
            if ends[1].isEmpty { ranges.append(first...Int.max / 2); continue }
            guard let last = Int(ends[1]), last >= first else { throw OptionError("--pages: '\(part)' is not a range like 1-3 (first <= last)") }
            ranges.append(first...last)
        }
        self.ranges = ranges
    }

    /// Whether page `number` (from 1) is selected.
    package func contains(_ number: Int) -> Bool { ranges.contains { $0.contains(number) } }
}
