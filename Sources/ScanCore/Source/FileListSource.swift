import Foundation

/// The inputs of `scanlua scan`: files, directories expanded to their images, and stdin.
package final class FileListSource: FrameSource {
    package let name: String
    package var isLive: Bool { false }
    package var dropped: Int { 0 }
    package let inputs: [Input]
    /// Image files of formats scanlua does not read that the directory walk passed over.
    package private(set) var skipped: [String] = []
    private var index = 0
    private let stdinData: Data?

    /// - Parameters:
    ///   - arguments: paths as given on the command line (see ``Input/expand(_:)``).
    ///   - shard: `(i, n)`: only the inputs at positions i-1, i-1+n, i-1+2n ... of the expanded
    ///     list (`--shard I/N`), so that n processes with i = 1...n together take each input once.
    ///   - excluding: a directory whose files a directory walk passes over (`--annotate`'s own
    ///     output, when it lies inside a scanned directory); files named as arguments still count.
    package init(arguments: [String], shard: (index: Int, count: Int)? = nil, excluding: String? = nil) {
        name = arguments.joined(separator: " ")
        var skipped: [String] = []
        var all = Input.expand(arguments, skipped: &skipped)
        if let excluding {
            let dir = URL(fileURLWithPath: excluding).standardizedFileURL.resolvingSymlinksInPath().path + "/"
            let named = Set(arguments)
            all.removeAll { input in
                guard case .file(let path) = input, !named.contains(path) else { return false }
                return URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path.hasPrefix(dir)
            }
        }
        self.skipped = skipped.sorted()
        if let shard {
            inputs = all.enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element)
        } else {
            inputs = all
        }
        // stdin is read once, before any decoding starts.
        stdinData = inputs.contains(.stdin) ? FileHandle.standardInput.readDataToEndOfFile() : nil
    }

    /// Inputs already named (a queued job's file or bytes).
    package init(inputs: [Input], name: String) {
        self.name = name
        self.inputs = inputs
        stdinData = nil
    }

    package func next(deadline: Date?) throws(SourceError) -> SourceItem? {
        guard index < inputs.count else { return nil }
        defer { index += 1 }
        if inputs[index] == .stdin { return .file(.data(stdinData ?? Data(), name: "-")) }
        return .file(inputs[index])
    }
}
