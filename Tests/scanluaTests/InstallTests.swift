import Foundation
import XCTest

/// Issue 13 item 8: `make install` lays out the binary, the Lua library, the man page and the
/// completions under PREFIX, and the installed binary (or a link to it) finds its scripts.
final class InstallTests: XCTestCase {
    func testMakeInstallGivesAWorkingBinaryManPageAndCompletions() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("scanlua-prefix-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        // SWIFT=true: the build this test runs in is the one installed (no second SwiftPM build).
        let config = CLI.binary.deletingLastPathComponent().lastPathComponent  // debug or release
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/make")
        make.arguments = ["-s", "install", "PREFIX=\(prefix.path)", "CONFIG=\(config)", "SWIFT=true"]
        make.currentDirectoryURL = CLI.packageRoot
        make.standardOutput = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        XCTAssertEqual(make.terminationStatus, 0)
        let fm = FileManager.default
        for file in ["bin/scanlua", "share/scanlua/scripts/default.lua", "share/man/man1/scanlua.1",
                     "share/bash-completion/completions/scanlua", "share/zsh/site-functions/_scanlua",
                     "share/fish/vendor_completions.d/scanlua.fish"] {
            XCTAssertTrue(fm.fileExists(atPath: prefix.appendingPathComponent(file).path), file)
        }
        // Run from elsewhere, through a symbolic link: the scripts are found from the binary's real path.
        let link = prefix.appendingPathComponent("elsewhere-scanlua")
        try fm.createSymbolicLink(atPath: link.path, withDestinationPath: prefix.appendingPathComponent("bin/scanlua").path)
        let run = Process()
        run.executableURL = link
        run.arguments = ["simulate", "--text", "https://example.com/"]
        run.currentDirectoryURL = URL(fileURLWithPath: "/")
        var env = ProcessInfo.processInfo.environment
        env["SCANLUA_SCRIPTS"] = nil
        run.environment = env
        let out = Pipe()
        run.standardOutput = out
        try run.run()
        let record = out.fileHandleForReading.readDataToEndOfFile()
        run.waitUntilExit()
        XCTAssertTrue(String(decoding: record, as: UTF8.self).contains(#""payload":{"type":"url""#), "the shipped url handler ran")

        let man = try Process.output("/usr/bin/man", ["-l", "-P", "cat", prefix.appendingPathComponent("share/man/man1/scanlua.1").path])
        XCTAssertTrue(man.contains("SCANLUA(1)"), man)
        XCTAssertTrue(man.contains("scanlua trust [--remove] FILE..."), "every command's help is in it")
        XCTAssertEqual(spawnAndWait(["/bin/bash", "-n", prefix.appendingPathComponent("share/bash-completion/completions/scanlua").path]), 0)
        let bash = try Process.output("/bin/bash", ["-c", "source '\(prefix.path)/share/bash-completion/completions/scanlua'; "
                                                    + "COMP_WORDS=(scanlua scan --sha); COMP_CWORD=2; _scanlua; echo ${COMPREPLY[@]}"])
        XCTAssertEqual(bash, "--shard\n")
        let fish = try String(contentsOf: prefix.appendingPathComponent("share/fish/vendor_completions.d/scanlua.fish"), encoding: .utf8)
        XCTAssertTrue(fish.contains("complete -c scanlua -n '__fish_seen_subcommand_from watch' -l new-only"))
    }
}
