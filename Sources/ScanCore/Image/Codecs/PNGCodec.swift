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

    /// The chunks a decode reads: the critical ones and those that change the pixels (tRNS,
    /// gAMA, cHRM, sRGB, sBIT). Text, ICC profiles, Exif and unknown chunks are left out before
    /// libpng sees them: 400 zTXt chunks inflating to 8 MB each took 3 GB, and no pixel depends
    /// on them. A chunk list that does not parse is handed over whole, for libpng to name.
    static func decodingChunks(of data: Data) -> Data {
        let kept: Set<String> = ["IHDR", "PLTE", "IDAT", "IEND", "tRNS", "gAMA", "cHRM", "sRGB", "sBIT"]
        let b = [UInt8](data)
        guard b.count > 8 else { return data }
        var out = Data(b[0..<8])
        var i = 8
        var dropped = false
        while i + 12 <= b.count {
            let length = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 0, length <= b.count - i - 12 else { return data }
            let type = String(decoding: b[i + 4..<i + 8], as: UTF8.self)
            if kept.contains(type) { out.append(contentsOf: b[i..<i + 12 + length]) } else { dropped = true }
            i += 12 + length
            if type == "IEND" { break }
        }
        return dropped ? out : data
    }
}
