import Foundation

/// Turns image bytes into a ``GrayImage``; the format is chosen by magic bytes, never by extension.
package struct ImageLoader: Sendable {
    /// Images with more pixels than this are refused from their header, before allocation.
    package var maxPixels: Int

    package static let defaultMaxPixels = 50_000_000

    package init(maxPixels: Int = ImageLoader.defaultMaxPixels) {
        self.maxPixels = maxPixels
    }

    /// Reads and decodes the file at `path`.
    /// - Throws: ``ImageError`` naming the file and the reason.
    package func load(path: String) throws(ImageError) -> GrayImage {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: fileErrorReason(error))
        }
        return try decode(data, name: path)
    }

    /// Reads the file at `path` (or refuses it), without decoding it yet.
    /// A directory, FIFO or device is "not a regular file", said before reading (a FIFO would
    /// wait for a writer, /dev/zero never end).
    package func read(path: String) throws(ImageError) -> Data {
        switch readRegularFile(path) {
        case .success(let bytes): return Data(bytes)
        case .failure(let f): throw .unreadable(path: path, reason: f.reason)
        }
    }

    /// Decodes image bytes at 1/`reduction` size (2, 4 or 8; 1 is full size): JPEG straight
    /// from its DCT coefficients, other formats decoded whole and box-filtered.
    package func decode(_ data: Data, name: String, reduction: Int) throws(ImageError) -> GrayImage {
        guard reduction > 1 else { return try decode(data, name: name) }
        if ImageFormat.sniff(data) == .jpeg { return try JPEGDecoder.decode(data, name: name, maxPixels: maxPixels, reduction: reduction) }
        return try decode(data, name: name).reduced(by: reduction)
    }

    /// Decodes image bytes in color, at full size: for the copies that annotated images and saved
    /// frames draw on. PNM files are gray (their samples repeated in R, G and B).
    package func decodeColor(_ data: Data, name: String) throws(ImageError) -> RGBImage {
        guard !data.isEmpty else { throw .empty(path: name) }
        switch ImageFormat.sniff(data) {
        case .jpeg: return try JPEGDecoder.decodeColor(data, name: name, maxPixels: maxPixels)
        case .png: return try PNGDecoder.decodeColor(data, name: name, maxPixels: maxPixels)
        default: return RGBImage(try decode(data, name: name))
        }
    }

    /// Decodes image bytes; `name` is what errors call the input (a path, or "-" for stdin).
    package func decode(_ data: Data, name: String) throws(ImageError) -> GrayImage {
        guard !data.isEmpty else { throw .empty(path: name) }
        let format = ImageFormat.sniff(data)
        switch format {
        case .jpeg: return try JPEGDecoder.decode(data, name: name, maxPixels: maxPixels)
        case .png: return try PNGDecoder.decode(data, name: name, maxPixels: maxPixels)
        case .pnm: return try PNMDecoder.decode(data, name: name, maxPixels: maxPixels)
        case .other(let label): throw .unsupportedFormat(path: name, format: label)
        case .unknown: throw .unknownFormat(path: name)
        }
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

/// The image formats recognised by their first bytes.
package enum ImageFormat: Equatable, Sendable {
    case jpeg, png, pnm
    /// A format we recognise but do not decode, by name.
    case other(String)
    case unknown

    package static func sniff(_ data: Data) -> ImageFormat {
        let b = [UInt8](data.prefix(12))
        func starts(_ sig: [UInt8]) -> Bool { b.count >= sig.count && Array(b[0..<sig.count]) == sig }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if b.count >= 2, b[0] == UInt8(ascii: "P"), [UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "5"),
                                                      UInt8(ascii: "6")].contains(b[1]) { return .pnm }
        if b.count >= 2, b[0] == UInt8(ascii: "P"), [UInt8(ascii: "1"), UInt8(ascii: "4"), UInt8(ascii: "7")].contains(b[1]) {
            return .other("PBM/PAM")
        }
        if starts(Array("GIF8".utf8)) { return .other("GIF") }
        if starts(Array("RIFF".utf8)), b.count >= 12, Array(b[8..<12]) == Array("WEBP".utf8) { return .other("WebP") }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .other("TIFF") }
        if starts(Array("BM".utf8)) { return .other("BMP") }
        if b.count >= 12, Array(b[4..<8]) == Array("ftyp".utf8) { return .other("HEIF/AVIF") }
        if starts([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50]) || starts([0xFF, 0x4F, 0xFF, 0x51]) { return .other("JPEG 2000") }
        if starts(Array("%PDF".utf8)) { return .other("PDF") }
        return .unknown
    }
}
