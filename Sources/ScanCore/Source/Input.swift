import Foundation

/// One thing to scan: an image file, or the image on standard input.
package enum Input: Equatable, Sendable {
    case file(String)
    case stdin
    /// An image already read into memory (stdin, once read).
    case data(Data, name: String)
    /// A path that could not be listed or does not exist; scanning it yields its error.
    case missing(String, reason: String)
    /// One page (or frame) of a document or animation read into memory, 0-based.
    case page(Document, Int)
    /// A file found in a folder that is no image or document (by its first bytes, whatever its
    /// name): said on stderr, or an error record with `--empty-records`; not a failed input.
    case skipped(String, reason: String)
    /// An input found unreadable before a decoding thread got it (a `--pages` list selecting none
    /// of a document's pages): its error record says why.
    case failed(ImageError)

    /// What records call this input: the path, or `-` for stdin.
    package var name: String {
        switch self {
        case .file(let p), .missing(let p, _), .skipped(let p, _): return p
        case .failed(let error): return error.path
        case .stdin: return "-"
        case .data(_, let name): return name
        case .page(let d, _): return d.name
        }
    }

    /// Expands command-line arguments into inputs: files as given, `-` as stdin, directories
    /// recursively (every regular file whatever its name: its format comes from its bytes, and a
    /// file that is no image becomes an error record; hidden entries skipped; sorted by path).
    /// Names are taken as bytes (``PathName``): a file whose name is not UTF-8 is scanned like
    /// any other.
    package static func expand(_ arguments: [String]) -> [Input] {
        var inputs: [Input] = []
        for arg in arguments {
            if arg == "-" { inputs.append(.stdin); continue }
            switch pathKind(arg) {
            case nil: inputs.append(.missing(arg, reason: "No such file or directory"))
            case .directory?:
                guard let found = walk(arg) else {
                    inputs.append(.missing(arg, reason: "cannot list directory"))
                    continue
                }
                inputs += found.sorted().map { .file($0) }
            default: inputs.append(.file(arg))
            }
        }
        return inputs
    }

    /// The files below `folder` (hidden entries skipped; links followed, as FileManager's walk
    /// does not follow linked folders: neither does this), or nil when it cannot be listed.
    private static func walk(_ folder: String, depth: Int = 0) -> [String]? {
        guard depth < 64, let names = directoryEntries(folder) else { return depth == 0 ? nil : [] }
        var found: [String] = []
        for name in names where !name.hasPrefix(".") {
            let full = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            if isLinkedFolder(full) { continue }
            switch pathKind(full) {
            case .directory?: found += walk(full, depth: depth + 1) ?? []
            case .regular?, .other?: found.append(full)
            case nil: continue
            }
        }
        return found
    }
}

/// A file of several pages or frames (a PDF, a TIFF, an animated GIF, images concatenated on
/// stdin), read once: each page is an input of its own, decoded by whichever thread is free.
package final class Document: Sendable, Equatable {
    /// The path, or `-`.
    package let name: String
    package let data: Data
    /// How many pages (or frames) are read.
    package let count: Int
    package let numbering: PageNumbering
    /// Separate images one after the other (stdin): page i is the bytes in `parts[i]`.
    package let parts: [Range<Int>]?
    /// The file's content hash, for the pages' identities.
    package let content: String

    package init(name: String, data: Data, count: Int, numbering: PageNumbering, parts: [Range<Int>]? = nil) {
        self.name = name
        self.data = data
        self.count = count
        self.numbering = numbering
        self.parts = parts
        content = ContentHash.hex(data)
    }

    /// The bytes page `i` is decoded from, and its page number within them.
    package func bytes(of i: Int) -> (data: Data, page: Int) {
        guard let parts else { return (data, i) }
        return (data.subdata(in: parts[i].lowerBound + data.startIndex..<parts[i].upperBound + data.startIndex), 0)
    }

    package static func == (a: Document, b: Document) -> Bool { a === b }
}
