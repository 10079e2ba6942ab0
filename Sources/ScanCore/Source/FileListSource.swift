import Foundation

/// The inputs of `scanlua scan`: files, directories expanded to their images, and stdin.
package final class FileListSource: FrameSource {
    package let name: String
    package var isLive: Bool { false }
    package var dropped: Int { 0 }
    package let inputs: [Input]
    private var index = 0
    private let stdinData: Data?
    /// Files a directory walk found (not named as arguments): one that is no image or document is
    /// skipped with a word, not failed.
    private let walked: Set<String>
    /// The pages of the document being handed out.
    private var pages: [Input] = []
    /// Limits for reading and counting documents.
    private let options: DecodeOptions

    /// - Parameters:
    ///   - arguments: paths as given on the command line (see ``Input/expand(_:)``).
    ///   - shard: `(i, n)`: only the inputs at positions i-1, i-1+n, i-1+2n ... of the expanded
    ///     list (`--shard I/N`), so that n processes with i = 1...n together take each input once.
    ///   - excluding: a directory whose files a directory walk passes over (`--annotate`'s own
    ///     output, when it lies inside a scanned directory); files named as arguments still count.
    package init(arguments: [String], shard: (index: Int, count: Int)? = nil, excluding: String? = nil,
                 options: DecodeOptions = DecodeOptions(maxPixels: ImageLoader.defaultMaxPixels)) {
        name = arguments.joined(separator: " ")
        self.options = options
        var all = Input.expand(arguments)
        let named = Set(arguments)
        walked = Set(all.compactMap { if case .file(let p) = $0, !named.contains(p) { return p }; return nil })
        if let excluding {
            let dir = URL(fileURLWithPath: excluding).standardizedFileURL.resolvingSymlinksInPath().path + "/"
            all.removeAll { input in
                guard case .file(let path) = input, !named.contains(path) else { return false }
                return URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path.hasPrefix(dir)
            }
        }
        if let shard {
            inputs = all.enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element)
        } else {
            inputs = all
        }
        // stdin is read once, before any decoding starts.
        stdinData = inputs.contains(.stdin) ? FileHandle.standardInput.readDataToEndOfFile() : nil
    }

    /// Inputs already named (a queued job's file or bytes).
    package init(inputs: [Input], name: String, options: DecodeOptions = DecodeOptions(maxPixels: ImageLoader.defaultMaxPixels)) {
        self.name = name
        self.inputs = inputs
        self.options = options
        stdinData = nil
        walked = []
    }

    /// The next input, a document's pages one by one.
    package func next(deadline: Date?) throws(SourceError) -> SourceItem? {
        if !pages.isEmpty { return .file(pages.removeFirst()) }
        guard index < inputs.count else { return nil }
        defer { index += 1 }
        var input = inputs[index]
        if input == .stdin { input = .data(stdinData ?? Data(), name: "-") }
        let found: Bool = { if case .file(let path) = input { return walked.contains(path) }; return false }()
        pages = Pages.expand(input, options: options, foundInFolder: found)
        return pages.isEmpty ? .file(input) : .file(pages.removeFirst())
    }
}
