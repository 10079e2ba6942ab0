import Foundation

/// A directory watched as a consume folder: the files already in it and its subfolders
/// are scanned at the start (unless `newOnly`, `--new-only`), then each file that appears or
/// changes in it or any folder below it (including folders made while watching), once it is
/// complete, and once per content.
///
/// Complete: no write, close or move for `settle` seconds (`--settle`) and its size and
/// modification time the same at both ends of that wait. A writer that opens and closes the
/// file per chunk (an FTP upload, `dd conv=notrunc` in a loop) is scanned once, after its last
/// chunk, as paperless-ngx waits for a consumed file to be stable.
///
/// Once per content: a path is not scanned again while its bytes are those it had when it was
/// last scanned (`touch`, a copy of the same file over it); new bytes are scanned. A file
/// deleted or moved away is forgotten.
///
/// Files are read by content, not by name: a document's pages are handed over one by one, and
/// a file that is no image or document is skipped with a word (an error record with
/// `--empty-records`), never silently.
package final class DirectoryWatchSource: FrameSource {
    package let name: String
    package var isLive: Bool { false }
    package var dropped: Int { 0 }
    /// Seconds a file must stay unchanged before it is scanned.
    package let settle: TimeInterval
    private let watch: DirectoryWatch
    private var pending: [String] = []
    /// The pages of the document being handed out.
    private var pages: [Input] = []
    private let options: DecodeOptions
    /// Files written lately, each with when it may be taken and its size and time then.
    private var settling: [String: (due: Date, stamp: Stamp)] = [:]
    /// Each path's ContentHash when it was last handed out.
    private var scanned: [String: String] = [:]

    /// A file's size and modification time (nanoseconds).
    struct Stamp: Equatable {
        var size: Int
        var modified: Int
        init?(_ path: String) {
            guard let stamp = regularFileStamp(path) else { return nil }
            size = stamp.size
            modified = stamp.modified
        }
    }

    package init(directory: String, newOnly: Bool = false, settle: TimeInterval = 1,
                 options: DecodeOptions = DecodeOptions(maxPixels: ImageLoader.defaultMaxPixels)) throws(SourceError) {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDir), isDir.boolValue else {
            throw SourceError("\(directory): no such directory to watch")
        }
        name = directory
        self.settle = settle
        self.options = options
        watch = try DirectoryWatch(directory: directory)  // before listing: no file falls between
        guard !newOnly else { return }
        // What is there already is scanned at once, except a file written in the last `settle`
        // seconds: a copy may still be going on, so it waits its settle time like a new one.
        let now = Date()
        for path in Self.images(in: directory) {
            if let stamp = Stamp(path), now.timeIntervalSince1970 * 1e9 - Double(stamp.modified) < settle * 1e9 {
                settling[path] = (now.addingTimeInterval(settle), stamp)
            } else {
                pending.append(path)
            }
        }
    }

    /// The files in a folder and below it, sorted (as scan walks a directory).
    static func images(in folder: String) -> [String] {
        Input.expand([folder]).compactMap { if case .file(let p) = $0 { return p }; return nil }
    }

    /// The next complete image file with bytes not scanned before; a decoder thread decodes it
    /// (a bad file is its own error record). nil once `deadline` has passed.
    package func next(deadline: Date?) throws(SourceError) -> SourceItem? {
        while true {
            if !pages.isEmpty { return .file(pages.removeFirst()) }
            while let path = pending.first {
                pending.removeFirst()
                if let item = handOut(path) { return item }
            }
            let now = Date()
            takeSettled(now: now)
            if !pending.isEmpty { continue }
            if let deadline, deadline <= now { return nil }
            var wait = deadline.map { Int($0.timeIntervalSince(now) * 1000) + 1 } ?? 1000
            if let due = settling.values.map(\.due).min() { wait = min(wait, max(0, Int(due.timeIntervalSince(now) * 1000) + 1)) }
            let events = try watch.wait(milliseconds: min(wait, 1000))
            // A folder that appeared may already hold files written before it was watched.
            for folder in events.newFolders {
                for file in directoryEntries(folder)?.sorted() ?? [] {
                    noteWritten((folder as NSString).appendingPathComponent(file))
                }
            }
            for path in events.files { noteWritten(path) }
            for path in events.gone {
                settling[path] = nil
                scanned[path] = nil
            }
        }
    }

    /// A file was written (or moved in): its settle time starts again.
    private func noteWritten(_ path: String) {
        guard Self.isImage(path) else { return }
        if let stamp = Stamp(path) { settling[path] = (Date().addingTimeInterval(settle), stamp) } else { settling[path] = nil }
    }

    /// Files whose settle time is over and that did not change meanwhile join `pending`, in path order.
    private func takeSettled(now: Date) {
        for (path, entry) in settling.sorted(by: { $0.key < $1.key }) where entry.due <= now {
            guard let stamp = Stamp(path) else { settling[path] = nil; continue }  // gone, or not a file
            if stamp == entry.stamp {
                settling[path] = nil
                pending.append(path)
            } else {
                settling[path] = (now.addingTimeInterval(settle), stamp)
            }
        }
    }

    /// The file as an item, unless its bytes are those it had when it was last scanned. Read
    /// once, as the loader reads files (a FIFO or a directory named like an image is refused, not
    /// waited on), and handed over with its bytes: the decoder does not read it again.
    private func handOut(_ path: String) -> SourceItem? {
        switch readRegularFile(path, limit: options.maxFileBytes) {
        case .success(let bytes):
            let data = Data(bytes)
            let hash = ContentHash.hex(data)
            if scanned[path] == hash { return nil }
            scanned[path] = hash
            pages = Pages.expand(.data(data, name: path), options: options, foundInFolder: true)
            return .file(pages.removeFirst())
        case .failure(let f):
            return .file(.missing(path, reason: options.sizeReason(f.reason)))  // its error record names the reason
        }
    }

    static func isImage(_ path: String) -> Bool {
        let last = (path as NSString).lastPathComponent
        return !last.hasPrefix(".")
    }
}
