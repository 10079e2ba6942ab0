// The only Swift file that libFuzzer calls (LLVMFuzzerTestOneInput), in the `make fuzz` build.
#if FUZZING
import Foundation

/// The target SCANLUA_FUZZ_TARGET names (libFuzzer's own main parses the command line).
private let current: FuzzTarget = {
    guard let name = ProcessInfo.processInfo.environment["SCANLUA_FUZZ_TARGET"], let t = FuzzTarget(rawValue: name) else {
        FileHandle.standardError.write(Data("scanlua-fuzz: set SCANLUA_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " "))\n".utf8))
        exit(2)
    }
    return t
}()

@_cdecl("LLVMFuzzerTestOneInput")
package func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    current.run(size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
#endif
