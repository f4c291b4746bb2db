import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Debian's `mosquitto` broker on a free 127.0.0.1 port, for the MQTT tests: a config file
/// written in a temporary directory (a plain listener, or TLS with a private CA; anonymous,
/// or users from a password file made with `mosquitto_passwd`), started by pid and stopped
/// by pid. It fails, naming scripts/install-dependencies, where mosquitto is missing.
final class MosquittoBroker: @unchecked Sendable {
    static let executable = "/usr/sbin/mosquitto"
    let directory: String
    let port: Int
    private let configPath: String
    private(set) var process: RunningTool?

    /// `users`: name to password (a password file; no anonymous access). `tls`: the
    /// certificate and key files (the listener speaks only TLS).
    init(directory: String, users: [String: String] = [:], tls: (certificate: String, key: String)? = nil) throws {
        guard access(Self.executable, X_OK) == 0 else {
            throw ToolRunnerError(description: "\(Self.executable) is missing: run scripts/install-dependencies (Debian package mosquitto)")
        }
        self.directory = directory
        port = try LocalServer.freePort()
        configPath = directory + "/mosquitto.conf"
        var config = """
            listener \(port) 127.0.0.1
            persistence false
            log_dest stderr
            log_type error
            log_type warning
            log_type notice
            max_inflight_messages 0
            max_queued_messages 0
            user \(String(cString: getpwuid(getuid())!.pointee.pw_name))

            """
        if users.isEmpty {
            config += "allow_anonymous true\n"
        } else {
            let passwordFile = directory + "/passwords"
            FileManager.default.createFile(atPath: passwordFile, contents: Data())
            for (name, password) in users.sorted(by: { $0.key < $1.key }) {
                let made = try ToolRunner(executable: "/usr/bin/mosquitto_passwd").run(["-b", passwordFile, name, password])
                guard made.succeeded else { throw ToolRunnerError(description: "mosquitto_passwd: \(made)") }
            }
            config += "allow_anonymous false\npassword_file \(passwordFile)\n"
        }
        if let tls {
            config += "certfile \(tls.certificate)\nkeyfile \(tls.key)\n"
        }
        try Data(config.utf8).write(to: URL(fileURLWithPath: configPath))
        try start()
    }

    /// Starts the broker (again, after `kill`) and waits until it accepts connections.
    func start() throws {
        let child = try ToolRunner(executable: Self.executable).start(["-c", configPath])
        process = child
        let deadline = ContinuousClock.now + ToolRunner.hangGuard
        while ContinuousClock.now < deadline {
            if Self.accepts(port: port) { return }
            usleep(20_000)
        }
        child.kill()
        throw ToolRunnerError(description: "mosquitto did not listen on 127.0.0.1:\(port): \(child.wait())")
    }

    /// kill -9 by pid, and reaps it.
    func kill() {
        guard let process else { return }
        process.kill(SIGKILL)
        _ = process.wait()
        self.process = nil
    }

    /// SIGTERM by pid; what it printed.
    @discardableResult
    func stop() -> ToolResult? {
        guard let process else { return nil }
        process.kill(SIGTERM)
        self.process = nil
        return process.wait()
    }

    deinit { stop() }

    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// `mosquitto_pub` to this broker; `arguments` after the connection options.
    @discardableResult
    func publish(_ arguments: [String], user: (String, String)? = nil) throws -> ToolResult {
        var connection = ["-h", "127.0.0.1", "-p", "\(port)"]
        if let user { connection += ["-u", user.0, "-P", user.1] }
        return try ToolRunner(executable: "/usr/bin/mosquitto_pub").run(connection + arguments)
    }

    /// `mosquitto_sub -C count -W seconds`, to the end: e.g. a retained message.
    func subscribeOnce(_ topic: String, count: Int = 1, seconds: Int = 5, format: String = "%r %t %p",
                       user: (String, String)? = nil) throws -> ToolResult {
        var connection = ["-h", "127.0.0.1", "-p", "\(port)"]
        if let user { connection += ["-u", user.0, "-P", user.1] }
        return try ToolRunner(executable: "/usr/bin/mosquitto_sub")
            .run(connection + ["-q", "1", "-t", topic, "-C", "\(count)", "-W", "\(seconds)", "-F", format], timeout: .seconds(seconds + 10))
    }
}

/// A live `mosquitto_sub -v` on `ROOT/#`, known to be subscribed (a probe message it has
/// printed), whose lines are the messages in arrival order. It reconnects (libmosquitto's
/// loop) when the broker comes back.
final class LiveSubscriber: @unchecked Sendable {
    let broker: MosquittoBroker
    let root: String
    let process: RunningTool
    let user: (String, String)?
    private(set) var lines: [String] = []

    init(broker: MosquittoBroker, root: String, user: (String, String)? = nil) throws {
        self.broker = broker
        self.root = root
        self.user = user
        var arguments = ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-v", "-t", root + "/#"]
        if let user { arguments += ["-u", user.0, "-P", user.1] }
        process = try ToolRunner(executable: "/usr/bin/mosquitto_sub").start(arguments)
        try waitUntilSubscribed()
    }

    /// Publishes probes on `ROOT/probe` until one arrives (the subscription is in place).
    func waitUntilSubscribed() throws {
        let deadline = ContinuousClock.now + ToolRunner.hangGuard
        var attempt = 0
        while ContinuousClock.now < deadline {
            attempt += 1
            try broker.publish(["-q", "1", "-t", root + "/probe", "-m", "probe-\(attempt)"], user: user)
            let end = ContinuousClock.now + .milliseconds(300)
            while ContinuousClock.now < end {
                let (line, _) = process.readLine(timeout: .milliseconds(100))
                guard let line else { continue }
                if line.hasPrefix(root + "/probe ") { return }
                lines.append(line)
            }
        }
        throw ToolRunnerError(description: "mosquitto_sub never saw its probe: \(process.stderrSoFar)")
    }

    /// Reads lines until `count` messages on `topic` arrived or `timeout` passes.
    @discardableResult
    func collect(on topic: String, count: Int, timeout: Duration = ToolRunner.hangGuard) -> [String] {
        let deadline = ContinuousClock.now + timeout
        var found = payloads(on: topic).count
        while found < count, ContinuousClock.now < deadline {
            let (line, _) = process.readLine(timeout: .milliseconds(200))
            guard let line, !line.hasPrefix(root + "/probe ") else { continue }
            lines.append(line)
            if line.hasPrefix(topic + " ") { found += 1 }
        }
        return payloads(on: topic)
    }

    /// The payloads received on `topic`, in order.
    func payloads(on topic: String) -> [String] {
        lines.compactMap { $0.hasPrefix(topic + " ") ? String($0.dropFirst(topic.count + 1)) : nil }
    }

    func stop() {
        process.kill(SIGTERM)
        _ = process.wait()
    }

    deinit { stop() }
}

/// A private CA and a certificate for 127.0.0.1 signed by it, made with openssl.
struct PrivateCA {
    let directory: String
    var caFile: String { directory + "/ca.pem" }
    var certificate: String { directory + "/server.pem" }
    var key: String { directory + "/server.key" }

    init(directory: String) throws {
        self.directory = directory
        let openssl = ToolRunner(executable: "/usr/bin/openssl")
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory + "/ca.key", "-out", caFile,
             "-days", "2", "-subj", "/CN=overland test ca"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", directory + "/server.csr", "-subj", "/CN=127.0.0.1"],
            ["x509", "-req", "-in", directory + "/server.csr", "-CA", caFile, "-CAkey", directory + "/ca.key", "-CAcreateserial",
             "-out", certificate, "-days", "2", "-extfile", directory + "/san.cnf"],
        ]
        try Data("subjectAltName=IP:127.0.0.1\n".utf8).write(to: URL(fileURLWithPath: directory + "/san.cnf"))
        for step in steps {
            let result = try openssl.run(step)
            guard result.succeeded else { throw ToolRunnerError(description: "openssl \(step[0]): \(result)") }
        }
    }
}

/// Decodes one OwnTracks payload (JSON) into a dictionary.
func ownTracksMessage(_ payload: String) -> [String: Any]? {
    (try? JSONScan.object(payload.utf8))
}
