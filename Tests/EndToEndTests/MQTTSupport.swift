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
        // The listener is the event; a broker that ended (port taken, bad config) ends the wait.
        if waitUntil({ LoopbackPort.accepts(port) || !child.isRunning }), LoopbackPort.accepts(port) { return }
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
        try broker.publish(["-q", "1", "-r", "-t", root + "/probe", "-m", marker], user: user)
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
        return threads.allSatisfy { thread in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(close, offsetBy: 2)] == "T"
        }
    }

    /// The bytes this process wrote to its IPv4 TCP connections that the other end has
    /// not read yet (`/proc/net/tcp`: its sockets' unacknowledged `tx_queue` plus the
    /// peers' unread `rx_queue`); nil when the tables cannot be read.
    func unreadTCPBytes() -> Int? {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8),
              let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return nil }
        let inodes = Set(descriptors.compactMap { descriptor -> String? in
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)"),
                  link.hasPrefix("socket:[") else { return nil }
            return String(link.dropFirst("socket:[".count).dropLast())
        })
        // sl local rem st tx_queue:rx_queue tr:when retrnsmt uid timeout inode ...
        let rows = table.split(separator: "\n").dropFirst().map { $0.split(separator: " ") }.filter { $0.count > 9 }
        func queues(_ row: [Substring]) -> (tx: Int, rx: Int) {
            let parts = row[4].split(separator: ":")
            return (Int(parts.first ?? "", radix: 16) ?? 0, Int(parts.last ?? "", radix: 16) ?? 0)
        }
        var unread = 0
        for own in rows where inodes.contains(String(own[9])) {
            unread += queues(own).tx
            for peer in rows where peer[1] == own[2] && peer[2] == own[1] { unread += queues(peer).rx }
        }
        return unread
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
