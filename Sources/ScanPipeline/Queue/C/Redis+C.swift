// The only Swift file that talks to Redis (hiredis).
internal import CHiredis
import Foundation

/// A Redis reply.
package indirect enum RedisReply: Equatable, Sendable {
    case string([UInt8])
    case integer(Int)
    case array([RedisReply])
    case null
    case status(String)
    case error(String)

    package var text: String? { if case .string(let b) = self { return String(decoding: b, as: UTF8.self) }; return nil }
    package var items: [RedisReply] { if case .array(let a) = self { return a }; return [] }
}

package struct RedisError: Error, CustomStringConvertible {
    package let message: String
    /// The server could not be reached or the connection broke (a restart): worth reconnecting.
    package var connectionLost = false
    package init(message: String, connectionLost: Bool = false) {
        self.message = message
        self.connectionLost = connectionLost
    }
    package var description: String { message }
}

/// One blocking connection (`redis://host:port[/db]`).
/// The corresponding C functions are `redisConnectWithTimeout`, `redisCommandArgv` and `redisFree`.
package final class RedisConnection: RedisClient {
    /// nil after the connection was lost, until ``reconnect()`` succeeds.
    private var context: UnsafeMutablePointer<redisContext>?
    package let url: String
    private let timeout: Double

    package init(url: String, timeout: Double = 5) throws(RedisError) {
        self.url = url
        self.timeout = timeout
        try reconnect()
    }

    /// (Re)opens the connection (a Redis that restarted, or was down at start). Throws with
    /// ``RedisError/connectionLost`` set when the server cannot be reached.
    package func reconnect() throws(RedisError) {
        if let context { redisFree(context) }
        context = nil
        guard let c = URLComponents(string: url), c.scheme == "redis", let host = c.host, !host.isEmpty else {
            throw RedisError(message: "\(url): not a redis://host[:port][/db] URL")
        }
        let port = c.port ?? 6379
        let tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        guard let ctx = redisConnectWithTimeout(host, Int32(port), tv) else { throw RedisError(message: "\(url): out of memory") }
        if ctx.pointee.err != 0 {
            let why = withUnsafeBytes(of: ctx.pointee.errstr) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            redisFree(ctx)
            throw RedisError(message: "\(url): cannot connect: \(why)", connectionLost: true)
        }
        context = ctx
        let db = c.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        if !db.isEmpty {
            if case .error(let e) = try command(["SELECT", db]) { throw RedisError(message: "\(url): SELECT \(db): \(e)") }
        }
    }

    deinit { if let context { redisFree(context) } }

    /// Sends one command (binary-safe arguments) and returns its reply; a lost connection throws.
    package func command(_ args: [[UInt8]]) throws(RedisError) -> RedisReply {
        let copies = args.map { a -> UnsafeMutablePointer<CChar> in
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: max(a.count, 1))
            a.withUnsafeBytes { if let base = $0.baseAddress { UnsafeMutableRawPointer(p).copyMemory(from: base, byteCount: a.count) } }
            return p
        }
        defer { copies.forEach { $0.deallocate() } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) }
        var lengths = args.map(\.count)
        guard let context else { throw RedisError(message: "\(url): not connected", connectionLost: true) }
        guard let raw = redisCommandArgv(context, Int32(args.count), &pointers, &lengths) else {
            let why = withUnsafeBytes(of: context.pointee.errstr) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            // The connection is unusable after this (hiredis): dropped, for reconnect() to replace.
            redisFree(context)
            self.context = nil
            throw RedisError(message: "\(url): \(why.isEmpty ? "connection lost" : why)", connectionLost: true)
        }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(raw) }
        return Self.convert(reply)
    }

    private static func convert(_ r: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let v = r.pointee
        func bytes() -> [UInt8] { v.str == nil ? [] : Array(UnsafeRawBufferPointer(start: v.str, count: Int(v.len))) }
        switch v.type {
        case REDIS_REPLY_STRING: return .string(bytes())
        case REDIS_REPLY_INTEGER: return .integer(Int(v.integer))
        case REDIS_REPLY_ARRAY:
            return .array((0..<Int(v.elements)).map { convert(v.element[$0]!) })
        case REDIS_REPLY_STATUS: return .status(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_ERROR: return .error(String(decoding: bytes(), as: UTF8.self))
        default: return .null
        }
    }
}
