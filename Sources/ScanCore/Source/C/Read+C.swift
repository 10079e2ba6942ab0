// The only Swift file that calls read(2) on a stream's descriptor.
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileHandle {
    /// One read(2) of at most `max` bytes: what has arrived (at least one byte, waiting only for
    /// the first), an empty array at the end of the stream, or nil on an error. Unlike
    /// `read(upToCount:)`, which waits until `max` bytes or the end, this hands a live pipe's last
    /// frame over as soon as its bytes are in (a paused producer's frame is not held back).
    func readSome(max: Int) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: Swift.max(1, max))
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
            if n >= 0 { return Array(chunk[0..<n]) }
            if errno != EINTR { return nil }
        }
    }
}
