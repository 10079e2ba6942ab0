import Foundation

/// A directory watched for new image files: each file that appears and finishes writing
/// (closed after writing, or moved in) is scanned once. Files already there are not.
public final class DirectoryWatchSource: FrameSource {
    public let name: String
    public var isLive: Bool { false }
    public var dropped: Int { 0 }
    private let watch: DirectoryWatch
    private var pending: [String] = []

    public init(directory: String) throws(SourceError) {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDir), isDir.boolValue else {
            throw SourceError("\(directory): no such directory to watch")
        }
        name = directory
        watch = try DirectoryWatch(directory: directory)
    }

    /// The next finished image file; a decoder thread loads it (a bad file is its own error record).
    public func next(deadline: Date?) throws(SourceError) -> SourceItem? {
        while true {
            if let path = pending.first {
                pending.removeFirst()
                return .file(.file(path))
            }
            let wait = deadline.map { max(0, Int($0.timeIntervalSinceNow * 1000)) } ?? 1000
            if deadline != nil && wait == 0 { return nil }
            let names = try watch.wait(milliseconds: min(wait, 1000)).filter {
                !$0.hasPrefix(".") && Input.imageExtensions.contains(($0 as NSString).pathExtension.lowercased())
            }
            pending += names.sorted().map { name.hasSuffix("/") ? name + $0 : name + "/" + $0 }
        }
    }
}
