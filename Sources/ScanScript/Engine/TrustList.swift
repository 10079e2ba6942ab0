import Foundation
import ScanCore

/// The configs you trusted: a `./scanlua.lua` found in the working directory runs only once it
/// is on this list with its current contents, as Neovim's `:trust` does for `.nvim.lua`. A
/// config anyone could drop into a folder (a cloned repository, a shared drive) would otherwise
/// run with a config's powers (raised limits, `trust`) the moment you scan there.
///
/// `scanlua trust FILE` records the file's SHA-256 and real path, one `HASH PATH` line each, in
/// `$XDG_STATE_HOME/scanlua/trust` (`~/.local/state/scanlua/trust`); a file that changed since
/// is refused until trusted again. Named configs (`--config FILE`, the XDG config) need no entry:
/// naming or installing a file is the trust.
package struct TrustList {
    package enum Verdict: Equatable { case trusted, unknown, changed }

    package let path: String

    package init(path: String = TrustList.defaultPath()) { self.path = path }

    package static func defaultPath(_ env: [String: String] = ProcessInfo.processInfo.environment) -> String {
        // The XDG spec: a relative path is ignored (a folder could ship its own trust list).
        let base = env["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? ((env["HOME"] ?? "") + "/.local/state")
        return base + "/scanlua/trust"
    }

    /// The entries, in file order: hash and real path.
    package func entries() -> [(hash: String, file: String)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> (hash: String, file: String)? in
            let parts = line.split(separator: " ", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }
    }

    /// Whether `file`, whose bytes the caller read as `contents` (and will load: one read), is
    /// on the list with those contents.
    package func verdict(for file: String, contents: [UInt8]) -> Verdict {
        guard let real = physicalPath(file) else { return .unknown }
        return verdict(forRealPath: real, contents: contents)
    }

    /// The same for a file whose real path the caller resolved.
    package func verdict(forRealPath real: String, contents: [UInt8]) -> Verdict {
        guard let entry = entries().last(where: { $0.file == real }) else { return .unknown }
        return entry.hash == SHA256.hex(Data(contents)) ? .trusted : .changed
    }

    /// Adds (or updates) `file`; returns its real path.
    @discardableResult
    package func trust(_ file: String) throws(ScriptError) -> String {
        guard let real = physicalPath(file), let hash = Self.hash(of: real) else { throw .file("\(file): cannot read it") }
        guard !real.contains("\n") else { throw .file("\(file): a path with a newline cannot be trusted") }
        try write(entries().filter { $0.file != real } + [(hash, real)])
        return real
    }

    /// Takes `file` off the list; false when it was not on it.
    package func remove(_ file: String) throws(ScriptError) -> Bool {
        let real = physicalPath(file) ?? file
        let before = entries()
        let after = before.filter { $0.file != real }
        guard after.count != before.count else { return false }
        try write(after)
        return true
    }

    static func hash(of file: String) -> String? {
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        return SHA256.hex(data)
    }

    private func write(_ entries: [(hash: String, file: String)]) throws(ScriptError) {
        let dir = (path as NSString).deletingLastPathComponent
        let text = entries.map { "\($0.hash) \($0.file)\n" }.joined()
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw .file("\(path): cannot write the trust list (\(error.localizedDescription))")
        }
    }
}
