import Foundation

/// How records are printed on stdout.
public enum OutputFormat: String, Sendable, CaseIterable {
    /// One JSON object per line.
    case ndjson
    /// zbarimg style for people: `QR-Code:text`.
    case text
    /// Only the decoded texts, one per line, like `zbarimg --raw`.
    case raw
}

/// Writes records to stdout (symbols) and stderr (input errors in text and raw formats).
/// stdout is buffered: the CLI checks ``Console/flush()`` once at exit for a full disk or closed pipe.
public final class RecordWriter {
    public let format: OutputFormat

    public init(format: OutputFormat) { self.format = format }

    public func write(_ record: ScanRecord) {
        switch format {
        case .ndjson:
            var line = ""
            record.json.write(to: &line)
            line += "\n"
            Console.write(line)
        case .text, .raw:
            if let error = record.inputError {
                Console.error("scanlua: \(record.info.source): \(error)\n")
                return
            }
            guard let s = record.symbol else { return }
            let text = format == .raw ? s.text : "\(s.symbology.zbarLabel):\(s.text)"
            Console.write(text + "\n")
            if format == .text {
                for e in record.errors { Console.error("  error: \(e["message"].map(Self.plain) ?? "")\n") }
            }
        }
    }

    private static func plain(_ j: JSON) -> String {
        if case .string(let s) = j { return s }
        return j.serialized
    }
}

@available(*, unavailable) extension RecordWriter: Sendable {}
