import Foundation

/// One thing to scan: an image file, or the image on standard input.
package enum Input: Equatable, Sendable {
    case file(String)
    case stdin
    /// An image already read into memory (stdin, once read).
    case data(Data, name: String)
    /// A path that could not be listed or does not exist; scanning it yields its error.
    case missing(String, reason: String)

    /// What records call this input: the path, or `-` for stdin.
    package var name: String {
        switch self {
        case .file(let p), .missing(let p, _): return p
        case .stdin: return "-"
        case .data(_, let name): return name
        }
    }

    /// File name endings that a directory walk picks up (case-insensitive). Files named on the
    /// command line are always tried, whatever their name: the format comes from their bytes.
    package static let imageExtensions: Set<String> = ["jpg", "jpeg", "jpe", "jfif", "png", "pgm", "ppm", "pnm"]

    /// Image formats a directory walk passes over, with their names: said once each on stderr
    /// by the scan command, so a folder of GIFs is not silently empty.
    package static let skippedImageFormats: [String: String] = [
        "gif": "GIF", "webp": "WebP", "tif": "TIFF", "tiff": "TIFF", "bmp": "BMP", "heic": "HEIC", "heif": "HEIF", "avif": "AVIF",
    ]

    /// Expands command-line arguments into inputs: files as given, `-` as stdin, directories
    /// recursively (image files only, hidden entries skipped, sorted by path).
    package static func expand(_ arguments: [String]) -> [Input] {
        var skipped: [String] = []
        return expand(arguments, skipped: &skipped)
    }

    /// ``expand(_:)``, also giving the image files of other formats the walk passed over.
    package static func expand(_ arguments: [String], skipped: inout [String]) -> [Input] {
        var inputs: [Input] = []
        let fm = FileManager.default
        for arg in arguments {
            if arg == "-" { inputs.append(.stdin); continue }
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: arg, isDirectory: &isDir) else {
                inputs.append(.missing(arg, reason: "No such file or directory"))
                continue
            }
            guard isDir.boolValue else { inputs.append(.file(arg)); continue }
            guard let walker = fm.enumerator(atPath: arg) else {
                inputs.append(.missing(arg, reason: "cannot list directory"))
                continue
            }
            var found: [String] = []
            while let rel = walker.nextObject() as? String {
                let last = (rel as NSString).lastPathComponent
                if last.hasPrefix(".") { walker.skipDescendants(); continue }
                let ext = (last as NSString).pathExtension.lowercased()
                let full = arg.hasSuffix("/") ? arg + rel : arg + "/" + rel
                guard imageExtensions.contains(ext) else {
                    if skippedImageFormats[ext] != nil { skipped.append(full) }
                    continue
                }
                var sub: ObjCBool = false
                if fm.fileExists(atPath: full, isDirectory: &sub), !sub.boolValue { found.append(full) }
            }
            inputs += found.sorted().map { .file($0) }
        }
        return inputs
    }
}
