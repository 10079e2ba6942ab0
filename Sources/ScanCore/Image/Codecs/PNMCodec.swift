import Foundation

/// Netpbm graymaps and pixmaps (P2, P3, P5, P6), parsed in Swift (`PNMDecoder`).
enum PNMCodec: ImageCodec {
    static let name = "PNM"
    static func matches(_ head: [UInt8]) -> Bool {
        head.count >= 2 && head[0] == UInt8(ascii: "P") && [UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "5"), UInt8(ascii: "6")].contains(head[1])
    }
    static func decode(_ data: Data, page: Int, name: String, options: DecodeOptions) throws(ImageError) -> GrayImage {
        try PNMDecoder.decode(data, name: name, maxPixels: options.maxPixels)
    }
}
