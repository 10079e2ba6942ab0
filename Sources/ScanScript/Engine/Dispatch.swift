import Foundation
import ScanCore

/// Events to the prelude's `dispatch_batch`, records back from the ``RecordBuffer``.
extension ScriptEngine {
    /// Events per call into Lua: large enough that the call's cost vanishes, small enough that
    /// a batch's events and records stay small.
    package static let batchSize = 256

    /// Pushes one event through the parsers and rules. Never throws: script errors are in the result.
    package func process(_ event: ScanEvent) -> ScriptResult { process([event])[0] }

    /// Pushes events through the parsers and rules, in order, in batches; one result per event.
    /// A failing handler costs only its own event; if the dispatcher itself fails (memory
    /// exhausted between handlers), that event gets an error result and the rest go on.
    package func process(_ events: [ScanEvent]) -> [ScriptResult] {
        flushDeferredLog()  // what the last batch left for after its records, if nobody said it yet
        var results: [ScriptResult] = []
        results.reserveCapacity(events.count)
        var start = 0
        store.beginEvents()
        defer { store.endEvents() }
        while start < events.count {
            let batch = events[start..<min(start + Self.batchSize, events.count)]
            let base = lua.top
            records.reset()
            pushCore("dispatch_batch")
            do {
                try lua.withoutMemoryLimit { () throws(ScriptError) in lua.pushEvents(batch, reusing: true) }
                lua.push(.int(batch.count))
                try lua.call(nargs: 2, nresults: 0, handlerAt: 1)
                readRecords(batch.count, into: &results)
                start += batch.count
            } catch {
                // Events before the failing one have their records; it gets the error; go on after it.
                let done = min(batchDone(), batch.count - 1)
                readRecords(done, into: &results)
                try? store.endEvent(commit: false)
                results.append(ScriptResult(payload: .object([("type", .string("raw"))]), parser: nil, actions: [], emitted: [],
                                            errors: [.object([("message", .string("scanlua: " + error.message))])], summary: nil))
                start += done + 1
            }
            lua.setTop(base)
        }
        return results
    }

    /// How many events of the last batch finished (`core.batch_done()`).
    private func batchDone() -> Int {
        var n = 0
        try? callCore("batch_done", results: 1) { n = lua.integer(at: -1) ?? 0 }
        return n
    }

    /// The first `n` events' records of the batch (payload JSON, parser name, extras JSON), added
    /// to `results`. The payloads are slices of one copy of the batch's buffer.
    private func readRecords(_ n: Int, into results: inout [ScriptResult]) {
        guard n > 0 else { return }
        let data = records.takeData()
        func segment(_ k: Int) -> ArraySlice<UInt8> { data[(k == 0 ? 0 : records.end(k - 1))..<records.end(k)] }
        for i in 0..<min(n, records.count / 3) {
            let payload = segment(3 * i), parser = segment(3 * i + 1), extras = segment(3 * i + 2)
            var errors: [JSON] = [], actions: [JSON] = [], emitted: [JSON] = [], summary: String?
            if !extras.isEmpty, let x = JSON(parsing: extras) {
                if case .array(let e)? = x["errors"] { errors = e }
                if case .array(let a)? = x["actions"] { actions = a }
                if case .array(let m)? = x["emitted"] { emitted = m }
                if case .string(let s)? = x["summary"] { summary = s }
            }
            // Made in place: a result built first and then appended is copied and destroyed.
            results.append(ScriptResult(payload: .raw(payload), parser: parser.isEmpty ? nil : parserName(parser),
                                        actions: actions, emitted: emitted, errors: errors, summary: summary))
        }
    }

    /// A parser's name as a String, made once per name (there are few).
    private func parserName(_ bytes: ArraySlice<UInt8>) -> String {
        let found: String? = bytes.withUnsafeBufferPointer { (b: UnsafeBufferPointer<UInt8>) -> String? in
            for known in parserNames where known.bytes.count == b.count {
                let same = known.bytes.withUnsafeBufferPointer { (k: UnsafeBufferPointer<UInt8>) -> Bool in memcmp(k.baseAddress!, b.baseAddress!, b.count) == 0 }
                if same { return known.name }
            }
            return nil
        }
        if let found { return found }
        let name = String(decoding: bytes, as: UTF8.self)
        if parserNames.count < 64 { parserNames.append((Array(bytes), name)) }
        return name
    }
}
