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

        // Issue 24 item 6: the docs are installed and the man page names them and the Lua API
        // reference; only the runtime Lua library is installed (no tests, fuzz cases or
        // developer scripts); completions offer option values in bash, zsh and fish.
        for doc in ["README.md", "LICENSE", "docs/lua-api.md", "docs/handlers.md", "docs/scale-out.md", "docs/security.md", "docs/third-party.md"] {
            XCTAssertTrue(fm.fileExists(atPath: prefix.appendingPathComponent("share/doc/scanlua/" + doc).path), doc)
        }
        let roff = try String(contentsOf: prefix.appendingPathComponent("share/man/man1/scanlua.1"), encoding: .utf8)
        XCTAssertTrue(roff.contains(".IR \(prefix.path)/share/doc/scanlua"), "the man page names where the docs are")
        XCTAssertTrue(man.contains("docs/lua-api.md") && man.range(of: #"the\s+Lua\s+API\s+reference"#, options: .regularExpression) != nil, man)
        let lua = prefix.appendingPathComponent("share/scanlua/scripts").path
        let installed = try fm.subpathsOfDirectory(atPath: lua).sorted()
        XCTAssertTrue(installed.contains("handlers/url.lua") && installed.contains("lib/json.lua") && installed.contains("types/scan.lua"), "\(installed)")
        XCTAssertEqual(installed.filter { $0.hasSuffix("_test.lua") || $0.contains("fuzz") || !($0.hasSuffix(".lua") || !$0.contains(".")) }, [],
                       "no tests, fuzz cases or developer scripts")
        XCTAssertFalse(installed.contains("corpus-report") || installed.contains("install-deps") || installed.contains("make-font"))
        let dryRun = try Process.output("/usr/bin/make", ["-n", "-C", CLI.packageRoot.path, "install", "PREFIX=\(prefix.path)"])
        XCTAssertTrue(dryRun.contains("build -c release --product scanlua"), "make install builds only the scanlua product: \(dryRun)")

        func bashComplete(_ words: [String]) throws -> String {
            try Process.output("/bin/bash", ["-c", "source '\(prefix.path)/share/bash-completion/completions/scanlua'; "
                                             + "COMP_WORDS=(\(words.map { "'\($0)'" }.joined(separator: " "))); COMP_CWORD=\(words.count - 1); _scanlua; echo ${COMPREPLY[@]}"])
        }
        XCTAssertEqual(try bashComplete(["scanlua", "scan", "--effort", ""]), "fast balanced thorough\n")
        XCTAssertEqual(try bashComplete(["scanlua", "export", "--format", "n"]), "ndjson\n", "export's own --format values")
        XCTAssertEqual(try bashComplete(["scanlua", "completions", ""]), "bash zsh fish\n")
        XCTAssertEqual(try bashComplete(["scanlua", "scan", "--threads", ""]), "\n", "a number: nothing to offer, not file names")
        let zshFile = prefix.appendingPathComponent("share/zsh/site-functions/_scanlua").path
        XCTAssertEqual(spawnAndWait(["/usr/bin/zsh", "-n", zshFile]), 0)
        let zsh = try String(contentsOfFile: zshFile, encoding: .utf8)
        XCTAssertTrue(zsh.contains(":LEVEL:(fast balanced thorough)'"), "zsh offers --effort's values")
        XCTAssertTrue(zsh.contains("completions) _arguments '--help[Show help information.]' '1:shell:(bash zsh fish)'"))
        let fishFile = prefix.appendingPathComponent("share/fish/vendor_completions.d/scanlua.fish").path
        let fishValues = try Process.output("/usr/bin/fish", ["-c", "source '\(fishFile)'; complete -C 'scanlua scan --effort '"])
        XCTAssertEqual(fishValues.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" }.sorted(),
                       ["balanced", "fast", "thorough"])
        let fishShells = try Process.output("/usr/bin/fish", ["-c", "source '\(fishFile)'; complete -C 'scanlua completions '"])
        XCTAssertEqual(fishShells.split(separator: "\n").sorted(), ["bash", "fish", "zsh"])
        let fishHelp = try Process.output("/usr/bin/fish", ["-c", "source '\(fishFile)'; complete -C 'scanlua he'"])
        XCTAssertEqual(fishHelp.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" }, ["help"])
        XCTAssertTrue(zsh.contains("  shift words\n  (( CURRENT-- ))\n"), "a subcommand's positionals start at 1 for _arguments")
    }
}
