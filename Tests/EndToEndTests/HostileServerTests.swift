import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Servers that answer badly, through the real `overland-sync`: a seeded fuzz of replies
/// (status, body, `set`), and fixed hostile answers (a huge body, deep JSON, wrong types in
/// `set`, redirects to another host, silence, TLS that does not verify). No crash; the
/// cursor moves exactly past what was acknowledged; the settings file stays valid.
@Suite struct HostileServerTests {
    // MARK: - Seeded reply fuzz

    /// A reply and whether the protocol acknowledges it (Foundation's parser as the oracle;
    /// nil where the two parsers may disagree: depth or size limits, repeated keys).
    struct Answer: Sendable {
        var status: Int
        var body: [UInt8]
        var headers: [(String, String)]
        var acknowledged: Bool?
    }

    static let goodBodies = [
        #"{"result":"ok"}"#,
        #" {"result" : "ok" , "extra": [1, 2, {"a": null}]} "#,
        #"{"result":"ok","geocode":{"full_name":"Caf\u00e9 \u001b[31mRed\u001b[0m \u202eevil"}}"#,
        #"{"result":"ok","set":{"batch_size":100,"min_time":"5s"}}"#,
        #"{"result":"ok","set":{"batch_size":"lots","send_interval":[],"min_time":{"a":1},"tracking_enabled":"yes"}}"#,
        #"{"result":"ok","set":{"endpoint":"http://evil.example/","token":"stolen","journal":"/etc","ca_file":"/tmp/x.pem"}}"#,
        #"{"result":"ok","set":{"no_such_key":1,"main":{"batch_size":7},"trip":[]}}"#,
        #"{"result":"ok","set":null}"#,
        #"{"result":"error","error":"quota exceeded"}"#,
        #"{"result":"OK"}"#,
        #"{"error":{"code":5,"message":"bad"}}"#,
        #"{"result":["ok"]}"#,
        #"["ok"]"#,
        #""ok""#,
        "ok",
        "",
        #"{"result":"ok""#,
        #"{"result":"ok","result":"error"}"#,
        #"{"result":"ok","n":1e999999}"#,
    ]

    static func answer(_ random: inout SeededGenerator) -> Answer {
        // Half the time an acknowledgement (some with a set or a place name), so that runs
        // go on for several batches; otherwise anything.
        if Bool.random(using: &random) {
            return Answer(status: [200, 201, 202].randomElement(using: &random)!,
                          body: Array(goodBodies[Int.random(in: 0...7, using: &random)].utf8), headers: [], acknowledged: true)
        }
        let statuses = [200, 200, 200, 200, 201, 202, 204, 299, 301, 302, 307, 400, 401, 403, 404, 413, 429, 500, 502, 503,
                        Int.random(in: 200...599, using: &random)]
        let status = statuses.randomElement(using: &random)!
        var body = Array(goodBodies.randomElement(using: &random)!.utf8)
        var ambiguous = false
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<5:
            break
        case 5, 6:
            // Byte mutations.
            for _ in 0..<Int.random(in: 1...4, using: &random) where !body.isEmpty {
                let index = Int.random(in: 0..<body.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: body[index] = UInt8.random(in: 0...255, using: &random)
                case 1: body.remove(at: index)
                default: body.insert(UInt8.random(in: 0...255, using: &random), at: index)
                }
            }
        case 7:
            body = (0..<Int.random(in: 0...2000, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        case 8:
            let depth = [17, 100, 10_000, 200_000].randomElement(using: &random)!
            body = Array(("{\"result\":\"ok\",\"deep\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}").utf8)
            ambiguous = true
        default:
            let size = [60_000, 70_000, 900_000, 1_100_000].randomElement(using: &random)!
            body = Array(("{\"result\":\"ok\",\"pad\":\"" + String(repeating: "x", count: size) + "\"}").utf8)
            ambiguous = true
        }
        if status == 204 || status == 304 { body = [] }
        var headers: [(String, String)] = []
        if (300..<400).contains(status) { headers.append(("Location", "http://127.0.0.2:9/elsewhere")) }
        let text = String(decoding: body, as: UTF8.self)
        if text.components(separatedBy: "\"result\"").count > 2 || text.contains("e999999") { ambiguous = true }
        var acknowledged: Bool? = false
        if (200..<300).contains(status) {
            if ambiguous {
                acknowledged = nil
            } else if let object = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) as? [String: Any] {
                acknowledged = object["result"] as? String == "ok"
                // Valid UTF-8 JSON that Foundation reads but a strict parser may refuse
                // (lone surrogates, control characters) is left to either answer.
                if text.contains("\\u") || body.contains(where: { $0 < 0x20 && $0 != 0x0A && $0 != 0x09 && $0 != 0x0D && $0 != 0x20 }) {
                    acknowledged = acknowledged == true ? nil : false
                }
            }
        }
        return Answer(status: status, body: body, headers: headers, acknowledged: acknowledged)
    }

    @Test func seededReplyFuzz() throws {
        var points = 1000
        let sandbox = try SyncCrashTests.prepare(points: points)
        // Answers are drawn as requests come, and kept for the checks.
        let generator = Locked(Soak.generator(0x5E_4BE4))
        let answers = Locked<[Answer]>([])
        let server = try LocalServer { _, _ in
            let answer = generator.withLock { Self.answer(&$0) }
            answers.withLock { $0.append(answer) }
            return .reply(status: answer.status, body: answer.body, headers: answer.headers)
        }
        let runs = Soak.count(60)
        var replies = 0
        var acknowledgedReplies = 0
        var cursor: UInt64 = 0
        for run in 0..<runs {
            if cursor >= UInt64(points) {
                // All sent: more points to send.
                try sandbox.logEpochs(points..<points + 1000)
                points += 1000
            }
            server.clearRequests()
            answers.withLock { $0.removeAll() }
            // No --max-time: it would cut each request's time-out to what is left of it (at
            // least 1 s), and a reply slower than that on a loaded machine is a time-out,
            // not the reply the oracle judged.
            let result = try sandbox.sync.run(SyncCrashTests.syncArguments(sandbox, server), environment: SyncCrashTests.environment)
            let context = "run \(run)"
            #expect(result.signal == nil && !result.timedOut, "\(context): \(result)")
            #expect([0, 75, 77, 78].contains(result.exitStatus ?? -1), "\(context): \(result)")
            let requests = server.requests
            let given = answers.withLock { Array($0.prefix(requests.count)) }
            replies += requests.count
            // Each request but the last was acknowledged; the last was not, unless the run
            // ended well (nothing left).
            for (index, answer) in given.enumerated() {
                let isLast = index == given.count - 1
                let expected = !isLast || result.exitStatus == 0
                if let acknowledged = answer.acknowledged, acknowledged != expected {
                    Issue.record("\(context): reply \(index) (\(answer.status), \(String(decoding: answer.body.prefix(120), as: UTF8.self).debugDescription)) taken as \(expected ? "acknowledged" : "not acknowledged")")
                }
                if expected { acknowledgedReplies += 1 }
            }
            // The cursor moved by exactly the points of the acknowledged requests.
            let sent = requests.enumerated().filter { $0.offset < requests.count - 1 || result.exitStatus == 0 }
                .map { Delivery.elements(of: Delivery.rawLocations($0.element.body) ?? "[]").count }.reduce(0, +)
            let now = try sandbox.cursor()
            #expect(now == cursor + UInt64(sent), "\(context): cursor \(cursor) -> \(now), \(sent) points acknowledged")
            cursor = now
            // Whatever the server set, the settings file still loads and holds no server
            // endpoint or token.
            let list = try sandbox.overland.run(["config", "list"])
            #expect(list.succeeded, "\(context): \(list)")
            let settings = (try? String(contentsOfFile: sandbox.settingsPath, encoding: .utf8)) ?? ""
            #expect(!settings.contains("evil.example") && !settings.contains("stolen") && !settings.contains("x.pem"), "\(context)")
            try sandbox.writeSettings(#"{"main": {"batch_size": 50}}"#)
            // The next run must not wait for a backoff: --now.
        }
        #expect(try sandbox.verify().succeeded)
        let area = "hostile input: server replies, seeded fuzz through overland-sync"
        Figures.record(area, "replies", replies)
        Figures.record(area, "overland-sync runs", runs)
        Figures.record(area, "replies acknowledged", acknowledgedReplies)
    }

    // MARK: - Fixed hostile servers

    static func oneRun(_ behaviour: LocalServer.Behaviour, extra: [String] = [], points: Int = 100)
        throws -> (ReliabilitySandbox, LocalServer, ToolResult) {
        let sandbox = try SyncCrashTests.prepare(points: points)
        let server = try LocalServer { _, _ in behaviour }
        let result = try sandbox.sync.run(SyncCrashTests.syncArguments(sandbox, server) + extra, environment: SyncCrashTests.environment)
        return (sandbox, server, result)
    }

    @Test func hugeBody() throws {
        let body = Array(("{\"result\":\"ok\",\"pad\":\"" + String(repeating: "x", count: 4 << 20) + "\"}").utf8)
        let (sandbox, server, result) = try Self.oneRun(.reply(status: 200, body: body))
        #expect(result.exitStatus == 75 && result.stderrText.contains("larger than"), "\(result)")
        #expect(try sandbox.cursor() == 0 && server.requests.count == 1)
        Figures.record("hostile input: hostile servers", "a 4 MiB reply", 1)
    }

    @Test func deepJSON() throws {
        let body = Array(("{\"result\":\"ok\",\"x\":" + String(repeating: "[", count: 500_000) + "}").utf8)
        let (sandbox, _, result) = try Self.oneRun(.reply(status: 200, body: body))
        #expect(result.exitStatus == 75 && result.stderrLines.count == 1, "\(result)")
        #expect(try sandbox.cursor() == 0)
        Figures.record("hostile input: hostile servers", "JSON nested 500,000 deep", 1)
    }

    /// Wrong types and forbidden keys in `set`: each ignored with a warning naming it; the
    /// endpoint, token and CA file are never taken from a server; the file stays 0600.
    @Test func wrongTypesInSet() throws {
        let body = #"{"result":"ok","set":{"batch_size":"lots","send_interval":[],"min_time":{"a":1},"tracking_enabled":"yes","#
            + #""endpoint":"http://evil.example/","token":"stolen","ca_file":"/tmp/evil.pem","journal":"/etc","no_such_key":1}}"#
        let (sandbox, _, result) = try Self.oneRun(LocalServer.text(200, body))
        #expect(result.succeeded, "\(result)")
        for key in ["batch_size", "send_interval", "min_time", "tracking_enabled", "endpoint", "token", "ca_file", "no_such_key"] {
            #expect(result.stderrText.contains(key), "no warning names \(key): \(result.stderrText)")
        }
        let settings = try String(contentsOfFile: sandbox.settingsPath, encoding: .utf8)
        #expect(!settings.contains("evil") && !settings.contains("stolen"), "\(settings)")
        #expect(try sandbox.cursor() == 100)
        var info = stat()
        #expect(stat(sandbox.settingsPath, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try sandbox.overland.run(["config", "get", "batch_size"]).stdoutText == "50\n")
        Figures.record("hostile input: hostile servers", "wrong types and forbidden keys in set", 1)
    }

    /// A redirect to another host is not followed: that host never sees the points. It is
    /// a configuration error (78: the endpoint must be set to the final url), not a retry
    /// forever (75), and the Location is shown by the one url rule (its query's values
    /// redacted: a token may ride there).
    @Test(arguments: [301, 302, 307, 308])
    func redirectToAnotherHost(status: Int) throws {
        let elsewhere = try LocalServer(host: "127.0.0.2")
        let (sandbox, server, result) = try Self.oneRun(.reply(status: status, body: [], headers: [("Location", elsewhere.url + "?token=leaked")]))
        #expect(result.exitStatus == 78 && result.stderrText.contains("redirected to '\(elsewhere.url)?"), "\(result)")
        #expect(result.stderrLines.count == 1 && !result.stderrText.contains("leaked"), "\(result)")
        #expect(server.requests.count == 1 && elsewhere.requests.isEmpty, "followed to \(elsewhere.requests.count) requests")
        #expect(try sandbox.cursor() == 0)
        Figures.record("hostile input: hostile servers", "redirect \(status) to another host", 1)
    }

    @Test func silenceAndClosedConnections() throws {
        // --max-time cut the request's time-out from 60 s to 1 s: the line says which.
        let (first, _, hung) = try Self.oneRun(.hang, extra: ["--max-time", "1"])
        #expect(hung.exitStatus == 75 && hung.stderrLines.count == 1 && hung.stderrText.contains("no complete reply within 1 s"), "\(hung)")
        #expect(try first.cursor() == 0)
        let (second, _, closed) = try Self.oneRun(.close)
        #expect(closed.exitStatus == 75 && closed.stderrLines.count == 1, "\(closed)")
        #expect(try second.cursor() == 0)
        Figures.record("hostile input: hostile servers", "silent server, connection closed without a reply", 2)
    }

    // MARK: - TLS

    /// A server with a certificate from a private CA: refused unless `--ca-file` names it.
    @Test func tlsIsVerifiedUnlessTheUserSuppliesTheCA() throws {
        let sandbox = try SyncCrashTests.prepare(points: 60)
        let directory = sandbox.directory.path
        let openssl = ToolRunner(executable: try SystemTool.require("openssl"))
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory + "/ca.key", "-out", directory + "/ca.pem",
             "-days", "2", "-subj", "/CN=overland test CA"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", directory + "/server.key", "-out", directory + "/server.csr",
             "-subj", "/CN=127.0.0.1"],
        ]
        for step in steps { #expect(try openssl.run(step).succeeded, "openssl \(step[0])") }
        try Data("subjectAltName=IP:127.0.0.1\n".utf8).write(to: URL(fileURLWithPath: directory + "/san.ext"))
        #expect(try openssl.run(["x509", "-req", "-in", directory + "/server.csr", "-CA", directory + "/ca.pem", "-CAkey", directory + "/ca.key",
                                 "-CAcreateserial", "-out", directory + "/server.pem", "-days", "2", "-extfile", directory + "/san.ext"]).succeeded)
        let port = try LocalServer.freePort()
        let server = try openssl.start(["s_server", "-accept", "127.0.0.1:\(port)", "-cert", directory + "/server.pem",
                                        "-key", directory + "/server.key", "-www", "-quiet"])
        defer { server.kill(SIGKILL); _ = server.wait() }
        // Wait for it to listen.
        #expect(waitUntil { LoopbackPort.accepts(port) })
        let url = "https://127.0.0.1:\(port)/overland"
        let unverified = try sandbox.sync.run(["--journal", sandbox.journal, "--url", url, "--now"], environment: SyncCrashTests.environment)
        unverified.expectExit(75)
        #expect(unverified.stderrText.lowercased().contains("certificate") || unverified.stderrText.lowercased().contains("tls")
                || unverified.stderrText.lowercased().contains("ssl"), "\(unverified.stderrText)")
        let withCA = try sandbox.sync.run(["--journal", sandbox.journal, "--url", url, "--now", "--max-time", "2",
                                           "--ca-file", directory + "/ca.pem"], environment: SyncCrashTests.environment)
        // The handshake passes; s_server is no Overland server, so the batch is not
        // acknowledged (no reply, or not JSON), but no certificate is refused.
        let message = withCA.stderrText.lowercased()
        #expect(withCA.exitStatus == 75 && !message.contains("certificate") && !message.contains("handshake"), "\(withCA)")
        #expect(try sandbox.cursor() == 0)
        Figures.record("security: TLS verified unless the user supplies a CA", "handshakes (refused, then trusted with --ca-file)", 2)
    }
}
