/// The actions rules may return, as data, for the host to carry out: the one list that the
/// prelude's check, the action runner and the docs' table come from.
package enum ActionType: String, CaseIterable, Sendable {
    case append
    case stop
    case http
    case mqtt

    /// Its fields, for docs and errors.
    package var fields: String {
        switch self {
        case .append: return "`path`, `line`"
        case .stop: return ""
        case .http: return "`url`, `method` (POST), `headers`, `body` (table: JSON, or string), `timeout` (10 s)"
        case .mqtt: return "`broker` (mqtt://host:port, mqtts://), `topic`, `payload` (table: JSON, or string), `qos` (1), `retain` (false), `ca_file`, `timeout` (10 s)"
        }
    }

    /// What it does, for docs.
    package var effect: String {
        switch self {
        case .append: return "appends `line` and a newline to `path`; relative paths below the working directory only, unless `--trust`"
        case .stop: return "ends the scan after the current image (stop-after-first)"
        case .http: return "sends an HTTP request with an `Idempotency-Key` header; 2xx is delivered, a refused connection, timeout, 408, 429 or 5xx is `queued` in the outbox and retried"
        case .mqtt: return "publishes to a broker (one connection per broker per session) and waits for its acknowledgement; a broker that is down is `queued` in the outbox and retried"
        }
    }
}
