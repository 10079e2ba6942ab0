import Foundation

/// Turns image and document bytes into ``GrayImage``s; the format is chosen by magic bytes,
/// never by extension (``ImageCodecs``).
package struct ImageLoader: Sendable {
    /// Limits and the PDF resolution, for every codec.
    package var options: DecodeOptions

    /// Images with more pixels than this are refused from their header, before allocation.
    package var maxPixels: Int {
        get { options.maxPixels }
        set { options.maxPixels = newValue }
    }

    package static let defaultMaxPixels = 50_000_000

    package init(maxPixels: Int = ImageLoader.defaultMaxPixels, dpi: Int = 300) {
        options = DecodeOptions(maxPixels: maxPixels)
        options.dpi = dpi
    }

    /// Reads and decodes the file at `path` (its first page).
    /// - Throws: ``ImageError`` naming the file and the reason.
    package func load(path: String) throws(ImageError) -> GrayImage {
        try decode(try read(path: path), name: path)
    }

    /// Reads the file at `path` (or refuses it), without decoding it yet.
    /// A directory, FIFO or device is "not a regular file", said before reading (a FIFO would
    /// wait for a writer, /dev/zero never end).
    package func read(path: String) throws(ImageError) -> Data {
        switch readRegularFile(path, limit: options.maxFileBytes) {
        case .success(let bytes): return Data(bytes)
        case .failure(let f): throw .unreadable(path: path, reason: options.sizeReason(f.reason))
        }
    }

    /// Decodes image bytes at 1/`reduction` size (2, 4 or 8; 1 is full size): JPEG straight
    /// from its DCT coefficients, other formats decoded whole and box-filtered.
    package func decode(_ data: Data, name: String, reduction: Int) throws(ImageError) -> GrayImage {
        guard reduction > 1 else { return try decode(data, name: name) }
        if ImageFormat.sniff(data) == .jpeg { return try JPEGDecoder.decode(data, name: name, maxPixels: maxPixels, reduction: reduction) }
        return try decode(data, name: name).reduced(by: reduction)
    }

    /// Decodes page `page` (0-based) in color, at full size: for the copies that annotated
    /// images and saved frames draw on. PNM files are gray (their samples repeated in R, G and B).
    package func decodeColor(_ data: Data, name: String, page: Int = 0) throws(ImageError) -> RGBImage {
        try codec(data, name: name).decodeColor(data, page: page, name: name, options: options)
    }

    /// Decodes page `page` (0-based) of image or document bytes; `name` is what errors call the
    /// input (a path, or "-" for stdin).
    package func decode(_ data: Data, name: String, page: Int = 0) throws(ImageError) -> GrayImage {
        try codec(data, name: name).decode(data, page: page, name: name, options: options)
    }

    /// How many pages (or frames) the bytes hold, and how they are numbered.
    package func pages(_ data: Data, name: String) throws(ImageError) -> (count: Int, numbering: PageNumbering) {
        let codec = try codec(data, name: name)
        return (try codec.pages(data, name: name, options: options), codec.numbering)
    }

    /// The codec for these bytes, or the error that names why there is none.
    package func codec(_ data: Data, name: String) throws(ImageError) -> any ImageCodec.Type {
        guard !data.isEmpty else { throw .empty(path: name) }
        let format = ImageFormat.sniff(data)
        if let codec = format.codec { return codec }
        if format == .unknown { throw .unknownFormat(path: name) }
        throw .unsupportedFormat(path: name, format: format.name)
    }
}

/// The errno text of a Foundation file error ("No such file or directory"), for messages naming a file.
package func fileErrorReason(_ error: Error) -> String {
    let ns = error as NSError
    if let posix = ns.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
        return String(cString: strerror(Int32(posix.code)))
    }
    switch ns.code {
    case NSFileReadNoSuchFileError: return "No such file or directory"
    case NSFileReadNoPermissionError: return "Permission denied"
    default: return ns.localizedDescription
    }
}
