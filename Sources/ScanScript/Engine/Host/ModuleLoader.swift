import Foundation
import ScanCore

/// Where `require` finds modules and what the sandbox's `io.open` may read: the search path,
/// the shipped library's place, the trust list a trusted config brings, and the files run so
/// far. Its functions are the prelude's `host.loader` library (prelude/modules.lua, sandbox.lua).
final class ModuleLoader {
    /// Directories `require` searches, in order; `io.open` may read below them and the working directory.
    private(set) var modulePaths: [String]
    /// The install's scripts directory: the shipped library (`default`, the shipped `handlers.*`)
    /// resolves there before any script's folder or the working directory, and so does what it
    /// requires while it loads.
    var shippedDirectory: String?
    /// Set when the config came from the ``TrustList``: each module required from outside the
    /// shipped directory, then or later, must be on the list with the bytes loaded.
    var configTrustList: TrustList?
    /// The script and config files run so far (no action may write them).
    private(set) var loadedFiles: [String] = []
    /// Scripts run with the full standard library: `io.open` may read anywhere.
    var trusted = false
    /// Above 0 while the shipped library loads.
    private var shippedDepth = 0

    init(modulePaths: [String]) { self.modulePaths = modulePaths }

    /// Adds a directory to the front of the search path (user directories win over shipped ones).
    func addModulePath(_ dir: String) {
        if !modulePaths.contains(dir) { modulePaths.insert(dir, at: 0) }
    }

    /// A script file is about to run: its folder joins the search path, and `require` of it
    /// gives back its result instead of running it again.
    func willRun(file path: String) {
        let dir = (path as NSString).deletingLastPathComponent
        addModulePath(dir.isEmpty ? "." : dir)
        loadedFiles.append(path)
    }

    static func isShippedLibrary(_ name: String) -> Bool { name == "default" || name.hasPrefix("handlers.") }

    /// `host.loader`: was_run, find_module, read_file, shipped, path_allowed.
    func library() -> LuaValue {
        .table([
            // Whether a file was already run as a script (--script, --scripts): require gives it
            // back instead of running it twice (its handlers would register twice). -> its path | false
            ("was_run", .function { [unowned self] L throws(ScriptError) in
                let path = try L.checkText(1, "was_run")
                let real = physicalPath(path)
                if let run = loadedFiles.first(where: { $0 == path || (real != nil && physicalPath($0) == real) }) {
                    L.push(.string(run))
                } else {
                    L.push(.bool(false))
                }
                return 1
            }),
            // find_module(name) -> path | nil, the files tried
            ("find_module", .function { [unowned self] L throws(ScriptError) in
                let (path, tried) = findModule(try L.checkText(1, "require"))
                if let path { L.push(.string(path)); return 1 }
                L.push(.nil)
                L.push(.string(tried))
                return 2
            }),
            // read_file(path) -> bytes | nil, why: one read, so the bytes checked against the
            // trust list are the bytes loaded.
            ("read_file", .function { [unowned self] L throws(ScriptError) in
                let path = try L.checkText(1, "read_file")
                guard let data = FileManager.default.contents(atPath: path) else {
                    L.push(.nil)
                    L.push(.string("\(path): cannot read module"))
                    return 2
                }
                if let reason = untrustedModule(path, contents: Array(data)) {
                    L.push(.nil)
                    L.push(.string(reason))
                    return 2
                }
                L.push(.bytes(Array(data)))
                return 1
            }),
            // shipped(entering): around the shipped library's own loading, what it requires
            // resolves from the install.
            ("shipped", .function { [unowned self] L throws(ScriptError) in
                shippedDepth += L.bool(at: 1) ? 1 : -1
                return 0
            }),
            // path_allowed(path): true, or false and why. A FIFO, socket, device or directory is refused
            // before it is opened (opening a FIFO waits for a writer; a device never ends).
            ("path_allowed", .function { [unowned self] L throws(ScriptError) in
                let path = try L.checkText(1, "io.open")
                guard isReadable(path) else {
                    L.push(.bool(false))
                    L.push(.string("outside the directories scripts may read (the working directory and script directories)"))
                    return 2
                }
                if let kind = nonRegularKind(path) {
                    L.push(.bool(false))
                    L.push(.string("not a regular file (\(kind))"))
                    return 2
                }
                L.push(.bool(true))
                return 1
            }),
        ])
    }

    /// Why a module may not run, or nil: where the config came from the trust list, every
    /// module required from outside the install's scripts directory, while loading or at event
    /// time, must be on the list with the bytes loaded (it runs with the powers the config gave).
    private func untrustedModule(_ path: String, contents: [UInt8]) -> String? {
        guard let list = configTrustList else { return nil }
        if let shipped = shippedDirectory, isPhysically(path, inside: shipped) { return nil }
        switch list.verdict(for: path, contents: contents) {
        case .trusted: return nil
        case .unknown:
            return "\(path), required by the trusted ./scanlua.lua, is not trusted, so it was not run: read it, then `scanlua trust \(path)`"
        case .changed:
            return "\(path), required by the trusted ./scanlua.lua, changed since it was trusted, so it was not run: read it again, then `scanlua trust \(path)`"
        }
    }

    /// The file `require(name)` loads, or nil and the files tried (Lua's message).
    func findModule(_ name: String) -> (String?, String) {
        let rel = name.replacingOccurrences(of: ".", with: "/")
        var tried = ""
        // The shipped library (`default`, the shipped `handlers.*`), and what it requires while
        // loading, come from the install first: a planted file of the same name is never run
        // instead. `default` comes from nowhere else; a `handlers.mine` of your own is found as usual.
        let shippedFirst = Self.isShippedLibrary(name) || shippedDepth > 0
        let dirs = (shippedFirst ? shippedDirectory.map { [$0] } ?? [] : []) + (name == "default" ? [] : modulePaths)
        for dir in dirs {
            for candidate in ["\(dir)/\(rel).lua", "\(dir)/\(rel)/init.lua", "\(dir)/lib/\(rel).lua"] {
                if FileManager.default.fileExists(atPath: candidate) { return (Self.display(candidate), tried) }
                tried += "\n\tno file '\(candidate)'"
            }
        }
        return (nil, tried)
    }

    /// Whether the sandbox's io.open (and the test API) may read `path`: it must physically lie
    /// (symbolic links followed, `..` applied to the real directory) below the working directory
    /// or a script directory.
    func isReadable(_ path: String) -> Bool {
        if trusted { return true }
        let roots = [FileManager.default.currentDirectoryPath] + modulePaths
        return roots.contains { isPhysically(path, inside: $0) }
    }

    /// A path relative to the working directory when it is below it: what tracebacks show.
    static func display(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(cwd) ? String(path.dropFirst(cwd.count)) : path
    }
}
