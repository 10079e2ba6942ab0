import Foundation

/// PNG through libpng's simplified API (`PNG+C.swift`).
enum PNGCodec: ImageCodec {
    static let name = "PNG"
    static func matches(_ head: [UInt8]) -> Bool { starts(head, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) }
    static func size(_ data: Data) -> (width: Int, height: Int)? {
        guard data.count >= 24 else { return nil }
        let b = [UInt8](data.prefix(24))
        func be32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        let w = be32(16), h = be32(20)
        return w > 0 && h > 0 && w < 1 << 24 && h < 1 << 24 ? (w, h) : nil
    }
    static func decode(_ data: Data, page: Int, name: String, options: DecodeOptions) throws(ImageError) -> GrayImage {
        try PNGDecoder.decode(data, name: name, maxPixels: options.maxPixels)
    }
    static func decodeColor(_ data: Data, page: Int, name: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        try PNGDecoder.decodeColor(data, name: name, maxPixels: options.maxPixels)
    }
}
