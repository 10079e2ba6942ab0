import Foundation
import ScanCore

/// Why an action did not get through: worth retrying (connection refused, timeout, 5xx, broker
/// down) or not (a malformed action, a 4xx).
enum ActionFailure: Error {
    case retryable(String)
    case permanent(String)
}

/// Sends `http` and `mqtt` actions, keeping one connection per broker open across a session.
/// What carries a delivery to its server: ``Forwarder`` (curl, libmosquitto), or a fake in
/// unit tests of the outbox's rules.
protocol Transport: AnyObject {
    /// One attempt with the delivery's idempotency key.
    func send(_ request: Forwarder.Request, key: String) -> Forwarder.Outcome
    /// Closes broker connections.
    func close()
}

final class Forwarder: Transport {
    /// An action checked and ready to send.
    struct Request {
        enum Kind { case http(method: String, headers: [String], body: [UInt8]), mqtt(topic: String, payload: [UInt8], qos: Int, retain: Bool, caFile: String?) }
        var kind: Kind
        var endpoint: Endpoint
        /// The URL or broker as the action gives it (the outbox's `target`).
        var target: String
        var timeout: Double
        var type: String { if case .http = kind { return "http" }; return "mqtt" }
    }

    /// What one attempt came to.
    enum Outcome {
        case delivered(status: Int?)
        case retry(String, status: Int?)
        case failed(String, status: Int?)
    }

    private var brokers: [String: MQTTConnection] = [:]

    /// The request an `http` or `mqtt` action describes, or why it is malformed.
    /// Headers a script may not set (lowercase), besides every `Proxy-*`.
    static let reservedHeaders: Set<String> = ["host", "content-length", "transfer-encoding", "connection", "upgrade", "te",
                                               "trailer", "expect", "keep-alive"]
    static let reservedHeaderList = "Host, Content-Length, Transfer-Encoding, Connection, Upgrade, TE, Trailer, Expect, Keep-Alive, Proxy-*"

    static func request(from action: JSON) -> Result<Request, ActionFailure> {
        func string(_ k: String) -> String? { if case .string(let s)? = action[k] { return s }; return nil }
        func number(_ k: String) -> Double? {
            switch action[k] { case .int(let n)?: return Double(n); case .double(let d)?: return d; default: return nil }
        }
        func bytes(_ k: String) -> [UInt8]? {
            switch action[k] {
            case .string(let s)?: return Array(s.utf8)
            case let v? where v != .null: return Array(v.serialized.utf8)  // a table: sent as JSON
            default: return nil
            }
        }
        let timeout = number("timeout") ?? 10
        guard timeout > 0, timeout <= 600 else { return .failure(.permanent("'timeout' must be 0 < seconds <= 600")) }
        switch string("type") {
        case "http":
            guard let url = string("url") else { return .failure(.permanent("http needs a 'url' string")) }
            guard let endpoint = Endpoint(url: url, schemes: ["http", "https"]) else {
                return .failure(.permanent("\(url): not an http:// or https:// URL with a host"))
            }
            let method = (string("method") ?? "POST").uppercased()
            guard ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(method) else {
                return .failure(.permanent("method '\(method)' is not one of GET, POST, PUT, PATCH, DELETE"))
            }
            var headers: [String] = []
            var hasContentType = false
            if let h = action["headers"] {
                guard case .object(let pairs) = h else { return .failure(.permanent("'headers' must be a table of name = value strings")) }
                // Checked by Unicode scalar, not Character ("\r\n" is one Character, equal to neither):
                // a name is an HTTP token, a value has no control characters, so nothing can add a
                // header or a request of its own.
                let token = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".unicodeScalars)
                for (name, value) in pairs {
                    guard case .string(let v) = value, !name.isEmpty, name.unicodeScalars.allSatisfy(token.contains),
                          !v.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
                        return .failure(.permanent("header '\(name)': the name must be an HTTP token and the value one line without control characters"))
                    }
                    // Framing and hop-by-hop headers are libcurl's to write: a script's Host would
                    // reach a virtual host off the allow-list, its Content-Length smuggle a request.
                    if Self.reservedHeaders.contains(name.lowercased()) || name.lowercased().hasPrefix("proxy-") {
                        return .failure(.permanent("header '\(name)' cannot be set by a script (framing and hop-by-hop headers are scanlua's: \(Self.reservedHeaderList))"))
                    }
                    if name.lowercased() == "idempotency-key" { continue }  // scanlua's own
                    // Two spellings of one name would send the header twice (a receiver takes either).
                    guard !headers.contains(where: { $0.lowercased().hasPrefix(name.lowercased() + ":") }) else {
                        return .failure(.permanent("header '\(name)' is given twice (header names are case-insensitive)"))
                    }
                    if name.lowercased() == "content-type" { hasContentType = true }
                    headers.append("\(name): \(v)")
                }
            }
            let body = bytes("body") ?? []
            if !hasContentType && !body.isEmpty {
                if case .string? = action["body"] { headers.append("Content-Type: text/plain; charset=utf-8") }
                else { headers.append("Content-Type: application/json") }
            }
            return .success(Request(kind: .http(method: method, headers: headers, body: body), endpoint: endpoint, target: url, timeout: timeout))
        case "mqtt":
            guard let broker = string("broker") else { return .failure(.permanent("mqtt needs a 'broker' string (mqtt://host:port)")) }
            guard let endpoint = Endpoint(url: broker, schemes: ["mqtt", "mqtts"]) else {
                return .failure(.permanent("\(broker): not an mqtt:// or mqtts:// URL with a host"))
            }
            guard let topic = string("topic"), !topic.isEmpty, !topic.contains("+"), !topic.contains("#") else {
                return .failure(.permanent("mqtt needs a 'topic' string, not empty, without wildcards (+ #)"))
            }
            // What brokers would cut, refuse or drop silently (MQTT 3.1.1 section 4.7): said here,
            // never reported as delivered.
            if topic.utf8.contains(0) { return .failure(.permanent("mqtt topic contains a NUL character (MQTT forbids it; it would be cut there)")) }
            if topic.utf8.count > 65_535 {
                return .failure(.permanent("mqtt topic is \(topic.utf8.count) bytes long; MQTT allows at most 65,535"))
            }
            if topic.hasPrefix("$") {
                return .failure(.permanent("mqtt topic '\(topic.prefix(40))' starts with '$': those topics are the broker's own ($SYS/...) and it drops what clients publish there"))
            }
            let qos = number("qos") ?? 1
            guard [0, 1, 2].contains(qos) else { return .failure(.permanent("'qos' must be 0, 1 or 2")) }
            var retain = false
            if let r = action["retain"] { guard case .bool(let b) = r else { return .failure(.permanent("'retain' must be a boolean")) }; retain = b }
            return .success(Request(kind: .mqtt(topic: topic, payload: bytes("payload") ?? [], qos: Int(qos), retain: retain,
                                                caFile: string("ca_file")),
                                    endpoint: endpoint, target: broker, timeout: timeout))
        default:
            return .failure(.permanent("not an http or mqtt action"))
        }
    }

    /// One attempt, with the delivery's idempotency key.
    func send(_ request: Request, key: String) -> Outcome {
        switch request.kind {
        case .http(let method, let headers, let body):
            let result = sendHTTP(method: method, url: request.target, headers: headers + ["Idempotency-Key: \(key)"], body: body,
                                  timeout: request.timeout)
            if let failure = result.failure { return result.permanent ? .failed(failure, status: nil) : .retry(failure, status: nil) }
            switch result.status {
            case 200..<300: return .delivered(status: result.status)
            case 408, 429, 500..<600: return .retry("HTTP \(result.status)", status: result.status)
            default: return .failed("HTTP \(result.status)", status: result.status)
            }
        case .mqtt(let topic, let payload, let qos, let retain, let caFile):
            let id = "\(request.endpoint.scheme)://\(request.endpoint)|\(caFile ?? "")"
            do throws(ActionFailure) {
                let connection: MQTTConnection
                if let c = brokers[id], c.isUsable { connection = c } else {
                    brokers[id] = nil
                    connection = try MQTTConnection(endpoint: request.endpoint, caFile: caFile, timeout: request.timeout)
                    brokers[id] = connection
                }
                try connection.publish(topic: topic, payload: payload, qos: qos, retain: retain, timeout: request.timeout)
                return .delivered(status: nil)
            } catch {
                if case .retryable = error { brokers[id] = nil }
                switch error {
                case .retryable(let m): return .retry(m, status: nil)
                case .permanent(let m): return .failed(m, status: nil)
                }
            }
        }
    }

    /// Closes the broker connections.
    func close() { brokers = [:] }
}
