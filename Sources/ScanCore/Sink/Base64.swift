import Foundation

extension Array where Element == UInt8 {
    /// Standard base64 with padding, as records carry `bytes`.
    public var base64: String { Data(self).base64EncodedString() }
}
