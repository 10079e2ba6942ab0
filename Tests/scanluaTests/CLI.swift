import Foundation
import XCTest

/// Runs the built `scanlua` binary and captures what a user would see.
enum CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Peak resident memory of the process (GNU time's %M), with `timed: true`.
        var peakKilobytes: Int?
        /// stdout parsed as NDJSON, one dictionary per line.
        var records: [[String: Any]] {
            stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var binary: URL {
        // The test bundle sits in (or is) the products directory of the same build.
        var products = Bundle(for: Marker.self).bundleURL
        if products.pathExtension == "xctest" { products.deleteLastPathComponent() }
        return products.appendingPathComponent("scanlua")
    }

    static func fixture(_ name: String) -> String {
        packageRoot.appendingPathComponent("Tests/ScanCoreTests/Fixtures/\(name)").path
    }

    @discardableResult
    /// - Parameter timed: run under GNU time, for ``Result/peakKilobytes``.
    static func run(_ args: [String], stdin: Data? = nil, cwd: URL? = nil, env: [String: String] = [:],
                    timed: Bool = false) throws -> Result {
        let p = Process()
        let timeFile = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-time-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: timeFile) }
        if timed {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/time")
            p.arguments = ["-f", "%M", "-o", timeFile, binary.path] + args
        } else {
            p.executableURL = binary
            p.arguments = args
        }
        p.currentDirectoryURL = cwd ?? packageRoot
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in env { environment[k] = v }
        p.environment = environment
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = inp
        try p.run()
        if let stdin { inp.fileHandleForWriting.write(stdin) }
        try inp.fileHandleForWriting.close()
        // Read both pipes before waiting so a large output cannot block the child.
        let errData = ReadAll(err.fileHandleForReading)
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        var result = Result(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                            stderr: String(decoding: errData.wait(), as: UTF8.self))
        if timed {
            result.peakKilobytes = (try? String(contentsOfFile: timeFile, encoding: .utf8))
                .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").last ?? "") }
        }
        return result
    }

    private final class Marker {}
}

/// Reads a pipe to its end on another thread.
final class ReadAll: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
