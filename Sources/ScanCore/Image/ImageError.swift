/// Why an input could not be turned into a grayscale image.
package enum ImageError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file could not be read (errno text).
    case unreadable(path: String, reason: String)
    /// The bytes are a known format we do not decode (JPEG 2000, an MP4 video, ...).
    case unsupportedFormat(path: String, format: String)
    /// The bytes are no image format we know.
    case unknownFormat(path: String)
    /// The input has no bytes at all (a 0-byte file, empty stdin).
    case empty(path: String)
    /// The decoding library rejected the data (truncated, corrupt); `reason` is its message.
    case corrupt(path: String, format: String, reason: String)
    /// The header's dimensions exceed the pixel limit; nothing was allocated.
    case tooLarge(path: String, width: Int, height: Int, limit: Int)
    /// `--pages` selects none of a document's pages (or an animation's frames).
    case noPageSelected(path: String, count: String)
    /// A file found in a folder that is no image or document: not a failed input.
    case skipped(path: String, reason: String)
    /// `--roi` (as given) lies wholly outside this width x height image: nothing could be decoded.
    case regionOutside(path: String, region: String, width: Int, height: Int)

    package var path: String {
        switch self {
        case .unreadable(let p, _), .unsupportedFormat(let p, _), .unknownFormat(let p), .empty(let p),
             .corrupt(let p, _, _), .tooLarge(let p, _, _, _), .regionOutside(let p, _, _, _), .skipped(let p, _), .noPageSelected(let p, _):
            return p
        }
    }

    /// The reason alone, without the path: what an error record's `error` field holds.
    package var reason: String {
        switch self {
        case .unreadable(_, let r): return "cannot read file: \(r)"
        case .unsupportedFormat(_, let f): return "unsupported format \(f) (scanlua reads \(ImageFormat.readable))"
        case .unknownFormat: return "not an image or document: no signature of \(ImageFormat.readable)"
        case .empty: return "empty file"
        case .skipped(_, let r): return "skipped: \(r)"
        case .noPageSelected(_, let count): return "--pages selects none of its \(count)"
        case .corrupt(_, let f, let r): return "corrupt \(f): \(r)"
        case .tooLarge(_, let w, let h, let limit):
            // A hostile header's sizes can overflow their product: then it is only named as over.
            let (pixels, overflow) = w.multipliedReportingOverflow(by: h)
            let count = overflow ? "more than \(Int.max)" : "\(pixels)"
            return "image is \(w)x\(h) = \(count) pixels, over the limit of \(limit) (see --max-pixels)"
        case .regionOutside(_, let r, let w, let h):
            return "--roi \(r) lies outside the \(w)x\(h) image"
        }
    }

    package var description: String { "\(path): \(reason)" }
}
