import Foundation

/// A directory watched as a consume folder: the image files already in it and its subfolders
/// are scanned at the start (unless `newOnly`, `--new-only`), then each file that appears and
/// finishes writing (closed after writing, or moved in) in it or any folder below it, including
/// folders made while watching.
public final class DirectoryWatchSource: FrameSource {
    public let name: String
    public var isLive: Bool { false }
    public var dropped: Int { 0 }
    private let watch: DirectoryWatch
    private var pending: [String] = []

    public init(directory: String, newOnly: Bool = false) throws(SourceError) {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDir), isDir.boolValue else {
            throw SourceError("\(directory): no such directory to watch")
        }
        name = directory
        watch = try DirectoryWatch(directory: directory)  // before listing: no file falls between
        if !newOnly { pending = Self.images(in: directory) }
    }

    /// The image files in a folder and below it, sorted (as scan walks a directory).
    static func images(in folder: String) -> [String] {
        Input.expand([folder]).compactMap { if case .file(let p) = $0 { return p }; return nil }
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
            let events = try watch.wait(milliseconds: min(wait, 1000))
            // A folder that appeared may already hold files written before it was watched.
            for folder in events.newFolders {
                pending += (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted()
                    .map { (folder as NSString).appendingPathComponent($0) }
                    .filter { Self.isImage($0) && !pending.contains($0) } ?? []
            }
            pending += events.files.filter { Self.isImage($0) && !pending.contains($0) }.sorted()
        }
    }

    static func isImage(_ path: String) -> Bool {
        let last = (path as NSString).lastPathComponent
        return !last.hasPrefix(".") && Input.imageExtensions.contains((last as NSString).pathExtension.lowercased())
    }
}
