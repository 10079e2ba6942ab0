import Foundation

/// The inputs of `scanlua scan`: files, directories expanded to their images, and stdin.
public final class FileListSource: FrameSource {
    public let name: String
    public var isLive: Bool { false }
    public var dropped: Int { 0 }
    public let inputs: [Input]
    private var index = 0
    private let stdinData: Data?

    /// - Parameter arguments: paths as given on the command line (see ``Input/expand(_:)``).
    public init(arguments: [String]) {
        name = arguments.joined(separator: " ")
        inputs = Input.expand(arguments)
        // stdin is read once, before any decoding starts.
        stdinData = inputs.contains(.stdin) ? FileHandle.standardInput.readDataToEndOfFile() : nil
    }

    public func next(deadline: Date?) throws(SourceError) -> SourceItem? {
        guard index < inputs.count else { return nil }
        defer { index += 1 }
        if inputs[index] == .stdin { return .file(.data(stdinData ?? Data(), name: "-")) }
        return .file(inputs[index])
    }
}
