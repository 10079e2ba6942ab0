// scanlua-fuzz: the fuzz targets of `make fuzz` (built with --sanitize=fuzzer, libFuzzer's main
// runs the target that SCANLUA_FUZZ_TARGET names: C/LibFuzzer+C.swift), and in every other build
// a replayer of their regression corpus (what the tests run).
import Foundation

#if !FUZZING
@main
struct FuzzMain {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
            FileHandle.standardError.write(Data("""
                usage: scanlua-fuzz TARGET [FILE|DIR]...   (replay inputs; with make fuzz: libFuzzer's flags and corpus dirs)
                targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " "))\n
                """.utf8))
            exit(2)
        }

        var files: [String] = []
        for path in arguments.dropFirst(2) {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                FileHandle.standardError.write(Data("scanlua-fuzz: \(path): no such file or directory\n".utf8))
                exit(1)
            }
            if isDir.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.filter { !$0.hasPrefix(".") }.sorted().map { path + "/" + $0 }
            } else {
                files.append(path)
            }
        }
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            target.run(Array(data))
        }
        print("\(target.rawValue): \(files.count) inputs replayed, none crashed")
    }
}
#endif
