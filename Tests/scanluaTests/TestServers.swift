import Foundation
import XCTest

struct ServerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Servers the forwarding tests talk to, started on loopback ports and stopped by `stop()`
/// (each test defers it): Servers/webhook.py (Python's http.server) and Debian's mosquitto.
final class TestServer {
    let process: Process
    let port: Int
    let log: URL

    init(process: Process, port: Int, log: URL) {
        self.process = process
        self.port = port
        self.log = log
    }

    /// What stops a server that runs detached (PostgreSQL's pg_ctl); else the process is terminated.
    var onStop: (() -> Void)?

    func stop() {
        if let onStop { onStop(); self.onStop = nil }
        if process.isRunning { process.terminate(); process.waitUntilExit() }
    }

    /// A free TCP port on 127.0.0.1 (bound to port 0, read, closed).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Whether something accepts TCP connections on host:port.
    static func accepts(_ host: String, _ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr(host)
        addr.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    private static func waitUntilListening(_ host: String, _ port: Int, _ process: Process) throws {
        for _ in 0..<100 {
            if accepts(host, port) { return }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw ServerError(message: "server on \(host):\(port) did not start")
    }

    /// Servers/webhook.py on `port` (a free one by default), logging each request to a file.
    static func webhook(in dir: URL, host: String = "127.0.0.1", port: Int? = nil, failFirst: Int = 0, flap: Int = 0,
                        hangFirst: Double = 0, hangAll: Double = 0, bodyBytes: Int = 0) throws -> TestServer {
        let port = port ?? freePort()
        let log = dir.appendingPathComponent("webhook-\(port).ndjson")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [CLI.packageRoot.appendingPathComponent("Tests/scanluaTests/Servers/webhook.py").path, "--host", host,
                       "--port", String(port), "--log", log.path, "--fail-first", String(failFirst), "--flap", String(flap),
                       "--hang-first", String(hangFirst), "--hang-all", String(hangAll), "--body-bytes", String(bodyBytes)]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        try waitUntilListening(host, port, p)
        return TestServer(process: p, port: port, log: log)
    }

    /// mosquitto on 127.0.0.1:`port`, anonymous, no persistence; with `tls` (CA, certificate and
    /// key files) a TLS listener.
    /// Servers/raw_listener.py: every byte received, per connection, in `log` (no HTTP parsing).
    static func rawListener(in dir: URL) throws -> TestServer {
        let port = freePort()
        let log = dir.appendingPathComponent("raw-\(port).log")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [CLI.packageRoot.appendingPathComponent("Tests/scanluaTests/Servers/raw_listener.py").path,
                       "--port", String(port), "--log", log.path]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        try waitUntilListening("127.0.0.1", port, p)
        return TestServer(process: p, port: port, log: log)
    }

    static func mosquitto(in dir: URL, tls: (ca: String, cert: String, key: String)? = nil) throws -> TestServer {
        let port = freePort()
        let conf = dir.appendingPathComponent("mosquitto-\(port).conf")
        var text = "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n"
        if let tls { text += "cafile \(tls.ca)\ncertfile \(tls.cert)\nkeyfile \(tls.key)\n" }
        try text.write(to: conf, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        p.arguments = ["-c", conf.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        try waitUntilListening("127.0.0.1", port, p)
        return TestServer(process: p, port: port, log: conf)
    }

    /// The webhook's requests, in arrival order.
    var requests: [[String: Any]] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}

extension TestServer {
    /// redis-server on 127.0.0.1:`port`, no persistence.
    static func redis(in dir: URL, port: Int? = nil) throws -> TestServer {
        let port = port ?? freePort()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        p.arguments = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        for _ in 0..<100 where !accepts("127.0.0.1", port) { Thread.sleep(forTimeInterval: 0.05) }
        guard accepts("127.0.0.1", port) else { throw ServerError(message: "redis-server on \(port) did not start") }
        return TestServer(process: p, port: port, log: dir)
    }

    /// redis-cli against this server: its output.
    func redisCLI(_ args: [String]) throws -> String {
        try Process.output("/usr/bin/redis-cli", ["-p", String(port)] + args)
    }
}

extension TestServer {
    /// PostgreSQL in `dir/pg`: initdb and pg_ctl as the `postgres` user when run as root (the
    /// server refuses to run as root), listening on 127.0.0.1 only, fsync off; a database `scanlua`.
    static func postgres(in dir: URL) throws -> TestServer {
        let fm = FileManager.default
        guard let version = (try? fm.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?.sorted().last else {
            throw ServerError(message: "PostgreSQL is not installed (scripts/install-deps test installs it)")
        }
        let bin = "/usr/lib/postgresql/\(version)/bin"
        let base = dir.appendingPathComponent("pg")
        try fm.createDirectory(at: base, withIntermediateDirectories: true)
        let asRoot = getuid() == 0
        if asRoot { try fm.setAttributes([.ownerAccountName: "postgres", .groupOwnerAccountName: "postgres"], ofItemAtPath: base.path) }
        func run(_ tool: String, _ args: [String]) throws {
            let argv = asRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--", "\(bin)/\(tool)"] + args : ["\(bin)/\(tool)"] + args
            let status = spawnAndWait(argv)
            guard status == 0 else { throw ServerError(message: "\(tool) \(args.joined(separator: " ")) failed (\(status))") }
        }
        let data = base.appendingPathComponent("data").path
        let port = freePort()
        try run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"])
        try run("pg_ctl", ["-D", data, "-l", base.appendingPathComponent("log").path, "-w", "-o",
                           "-p \(port) -k \(base.path) -c listen_addresses=127.0.0.1 -c fsync=off", "start"])
        let server = TestServer(process: Process(), port: port, log: base)
        server.onStop = { try? run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]) }
        return server
    }
}

/// Runs a program and waits for it with posix_spawn and waitpid. (Foundation's Process waits for
/// a descriptor that a daemon the program starts, such as pg_ctl's postgres, keeps open.)
func spawnAndWait(_ argv: [String]) -> Int32 {
    var pid: pid_t = 0
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let cArgs = argv.map { strdup($0) } + [nil]
    defer { cArgs.forEach { free($0) } }
    guard posix_spawn(&pid, argv[0], &actions, nil, cArgs, environ) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
}

/// A CA and a server certificate for 127.0.0.1 (openssl), for TLS tests: the files' paths.
func makeTestCertificates(in dir: URL) throws -> (ca: String, cert: String, key: String, otherCA: String) {
    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    try "subjectAltName=IP:127.0.0.1\n".write(toFile: path("san.ext"), atomically: true, encoding: .utf8)
    for argv in [
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("ca.key"), "-out", path("ca.crt"), "-days", "1", "-subj", "/CN=scanlua test CA"],
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("other.key"), "-out", path("other.crt"), "-days", "1", "-subj", "/CN=another CA"],
        ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=127.0.0.1"],
        ["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"), "-CAcreateserial",
         "-out", path("server.crt"), "-days", "1", "-extfile", path("san.ext")],
    ] {
        guard spawnAndWait(["/usr/bin/openssl"] + argv) == 0 else { throw ServerError(message: "openssl \(argv[0]) failed") }
    }
    // mosquitto started as root drops to the mosquitto user: it must be able to read them.
    for f in ["ca.crt", "server.crt", "server.key"] { chmod(path(f), 0o644) }
    return (path("ca.crt"), path("server.crt"), path("server.key"), path("other.crt"))
}
