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
    private(set) var port = 0
    private let configPath: String
    private(set) var process: RunningTool?

    /// `users`: name to password (a password file; no anonymous access). `tls`: the
    /// certificate and key files (the listener speaks only TLS).
    init(directory: String, users: [String: String] = [:], tls: (certificate: String, key: String)? = nil) throws {
        guard access(Self.executable, X_OK) == 0 else {
            throw ToolRunnerError(description: "\(Self.executable) is missing: run scripts/install-dependencies (Debian package mosquitto)")
        }
        self.directory = directory
        configPath = directory + "/mosquitto.conf"
        var config = """
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
        // A free port may be taken by another test's server before mosquitto binds it
        // (tests run in parallel): then mosquitto ends, and another port is tried.
        for _ in 0..<5 {
            port = try LocalServer.freePort()
            try Data("listener \(port) 127.0.0.1\n\(config)".utf8).write(to: URL(fileURLWithPath: configPath))
            if try launch() { return }
        }
        try start()
    }

    /// Starts the broker (again, after `kill`) and waits until it listens.
    func start() throws {
        guard try launch() else {
            throw ToolRunnerError(description: "mosquitto did not listen on 127.0.0.1:\(port): \(process?.wait().description ?? "")")
        }
    }

    /// Starts mosquitto and waits until the port accepts connections; false when it ended
    /// instead (the port was taken).
    private func launch() throws -> Bool {
        let child = try ToolRunner(executable: Self.executable).start(["-c", configPath])
        process = child
        if waitUntil({ LoopbackPort.accepts(port) || !child.isRunning }), child.isRunning { return true }
        child.kill()
        return false
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

    /// `mosquitto_pub` to this broker; `arguments` after the connection options.
    @discardableResult
    func publish(_ arguments: [String], user: (String, String)? = nil) throws -> ToolResult {
        var connection = ["-h", "127.0.0.1", "-p", "\(port)"]
        if let user { connection += ["-u", user.0, "-P", user.1] }
        return try ToolRunner(executable: "/usr/bin/mosquitto_pub").run(connection + arguments)
    }

    /// The message retained on `topic` as `mosquitto_sub -F format` prints it, or nil
    /// when none is. No timer decides: a marker retained on `overland-test/marker` is
    /// subscribed to after `topic`, and the broker hands over retained messages in the
    /// order of the subscription's topics, so the marker coming first means none.
    func retained(_ topic: String, format: String = "%r %t %p", user: (String, String)? = nil) throws -> String? {
        var connection = ["-h", "127.0.0.1", "-p", "\(port)"]
        if let user { connection += ["-u", user.0, "-P", user.1] }
        let marker = "overland-test/marker"
        let set = try publish(["-q", "1", "-r", "-t", marker, "-m", "marker"], user: user)
        guard set.succeeded else { throw ToolRunnerError(description: "mosquitto_pub \(marker): \(set)") }
        let result = try ToolRunner(executable: "/usr/bin/mosquitto_sub")
            .run(connection + ["-q", "1", "-t", topic, "-t", marker, "-C", "1", "-F", "%t\t" + format])
        guard result.succeeded, let line = result.stdoutLines.first, let tab = line.firstIndex(of: "\t") else {
            throw ToolRunnerError(description: "mosquitto_sub \(topic): \(result)")
        }
        return line[..<tab] == marker ? nil : String(line[line.index(after: tab)...])
    }
}

/// A live `mosquitto_sub -v` on `ROOT/#` (or on `topics`), known to be subscribed (a
/// marker it has printed), whose lines are the messages in arrival order. It reconnects
/// (libmosquitto's loop) when the broker comes back.
final class LiveSubscriber: @unchecked Sendable {
    let broker: MosquittoBroker
    let root: String
    let process: RunningTool
    let user: (String, String)?
    private(set) var lines: [String] = []
    private var markers = 0

    /// `topics`: what to subscribe to instead of `ROOT/#` (e.g. not `TOPIC/cmd`).
    init(broker: MosquittoBroker, root: String, user: (String, String)? = nil, topics: [String]? = nil) throws {
        self.broker = broker
        self.root = root
        self.user = user
        var arguments = ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-v"]
        for topic in topics.map({ $0 + [root + "/probe"] }) ?? [root + "/#"] { arguments += ["-t", topic] }
        if let user { arguments += ["-u", user.0, "-P", user.1] }
        process = try ToolRunner(executable: "/usr/bin/mosquitto_sub").start(arguments)
        try catchUp()
    }

    /// Publishes a marker, retained, on `ROOT/probe` and reads until it arrives. Then the
    /// subscription is in place (a retained message also reaches a subscription made
    /// after it), and every message the broker passed on before the marker has been read.
    func catchUp() throws {
        markers += 1
        let marker = "marker-\(getpid())-\(markers)"
        let published = try broker.publish(["-q", "1", "-r", "-t", root + "/probe", "-m", marker], user: user)
        guard published.succeeded else { throw ToolRunnerError(description: "mosquitto_pub \(root)/probe: \(published)") }
        while true {
            let (line, _) = process.readLine()
            guard let line else { throw ToolRunnerError(description: "mosquitto_sub never saw its marker: \(process.stderrSoFar)") }
            if line == root + "/probe " + marker { return }
            if !line.hasPrefix(root + "/probe ") { lines.append(line) }
        }
    }

    /// Reads messages until `count` arrived on `topic` (or the subscriber ended, or the
    /// hang guard passed).
    @discardableResult
    func collect(on topic: String, count: Int) -> [String] {
        var found = payloads(on: topic).count
        while found < count, let line = nextMessage() {
            if line.hasPrefix(topic + " ") { found += 1 }
        }
        return payloads(on: topic)
    }

    /// Reads messages until `done` holds (or the subscriber ended, or the hang guard passed).
    func collect(until done: () -> Bool) {
        while !done(), nextMessage() != nil {}
    }

    /// The next message (`TOPIC PAYLOAD`), kept in `lines`; markers are skipped.
    private func nextMessage() -> String? {
        while let line = process.readLine().line {
            if line.hasPrefix(root + "/probe ") { continue }
            lines.append(line)
            return line
        }
        return nil
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

extension RunningTool {
    /// True once every thread of the process is stopped (SIGSTOP taken: `T` in
    /// `/proc/PID/task/TID/stat`), so none is still inside a write.
    var isStopped: Bool {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"), !threads.isEmpty else { return false }
        return threads.allSatisfy { processState("/proc/\(pid)/task/\($0)/stat") == "T" }
    }

    /// The bytes this process wrote to its IPv4 TCP connections that the other end has
    /// not read yet (its sockets' unacknowledged `tx_queue` plus the peers' unread
    /// `rx_queue`); nil when the tables cannot be read.
    func unreadTCPBytes() -> Int? {
        guard let rows = TCPTable.rows(), let inodes = socketInodes() else { return nil }
        var unread = 0
        for own in rows where inodes.contains(own.inode) {
            unread += own.txQueue
            for peer in rows where peer.local == own.remote && peer.remote == own.local { unread += peer.rxQueue }
        }
        return unread
    }

    /// The process's TCP sockets, IPv4 and IPv6, listening ones included; nil when the
    /// tables cannot be read.
    func tcpSockets() -> [TCPTable]? {
        guard let inodes = socketInodes() else { return nil }
        return (TCPTable.rows() ?? []).filter { inodes.contains($0.inode) } + (TCPTable.rows(file: "/proc/net/tcp6") ?? []).filter { inodes.contains($0.inode) }
    }

    /// The inodes of the process's sockets (`/proc/PID/fd`: `socket:[INODE]`).
    private func socketInodes() -> Set<String>? {
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return nil }
        return Set(descriptors.compactMap { descriptor -> String? in
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)"),
                  link.hasPrefix("socket:[") else { return nil }
            return String(link.dropFirst("socket:[".count).dropLast())
        })
    }
}

/// The kernel's IPv4 TCP sockets (`/proc/net/tcp`), as the MQTT tests read them.
struct TCPTable {
    var local: Substring
    var remote: Substring
    var txQueue: Int
    var rxQueue: Int
    var inode: String

    /// `sl local rem st tx_queue:rx_queue tr:when retrnsmt uid timeout inode ...`
    static func rows(file: String = "/proc/net/tcp") -> [TCPTable]? {
        guard let table = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        return table.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count > 9 else { return nil }
            let queues = fields[4].split(separator: ":")
            return TCPTable(local: fields[1], remote: fields[2], txQueue: Int(queues.first ?? "", radix: 16) ?? 0,
                            rxQueue: Int(queues.last ?? "", radix: 16) ?? 0, inode: String(fields[9]))
        }
    }
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
