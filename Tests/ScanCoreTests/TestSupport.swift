import Foundation

/// A small seeded generator (SplitMix64), so every random test reproduces from its seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` bytes from a fresh generator seeded with `seed`.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var g = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: g.next()) }
    }
}

/// A pipe whose read end yields `bytes` and then end-of-file. The bytes are written on a
/// thread of their own, so streams larger than the pipe buffer work too.
func pipeReading(_ bytes: [UInt8]) -> FileHandle {
    let pipe = Pipe()
    let writer = pipe.fileHandleForWriting
    let data = Data(bytes)
    Thread {
        writer.write(data)
        try? writer.close()
    }.start()
    return pipe.fileHandleForReading
}

/// The raw bytes of a fixture file.
func fixtureBytes(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path(name))))
}
