import Foundation
import ScanCore

/// How records are printed on stdout.
package enum OutputFormat: String, Sendable, CaseIterable {
    /// One JSON object per line.
    case ndjson
    /// zbarimg style for people: `QR-Code:text`.
    case text
    /// Only the decoded texts, one per line, like `zbarimg --raw`.
    case raw
}

/// Where a session's records go, one at a time, in input order.
package protocol RecordSink: AnyObject {
    func write(_ record: ScanRecord)
    /// A decoded frame's ``FrameInfo/warnings`` (once per frame, whether or not it had codes).
    func warn(_ info: FrameInfo)
    /// A frame that gives no symbol record: no decoder found anything (`repeated` 0), or every
    /// code it read was one the session filter had accepted before (`repeated` of them).
    /// `annotated`: its annotated copy, if one is written.
    func nothingFound(_ info: FrameInfo, repeated: Int, annotated: String?)
    /// A file found in a folder that is no image or document: its record says why.
    func skipped(_ record: ScanRecord)
    /// Hands what was written on (after each frame): returns why it could not be, or nil.
    func flush() -> String?
}

extension RecordSink {
    package func warn(_ info: FrameInfo) {}
    package func nothingFound(_ info: FrameInfo, repeated: Int, annotated: String?) {}
    package func flush() -> String? { nil }
    package func skipped(_ record: ScanRecord) {}
}

/// Writes records to stdout (symbols) and stderr (input errors in text and raw formats).
/// stdout is buffered: the CLI checks ``Console/flush()`` once at exit for a full disk or closed pipe.
package final class RecordWriter: RecordSink {
    package let format: OutputFormat

    /// Say on stderr, in text and raw formats, which inputs had no code (scan sets it, as zbarimg
    /// does; a video's empty frames are not news).
    package var saysNothingFound = false

    /// A record for each frame in which nothing was read (`--empty-records`): NDJSON
    /// `{"source":...,"frame":N,"symbols":0}` (with the frame's warnings), text and raw a line on stderr.
    package var writesEmptyRecords = false

    /// Text records start with their source (`photo.jpg: QR-Code:...`): scan sets it when it was
    /// given several inputs, as grep names the file when it searches several.
    package var namesSources = false

    /// Where NDJSON lines go instead of stdout, each without its newline, with the record's
    /// summary for people (the library's records).
    package var output: ((_ line: [UInt8], _ summary: String?) -> Void)?

    package init(format: OutputFormat) { self.format = format }

    package func nothingFound(_ info: FrameInfo, repeated: Int, annotated: String?) {
        emptyFrame = (info.source, info.index, info.page)
        guard format == .ndjson else {
            if repeated > 0 {
                if writesEmptyRecords { Console.error("scanlua: \(Self.place(info)): \(repeated == 1 ? "1 code" : "\(repeated) codes") read again, none new (--duplicates)\n") }
            } else if saysNothingFound || writesEmptyRecords {
                Console.error("scanlua: \(Self.place(info)): no barcode or QR code found\n")
            }
            return
        }
        guard writesEmptyRecords else { return }
        var pairs: [(String, JSON)] = [("source", .string(PathName.display(info.source))), ("frame", .int(info.index))]
        if let page = info.page { pairs.append(("page", .int(page))) }
        pairs.append(("symbols", .int(0)))
        if repeated > 0 { pairs.append(("repeated", .int(repeated))) }
        if !info.warnings.isEmpty { pairs.append(("warnings", .array(info.warnings.map { .string($0) }))) }
        if let annotated { pairs.append(("annotated", .string(annotated))) }
        writeLine(.object(pairs))
        emptyFrame = nil  // its warnings are in this record
    }

    private func writeLine(_ json: JSON) {
        emit(Array(json.serialized.utf8))
    }

    private func emit(_ line: [UInt8], summary: String? = nil) {
        if let output { return output(line, summary) }
        Console.write(bytes: line + [0x0A])
    }

    /// The last frame in which nothing was found (source and frame index: a stream's frames share
    /// their source): its warnings have no symbol record to go in.
    private var emptyFrame: (source: String, index: Int, page: Int?)?

    /// Records reach a pipe or a file as they are made (`watch | jq` is live; a killed scan keeps
    /// what it wrote).
    package func flush() -> String? {
        emptyFrame = nil  // the frame is done: a later one (or library call) may have the same source and index
        return output == nil ? Console.flush() : nil
    }

    /// For people (text and raw formats) on stderr; NDJSON records carry them as `warnings`, and
    /// a frame with no code gets a record of its own: `{"source":...,"warnings":[...]}` (a spent
    /// time budget, a repaired JPEG).
    package func warn(_ info: FrameInfo) {
        guard format != .ndjson else {
            guard let empty = emptyFrame, empty.source == info.source, empty.index == info.index, empty.page == info.page else { return }
            var pairs: [(String, JSON)] = [("source", .string(PathName.display(info.source))), ("frame", .int(info.index))]
            if let page = info.page { pairs.append(("page", .int(page))) }
            pairs.append(("warnings", .array(info.warnings.map { .string($0) })))
            writeLine(.object(pairs))
            return
        }
        for w in info.warnings { Console.error("scanlua: \(Self.place(info)): warning: \(w)\n") }
    }

    /// A record with `--empty-records` in NDJSON, else a line on stderr: nothing is passed over
    /// without a word, and a stray text file in a folder is not an error.
    package func skipped(_ record: ScanRecord) {
        if format == .ndjson && writesEmptyRecords { return write(record) }
        Console.error("scanlua: \(Self.place(record.info)): \(record.inputError ?? "skipped")\n")
    }

    package func write(_ record: ScanRecord) {
        switch format {
        case .ndjson:
            var line: [UInt8] = []
            line.reserveCapacity(512)
            record.write(to: &line)
            emit(line, summary: record.summary)
        case .text, .raw:
            if let error = record.inputError {
                Console.error("scanlua: \(Self.place(record.info)): \(error)\n")
                return
            }
            guard let s = record.symbol else { return }
            // --raw is byte-exact for pipes; text is for a terminal: what a code or a file name
            // holds that the terminal would act on is shown escaped (TerminalText).
            guard format == .text else { return Console.write(s.text + "\n") }
            let named = namesSources || record.info.page != nil
            let show = { (text: String) in TerminalText.escaped(text) }
            Console.write((named ? show(Self.place(record.info)) + ": " : "") + "\(s.symbology.label):\(show(s.text))\n")
            if let summary = record.summary {
                for line in summary.split(separator: "\n", omittingEmptySubsequences: false) { Console.write("  \(show(String(line)))\n") }
            } else if let payload = record.payload, payload["type"] != .string("raw") {
                Console.write("  payload: \(show(payload.serialized))\n")
            }
            for e in record.emitted { Console.write("  emitted: \(show(e.serialized))\n") }
            for a in record.actions { Console.write("  action: \(show(a.serialized))\n") }
            for e in record.errors {
                let who = e["parser"].map { "parser '\(Self.plain($0))'" } ?? e["rule"].map { "rule '\(Self.plain($0))'" } ?? "scripts"
                Console.error("scanlua: \(Self.place(record.info)): \(who): \(e["message"].map(Self.plain) ?? "")\n")
            }
        }
    }

    /// What text lines call a frame's input: `doc.pdf:2` for a document's page, else the source.
    static func place(_ info: FrameInfo) -> String {
        let name = PathName.display(info.source)
        return info.page.map { "\(name):\($0)" } ?? name
    }

    private static func plain(_ j: JSON) -> String {
        if case .string(let s) = j { return s }
        return j.serialized
    }
}

@available(*, unavailable) extension RecordWriter: Sendable {}
