import Foundation

/// A JPEG's size from its frame header (SOFn), without decoding: for choosing the pyramid's
/// reduction before libjpeg runs.
enum JPEGHeader {
    static func size(_ data: Data) -> (width: Int, height: Int)? {
        let b = [UInt8](data.prefix(1 << 20))
        guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2
        while i + 9 < b.count {
            guard b[i] == 0xFF else { return nil }
            let m = b[i + 1]
            if m == 0xFF { i += 1; continue }  // fill byte
            if m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7) { i += 2; continue }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            // SOF0...SOF15 except DHT (C4), JPG (C8) and DAC (CC).
            if m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC {
                let h = Int(b[i + 5]) << 8 | Int(b[i + 6]), w = Int(b[i + 7]) << 8 | Int(b[i + 8])
                return w > 0 && h > 0 ? (w, h) : nil
            }
            if m == 0xDA || m == 0xD9 { return nil }
            i += 2 + length
        }
        return nil
    }
}
