import Foundation
import ScanCore

/// One output record: a decoded symbol with what scripts made of it, or an input that failed.
package struct ScanRecord: Sendable {
    package var info: FrameInfo
    /// The decoded symbol; nil for an input error record.
    package var symbol: Symbol?
    /// Why the input could not be read; nil for a symbol record.
    package var inputError: String?
    /// What a parser produced (`{"type":"raw"}` when none claimed the symbol); nil when no scripts ran.
    package var payload: JSON?
    /// Actions the rules took, as data.
    package var actions: [JSON] = []
    /// Records the rules emitted with `ctx.emit`.
    package var emitted: [JSON] = []
    /// Script errors on this symbol, each with `script:line`.
    package var errors: [JSON] = []
    /// The payload as text for people (only `--format text` prints it).
    package var summary: String?
    /// The annotated copy of the frame (`scan --annotate`).
    package var annotated: String?

    package init(info: FrameInfo, symbol: Symbol) {
        self.info = info
        self.symbol = symbol
    }

    package init(info: FrameInfo, inputError: String) {
        self.info = info
        self.inputError = inputError
    }

    /// The record as one NDJSON object, keys in a fixed order.
    package var json: JSON {
        var out: [UInt8] = []
        write(to: &out)
        return .raw(out[...])
    }

    /// Appends the record's JSON text (one line, no newline), keys in a fixed order: written
    /// straight to bytes, since this runs once per symbol.
    package func write(to out: inout [UInt8]) {
        // Keys are written with their quotes, colon and comma as one piece: `,"name":` (the
        // first key of an object without its comma).
        func key(_ k: StaticString, first: Bool = false) {
            let text = UnsafeBufferPointer(start: k.utf8Start, count: k.utf8CodeUnitCount)
            out.append(contentsOf: first ? UnsafeBufferPointer(rebasing: text.dropFirst()) : text)
        }
        func int(_ n: Int) { JSON.writeInt(n, to: &out) }
        out.append(UInt8(ascii: "{"))
        let raw = PathName.isRaw(info.source)
        key(",\"source\":", first: true); JSON.writeString(raw ? PathName.display(info.source) : info.source, to: &out)
        if raw {
            // A name that is not UTF-8: `source` shows its other bytes as \xHH, these are exact.
            key(",\"source_bytes\":"); out.append(UInt8(ascii: "\"")); Base64.encode(PathName.bytes(info.source), to: &out); out.append(UInt8(ascii: "\""))
        }
        key(",\"frame\":"); int(info.index)
        if let page = info.page { key(",\"page\":"); int(page) }
        if let inputError {
            key(",\"error\":"); JSON.writeString(inputError, to: &out)
            out.append(UInt8(ascii: "}"))
            return
        }
        guard let s = symbol else { out.append(UInt8(ascii: "}")); return }
        key(",\"symbology\":"); JSON.writeString(s.symbology.rawValue, to: &out)
        key(",\"text\":"); JSON.writeString(s.text, to: &out)
        key(",\"charset\":"); JSON.writeString(s.charset, to: &out)
        key(",\"bytes\":"); out.append(UInt8(ascii: "\"")); Base64.encode(s.bytes, to: &out); out.append(UInt8(ascii: "\""))
        key(",\"points\":"); out.append(UInt8(ascii: "["))
        for (i, p) in s.points.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "[")); int(p.x); out.append(UInt8(ascii: ",")); int(p.y); out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "]"))
        key(",\"bbox\":"); out.append(UInt8(ascii: "{"))
        key(",\"x\":", first: true); int(s.bbox.x); key(",\"y\":"); int(s.bbox.y)
        key(",\"width\":"); int(s.bbox.width); key(",\"height\":"); int(s.bbox.height)
        out.append(UInt8(ascii: "}"))
        key(",\"orientation\":"); JSON.writeString(s.orientation, to: &out)
        key(",\"quality\":"); int(s.quality)
        if !s.decoder.isEmpty { key(",\"decoder\":"); JSON.writeString(s.decoder, to: &out) }
        if let id = s.symbologyID { key(",\"symbology_id\":"); JSON.writeString(id, to: &out) }
        if let eci = s.eci { key(",\"eci\":"); int(eci) }
        if let level = s.ecLevel { key(",\"ec_level\":"); JSON.writeString(level, to: &out) }
        if let version = s.version { key(",\"version\":"); JSON.writeString(version, to: &out) }
        if s.inverted == true { key(",\"inverted\":"); out += "true".utf8 }
        if s.mirrored == true { key(",\"mirrored\":"); out += "true".utf8 }
        if let q = s.sequence {
            key(",\"sequence\":"); out.append(UInt8(ascii: "{"))
            key(",\"index\":", first: true); int(q.index); key(",\"size\":"); int(q.size); key(",\"id\":"); JSON.writeString(q.id, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        if let n = s.joinedParts { key(",\"joined_parts\":"); int(n) }
        if !s.modifiers.isEmpty { key(",\"modifiers\":"); JSON.array(s.modifiers.map { .string($0) }).write(to: &out) }
        if let addon = s.addon { key(",\"addon\":"); JSON.writeString(addon, to: &out) }
        if let payload { key(",\"payload\":"); payload.write(to: &out) }
        if !actions.isEmpty { key(",\"actions\":"); JSON.array(actions).write(to: &out) }
        if !emitted.isEmpty { key(",\"emitted\":"); JSON.array(emitted).write(to: &out) }
        if !errors.isEmpty { key(",\"errors\":"); JSON.array(errors).write(to: &out) }
        if !info.warnings.isEmpty { key(",\"warnings\":"); JSON.array(info.warnings.map { .string($0) }).write(to: &out) }
        if let annotated { key(",\"annotated\":"); JSON.writeString(annotated, to: &out) }
        out.append(UInt8(ascii: "}"))
    }
}
