// The only Swift file that talks to MQTT brokers (libmosquitto).
internal import CMosquitto
import Foundation

/// One connection to a broker, kept open across a session. Publishing waits until the broker
/// has the message: for QoS 1 its PUBACK, for QoS 2 its PUBCOMP, for QoS 0 until the message is
/// written to the socket.
final class MQTTConnection {
    private final class State {
        var connack: Int32?
        var acked: Set<Int32> = []
        var lost = false
    }

    private let handle: OpaquePointer
    private let state = State()
    let endpoint: Endpoint
    private static let initialised: Bool = { mosquitto_lib_init(); return true }()

    /// Connects (and waits for the broker's CONNACK) within `timeout` seconds.
    /// The corresponding C functions are `mosquitto_new`, `mosquitto_tls_set` and `mosquitto_connect`.
    init(endpoint: Endpoint, caFile: String?, timeout: Double) throws(ActionFailure) {
        _ = Self.initialised
        self.endpoint = endpoint
        let id = "scanlua-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard let m = mosquitto_new(id, true, Unmanaged.passUnretained(state).toOpaque()) else {
            throw .retryable("cannot create an MQTT client")
        }
        handle = m
        mosquitto_connect_callback_set(m) { _, obj, rc in
            Unmanaged<State>.fromOpaque(obj!).takeUnretainedValue().connack = rc
        }
        mosquitto_publish_callback_set(m) { _, obj, mid in
            Unmanaged<State>.fromOpaque(obj!).takeUnretainedValue().acked.insert(mid)
        }
        mosquitto_disconnect_callback_set(m) { _, obj, _ in
            Unmanaged<State>.fromOpaque(obj!).takeUnretainedValue().lost = true
        }
        if endpoint.scheme == "mqtts" {
            let rc = mosquitto_tls_set(m, caFile, caFile == nil ? "/etc/ssl/certs" : nil, nil, nil, nil)
            if rc != MOSQ_ERR_SUCCESS.rawValue { throw .permanent("TLS: \(Self.message(rc))") }
        }
        let rc = mosquitto_connect(m, endpoint.host, Int32(endpoint.port), 30)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw .retryable("cannot connect to \(endpoint): \(Self.message(rc))")
        }
        let deadline = Date().addingTimeInterval(timeout)
        while state.connack == nil && Date() < deadline {
            if mosquitto_loop(m, 100, 1) != MOSQ_ERR_SUCCESS.rawValue { break }
        }
        guard let connack = state.connack, connack == 0 else {
            let why = state.connack.map { String(cString: mosquitto_connack_string($0)) } ?? "no CONNACK within \(timeout) s"
            throw .retryable("broker \(endpoint) refused the connection: \(why)")
        }
    }

    /// Also after a failed init: every stored property was set by then, so Swift runs deinit,
    /// and this is the one place the client is destroyed.
    deinit {
        mosquitto_disconnect(handle)
        mosquitto_destroy(handle)
    }

    /// Publishes and waits for the broker's acknowledgement (at most `timeout` seconds).
    /// The corresponding C functions are `mosquitto_publish` and `mosquitto_loop`.
    func publish(topic: String, payload: [UInt8], qos: Int, retain: Bool, timeout: Double) throws(ActionFailure) {
        guard !state.lost else { throw .retryable("connection to \(endpoint) lost") }
        var mid: Int32 = 0
        let rc = payload.withUnsafeBytes { buf in
            mosquitto_publish(handle, &mid, topic, Int32(buf.count), buf.baseAddress, Int32(qos), retain)
        }
        switch rc {
        case MOSQ_ERR_SUCCESS.rawValue: break
        case MOSQ_ERR_PAYLOAD_SIZE.rawValue, MOSQ_ERR_MALFORMED_UTF8.rawValue, MOSQ_ERR_INVAL.rawValue:
            throw .permanent("cannot publish to '\(topic)': \(Self.message(rc))")
        default:
            throw .retryable("cannot publish to \(endpoint): \(Self.message(rc))")
        }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let done = qos == 0 ? !mosquitto_want_write(handle) : state.acked.contains(mid)
            if done { state.acked.remove(mid); return }
            let loop = mosquitto_loop(handle, 50, 1)
            if loop != MOSQ_ERR_SUCCESS.rawValue || state.lost {
                state.lost = true
                throw .retryable("connection to \(endpoint) lost before the broker acknowledged: \(Self.message(loop))")
            }
        }
        state.lost = true  // the next publish reconnects
        throw .retryable("broker \(endpoint) did not acknowledge within \(timeout) s")
    }

    var isUsable: Bool { !state.lost }

    private static func message(_ rc: Int32) -> String {
        rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(rc))
    }
}
