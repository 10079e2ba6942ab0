import Foundation

/// Where an `http` or `mqtt` action may connect: the config's `network` allow-list of
/// `host[:port]` patterns (`*.example.com` for subdomains), or anywhere with `--trust`. A script
/// cannot add hosts (only the config or the command line set `network`). Checked before any
/// connection is made, on the host and port as the URL writes them.
package struct NetworkPolicy: Sendable {
    package let patterns: [String]
    package let trusted: Bool

    package init(patterns: [String], trusted: Bool) {
        self.patterns = patterns.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        self.trusted = trusted
    }

    /// `network` as the option gives it: comma-separated patterns.
    package init(list: String?, trusted: Bool) {
        self.init(patterns: (list ?? "").split(separator: ",").map(String.init), trusted: trusted)
    }

    package func allows(_ endpoint: Endpoint) -> Bool {
        if trusted { return true }
        let host = endpoint.host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return patterns.contains { pattern in
            var hostPattern = pattern, portPattern: Int?
            // host:port, [v6]:port; a bare IPv6 address has more than one colon.
            if let colon = pattern.lastIndex(of: ":"), pattern.filter({ $0 == ":" }).count == 1 || pattern.hasPrefix("["),
               let port = Int(pattern[pattern.index(after: colon)...]) {
                hostPattern = String(pattern[..<colon])
                portPattern = port
            }
            hostPattern = hostPattern.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if let portPattern, portPattern != endpoint.port { return false }
            if hostPattern.hasPrefix("*.") { return host.hasSuffix(hostPattern.dropFirst()) }
            return host == hostPattern
        }
    }
}

/// The host and port an action's URL names.
package struct Endpoint: Equatable, Sendable, CustomStringConvertible {
    package var scheme: String
    package var host: String
    package var port: Int

    static let defaultPorts = ["http": 80, "https": 443, "mqtt": 1883, "mqtts": 8883]

    /// Parses `scheme://host[:port]/...` for one of `schemes`; nil when it is not such a URL.
    package init?(url: String, schemes: [String]) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              schemes.contains(scheme), let host = components.host, !host.isEmpty else { return nil }
        self.scheme = scheme
        self.host = host
        guard let port = components.port ?? Self.defaultPorts[scheme], (1...65535).contains(port) else { return nil }
        self.port = port
    }

    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
