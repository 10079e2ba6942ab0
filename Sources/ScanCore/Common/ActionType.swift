/// The actions rules may return, as data, for the host to carry out: the one list that the
/// prelude's check, the action runner and the docs' table come from.
public enum ActionType: String, CaseIterable, Sendable {
    case append
    case stop

    /// Its fields, for docs and errors.
    public var fields: String {
        switch self {
        case .append: return "`path`, `line`"
        case .stop: return ""
        }
    }

    /// What it does, for docs.
    public var effect: String {
        switch self {
        case .append: return "appends `line` and a newline to `path`; relative paths below the working directory only, unless `--trust`"
        case .stop: return "ends the scan after the current image (stop-after-first)"
        }
    }
}
