import Foundation

/// A file's identity from its bytes, 128 bits as 32 hex digits: what makes a watched folder scan
/// a file once per content and gives a still image's deliveries the same idempotency keys
/// whenever the same bytes are scanned again. Not a cryptographic hash (an attacker who can
/// write into the folder has simpler ways to disturb it); two multiply-xorshift lanes over
/// 8-byte words, fast enough to run on every image file.
package enum ContentHash {
    package static func hex(_ data: Data) -> String {
        var a: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(data.count), b: UInt64 = 0xC2B2_AE3D_27D4_EB4F &+ UInt64(data.count)
        data.withUnsafeBytes { raw in
            var i = 0
            while i + 8 <= raw.count {
                let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                a = (a ^ w) &* 0xFF51_AFD7_ED55_8CCD
                a ^= a >> 32
                b = (b ^ (w &+ 0x1656_67B1_9E37_79F9)) &* 0xC4CE_B9FE_1A85_EC53
                b ^= b >> 29
                i += 8
            }
            var tail: UInt64 = 0
            for j in i..<raw.count { tail = tail << 8 | UInt64(raw[j]) }
            a = (a ^ tail) &* 0xFF51_AFD7_ED55_8CCD
            b = (b ^ tail ^ 0xA5A5) &* 0xC4CE_B9FE_1A85_EC53
        }
        func mix(_ x: UInt64) -> UInt64 {
            var z = x
            z = (z ^ (z >> 33)) &* 0xFF51_AFD7_ED55_8CCD
            z = (z ^ (z >> 33)) &* 0xC4CE_B9FE_1A85_EC53
            return z ^ (z >> 33)
        }
        return String(format: "%016llx%016llx", mix(a ^ (b >> 17)), mix(b ^ (a << 13)))
    }
}
