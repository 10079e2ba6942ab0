import Foundation

/// JPEG through libjpeg-turbo (`JPEG+C.swift`): also decoded small, from its DCT coefficients.
enum JPEGCodec: ImageCodec {
    static let name = "JPEG"
    static func matches(_ head: [UInt8]) -> Bool { starts(head, [0xFF, 0xD8, 0xFF]) }
    static func size(_ data: Data) -> (width: Int, height: Int)? { JPEGHeader.size(data) }
    static func decode(_ data: Data, page: Int, name: String, options: DecodeOptions) throws(ImageError) -> GrayImage {
        try JPEGDecoder.decode(data, name: name, maxPixels: options.maxPixels)
    }
    static func decodeColor(_ data: Data, page: Int, name: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        try JPEGDecoder.decodeColor(data, name: name, maxPixels: options.maxPixels)
    }
}
