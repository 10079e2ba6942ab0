// The only Swift file that calls libmicrohttpd. The daemon runs its own threads (one per
// connection), so a streamed reply may block in its reader until it has the next chunk.
internal import CMicroHTTPD
import Foundation

/// A small HTTP server: one handler for every request, replies whole or streamed.
final class HTTPServer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        /// The query argument or request header of this name (`query` first).
        var query: @Sendable (String) -> String?
        var header: @Sendable (String) -> String?
    }

    enum Reply {
        case whole(status: Int, type: String, body: [UInt8])
        /// A reply of unknown length: `next` blocks until its next chunk, nil ends the reply.
        case stream(type: String, next: () -> [UInt8]?)
    }

    struct StartError: Error, CustomStringConvertible { let description: String }

    private var daemon: OpaquePointer?
    private let handler: (Request) -> Reply
    /// Headers every response carries (the page's framing and content policy).
    private let headers: [(String, String)]

    /// At most this many connections at once, and this many from one address; streamed replies
    /// (which hold their connection for as long as the client likes) take at most `streamLimit`
    /// of them, so short requests (the page, /status) always find a slot.
    static let connectionLimit = 64, perAddressLimit = 8, streamLimit = 48
    /// Streamed replies being served.
    private var streams = 0
    /// A request must be complete this long after its connection opened (or its previous reply
    /// ended): libmicrohttpd's idle timeout restarts at every byte, so a client trickling one
    /// byte every few seconds would otherwise hold its thread for ever.
    static let requestDeadline: TimeInterval = 5

    /// Connections by socket: when the wait for their request began, nil while a request is served.
    private let connectionsLock = NSLock()
    private var waiting: [Int32: Date?] = [:]
    private var watchdog: Thread?
    private var watching = true

    /// Listens on `address` (an IPv4 or IPv6 socket address) until ``stop()``.
    init(address: sockaddr_storage, headers: [(String, String)] = [], handler: @escaping (Request) -> Reply) throws(StartError) {
        self.handler = handler
        self.headers = headers
        var address = address
        let v6 = Int32(address.ss_family) == AF_INET6
        let flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue)
            | (v6 ? UInt32(MHD_USE_IPv6.rawValue) : 0)
        let me = Unmanaged.passUnretained(self).toOpaque()
        let notify = unsafeBitCast(HTTPServer.notifyConnection, to: UnsafeRawPointer.self)
        let completed = unsafeBitCast(HTTPServer.requestCompleted, to: UnsafeRawPointer.self)
        daemon = withUnsafeMutablePointer(to: &address) { sa in
            // The port in `address` wins over the port argument; MHD_OPTION_END ends the pairs.
            // A client that sends nothing for 15 s is dropped (streams write every second or two);
            // at most 64 connections at once and 8 from one address, so slow clients cannot hold
            // every thread; the watchdog ends requests not complete within 5 s.
            let options: [CVarArg] = [
                Int32(MHD_OPTION.SOCK_ADDR.rawValue), sa,
                Int32(MHD_OPTION.CONNECTION_TIMEOUT.rawValue), UInt32(15),
                Int32(MHD_OPTION.CONNECTION_LIMIT.rawValue), UInt32(Self.connectionLimit),
                Int32(MHD_OPTION.PER_IP_CONNECTION_LIMIT.rawValue), UInt32(Self.perAddressLimit),
                Int32(MHD_OPTION.NOTIFY_CONNECTION.rawValue), OpaquePointer(notify), OpaquePointer(me),
                Int32(MHD_OPTION.NOTIFY_COMPLETED.rawValue), OpaquePointer(completed), OpaquePointer(me),
                Int32(MHD_OPTION.END.rawValue),
            ]
            return withVaList(options) { list in
                MHD_start_daemon_va(flags, 0, nil, nil, HTTPServer.access, me, list)
            }
        }
        guard daemon != nil else {
            throw StartError(description: "cannot listen on \(Self.describe(address)): \(String(cString: strerror(errno)))")
        }
        let thread = Thread { [unowned self] in watch() }
        watchdog = thread
        thread.start()
    }

    /// Stops listening and waits for every connection's thread (streamed replies must end first).
    func stop() {
        connectionsLock.lock()
        watching = false
        connectionsLock.unlock()
        if let d = daemon { MHD_stop_daemon(d) }
        daemon = nil
    }

    /// Every quarter second: a connection still without a complete request past the deadline is
    /// shut down (its thread then sees the end of the stream and closes it; the descriptor stays
    /// libmicrohttpd's to close). The corresponding C function is `shutdown`.
    private func watch() {
        while true {
            Thread.sleep(forTimeInterval: 0.25)
            connectionsLock.lock()
            guard watching else { connectionsLock.unlock(); return }
            let now = Date()
            for (fd, since) in waiting {
                if let since, now.timeIntervalSince(since) > Self.requestDeadline {
                    shutdown(fd, Int32(SHUT_RDWR))
                    waiting[fd] = .some(nil)
                }
            }
            connectionsLock.unlock()
        }
    }

    private func setWaiting(_ connection: OpaquePointer?, since: Date?, remove: Bool = false) {
        guard let connection else { return }
        let fd = scanlua_connection_fd(connection)
        guard fd >= 0 else { return }
        connectionsLock.lock()
        if remove { waiting[fd] = nil } else { waiting[fd] = .some(since) }
        connectionsLock.unlock()
    }

    /// Counts a streamed reply in, or says no when `streamLimit` are open.
    private func openStream() -> Bool {
        connectionsLock.lock()
        defer { connectionsLock.unlock() }
        guard streams < Self.streamLimit else { return false }
        streams += 1
        return true
    }

    private func closeStream() {
        connectionsLock.lock()
        streams -= 1
        connectionsLock.unlock()
    }

    private static let notifyConnection: MHD_NotifyConnectionCallback = { cls, connection, _, code in
        guard let cls else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        server.setWaiting(connection, since: Date(), remove: code.rawValue != 0 /* MHD_CONNECTION_NOTIFY_STARTED */)
    }

    private static let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, _, _ in
        guard let cls else { return }
        // Keep-alive: the next request on this connection has its own deadline.
        Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().setWaiting(connection, since: Date())
    }

    deinit { stop() }

    /// The socket address of `host:port` (an IPv4 or [IPv6] literal, or `localhost`).
    static func address(host: String, port: UInt16) -> sockaddr_storage? {
        var storage = sockaddr_storage()
        let h = host == "localhost" ? "127.0.0.1" : host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, h, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: v4) { dst.copyMemory(from: $0) } }
            return storage
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, h, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage) { dst in withUnsafeBytes(of: v6) { dst.copyMemory(from: $0) } }
            return storage
        }
        return nil
    }

    static func describe(_ a: sockaddr_storage) -> String {
        var a = a
        let family = Int32(a.ss_family)
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        return withUnsafePointer(to: &a) { p -> String in
            if family == AF_INET6 {
                return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { s in
                    var addr = s.pointee.sin6_addr
                    inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
                    return "[\(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))]:\(UInt16(bigEndian: s.pointee.sin6_port))"
                }
            }
            return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { s in
                var addr = s.pointee.sin_addr
                inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
                return "\(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)):\(UInt16(bigEndian: s.pointee.sin_port))"
            }
        }
    }

    /// libmicrohttpd's access handler: every request, once its headers are in. No request here
    /// has a body we read (POST /torch takes its argument in the query), so the reply goes at once.
    private static let access: MHD_AccessHandlerCallback = { cls, connection, url, method, _, _, uploadSize, _ in
        guard let cls, let connection else { return .NO }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        server.setWaiting(connection, since: nil)  // the request is complete: no deadline while it is served
        let conn = UncheckedConnection(connection)
        let request = Request(
            method: method.map { String(cString: $0) } ?? "GET",
            path: url.map { String(cString: $0) } ?? "/",
            query: { name in MHD_lookup_connection_value(conn.pointer, .GET_ARGUMENT_KIND, name).map { String(cString: $0) } },
            header: { name in MHD_lookup_connection_value(conn.pointer, .HEADER_KIND, name).map { String(cString: $0) } })
        if let uploadSize { uploadSize.pointee = 0 }  // a body, if any, is ignored
        let response: OpaquePointer?
        var status = 200
        switch server.handler(request) {
        case .whole(let code, let type, let body):
            status = code
            response = body.withUnsafeBytes { buf in
                MHD_create_response_from_buffer(buf.count, UnsafeMutableRawPointer(mutating: buf.baseAddress), .RESPMEM_MUST_COPY)
            }
            if let response { MHD_add_response_header(response, "Content-Type", type) }
        case .stream(let type, let next):
            guard server.openStream() else {
                let body = Array("too many streams open (\(HTTPServer.streamLimit)); try again later\n".utf8)
                status = 503
                response = body.withUnsafeBytes { buf in
                    MHD_create_response_from_buffer(buf.count, UnsafeMutableRawPointer(mutating: buf.baseAddress), .RESPMEM_MUST_COPY)
                }
                break
            }
            let stream = Unmanaged.passRetained(ChunkStream(next, closed: { [weak server] in server?.closeStream() })).toOpaque()
            response = MHD_create_response_from_callback(UInt64.max /* MHD_SIZE_UNKNOWN */, 64 * 1024, ChunkStream.read, stream, ChunkStream.release)
            if let response {
                MHD_add_response_header(response, "Content-Type", type)
            } else {
                Unmanaged<ChunkStream>.fromOpaque(stream).release()
            }
        }
        guard let response else { return .NO }
        MHD_add_response_header(response, "Cache-Control", "no-store")
        for (name, value) in server.headers { MHD_add_response_header(response, name, value) }
        defer { MHD_destroy_response(response) }
        return MHD_queue_response(connection, UInt32(status), response)
    }
}

/// A connection handle usable from the request's closures (they run on the connection's own thread).
private struct UncheckedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ p: OpaquePointer) { pointer = p }
}

/// The chunks of a streamed reply, handed to libmicrohttpd as it asks for them.
private final class ChunkStream {
    let next: () -> [UInt8]?
    /// Called once libmicrohttpd is done with the stream (the client left or the reply ended).
    let closed: () -> Void
    var pending: [UInt8] = []
    var offset = 0
    init(_ next: @escaping () -> [UInt8]?, closed: @escaping () -> Void) {
        self.next = next
        self.closed = closed
    }
    deinit { closed() }

    static let read: MHD_ContentReaderCallback = { cls, _, buf, max in
        guard let cls, let buf else { return -2 /* MHD_CONTENT_READER_END_WITH_ERROR */ }
        let s = Unmanaged<ChunkStream>.fromOpaque(cls).takeUnretainedValue()
        while s.offset >= s.pending.count {
            guard let chunk = s.next() else { return -1 /* MHD_CONTENT_READER_END_OF_STREAM */ }
            s.pending = chunk
            s.offset = 0
        }
        let n = min(max, s.pending.count - s.offset)
        s.pending.withUnsafeBytes { src in
            UnsafeMutableRawPointer(buf).copyMemory(from: src.baseAddress! + s.offset, byteCount: n)
        }
        s.offset += n
        return n
    }

    static let release: MHD_ContentReaderFreeCallback = { cls in
        if let cls { Unmanaged<ChunkStream>.fromOpaque(cls).release() }
    }
}
