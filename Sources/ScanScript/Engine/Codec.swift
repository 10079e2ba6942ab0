import ScanCore

/// The `codec` module: charset conversion for scripts, never silently lossy.
///
///     local text, err = codec.decode(bytes, "big5")   -- nil, "invalid big5 sequence at byte 3"
///     local bytes, err = codec.encode(text, "shift_jis")
///     local text, charset = codec.detect(bytes)       -- scanlua's own guess, as for ev.text
enum Codec {
    static func module() -> LuaValue {
        .table([
            ("decode", .function { L throws(ScriptError) in
                let bytes = try L.checkString(1, "decode")
                let charset = String(decoding: try L.checkString(2, "decode"), as: UTF8.self)
                return push(TextCodec.decode(bytes, charset: charset).map { LuaValue.string($0) }, L)
            }),
            ("encode", .function { L throws(ScriptError) in
                let text = try L.checkString(1, "encode")
                let charset = String(decoding: try L.checkString(2, "encode"), as: UTF8.self)
                return push(TextCodec.encode(text, charset: charset).map { LuaValue.bytes($0) }, L)
            }),
            ("detect", .function { L throws(ScriptError) in
                let decoded = TextDecoding.decode(try L.checkString(1, "detect"))
                L.push(.string(decoded.text))
                L.push(.string(decoded.charset))
                return 2
            }),
        ])
    }

    /// Lua's convention for expected failures: the value, or nil plus a message.
    private static func push(_ result: Result<LuaValue, TextCodec.Failure>, _ L: LuaState) -> Int32 {
        switch result {
        case .success(let v): L.push(v); return 1
        case .failure(let f): L.push(.nil); L.push(.string(f.description)); return 2
        }
    }
}
