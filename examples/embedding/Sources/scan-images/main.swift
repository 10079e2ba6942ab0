// Scans the images of a folder with the shipped handlers and prints, for each code, its
// file, its payload's type and the handler's summary. Usage: scan-images [FOLDER]
import Foundation
import ScanluaKit

let folder = CommandLine.arguments.dropFirst().first ?? "examples/images"
var settings = ScanSettings()
settings.store = ":memory:"  // the handlers' store lives as long as the program
settings.summaries = true

do {
    let engine = try ScanEngine(settings)
    for try await record in engine.records(from: .paths([folder])) {
        let file = URL(fileURLWithPath: record.source).lastPathComponent
        if let error = record.error {
            print("\(file): error: \(error)")
            continue
        }
        guard record.symbology != nil else { continue }  // a frame's warnings alone
        print("\(file): \(record.payload?["type"]?.string ?? "raw")")
        for line in record.summary?.split(separator: "\n", omittingEmptySubsequences: false) ?? [] {
            print("  \(line)")
        }
    }
} catch {
    FileHandle.standardError.write(Data("scan-images: \(error)\n".utf8))
    exit(2)
}
