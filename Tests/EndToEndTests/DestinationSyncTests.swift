import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `overland-sync` with several destinations, against local servers: each destination
/// keeps its own cursor, backoff and backlog; one failing for a day never holds the other
/// back nor loses its own points; kill -9 mid-run resends at most one batch per
/// destination; `--to`; the worst exit status; `overland status`.
@Suite struct DestinationSyncTests {
    /// A sandbox whose settings send to `primary` (the default destination) in batches of
    /// 50, every second, deleting delivered segments at once.
    static func prepare(points: Int, primary: LocalServer) throws -> ReliabilitySandbox {
        let sandbox = try ReliabilitySandbox(prefix: "overland-destinations")
        try sandbox.logEpochs(0..<points)
        try sandbox.writeSettings("""
            {"endpoint": "\(primary.url)", "send_interval": "1s", "retention_days": 0, "main": {"batch_size": 50}}
            """)
        return sandbox
    }

    /// `overland destination add NAME URL --from-start ARGUMENTS`, then settings for it.
    static func add(_ sandbox: ReliabilitySandbox, _ name: String, _ url: String, _ extra: [String] = [],
                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let added = try sandbox.overland.run(["destination", "add", name, url, "--from-start", "--journal", sandbox.journal] + extra)
        #expect(added.succeeded, "\(added)", sourceLocation: sourceLocation)
        let set = try sandbox.overland.run(["destination", "set", name, "send_interval", "1s"])
        #expect(set.succeeded, "\(set)", sourceLocation: sourceLocation)
        if !extra.contains("--protocol") {
            #expect(try sandbox.overland.run(["destination", "set", name, "batch_size", "50"]).succeeded, sourceLocation: sourceLocation)
        }
    }

    static func lines(_ sandbox: ReliabilitySandbox) throws -> [String] { try sandbox.records().records.map(\.line) }

    static func state(_ sandbox: ReliabilitySandbox, _ file: String) -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: sandbox.journal + "/state/" + file) else { return [:] }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    static func time(_ text: Any?) -> Int64? {
        guard let text = text as? String else { return nil }
        return SyntheticDrive.timestamp(in: "\"timestamp\":\"\(text)\"")
    }

    /// The default destination fails for a simulated day of retries (one run per attempt,
    /// the clock stepped with OVERLAND_TEST_NOW) while the backup delivers every point
    /// logged meanwhile; retention deletes nothing the failing one still needs; healthy
    /// again, it delivers its whole backlog.
    @Test func oneFailsForADayTheOtherDeliversEverything() throws {
        let failing = try LocalServer { _, _ in LocalServer.text(500, "database down") }
        let backup = try LocalServer()
        defer { failing.stop(); backup.stop() }
        let sandbox = try Self.prepare(points: 40, primary: failing)
        try Self.add(sandbox, "backup", backup.url)
        #expect(try sandbox.overland.run(["journal", "seal", "--journal", sandbox.journal]).succeeded)
        var seals = 1

        let start = Int64(Date().timeIntervalSince1970)
        var now = start
        var logged = 40
        var runs = 0
        var attempts = 0
        while now < start + 86_400 {
            runs += 1
            // Every few runs the device logs more points, in a new segment.
            if runs % 4 == 0 {
                try sandbox.logEpochs(logged..<logged + 20)
                logged += 20
                #expect(try sandbox.overland.run(["journal", "seal", "--journal", sandbox.journal]).succeeded)
                seals += 1
            }
            let result = try sandbox.sync.run(["--journal", sandbox.journal], environment: ["OVERLAND_TEST_NOW": String(now)])
            let state = Self.state(sandbox, "sync.json")
            let failures = state["consecutive_failures"] as? Int ?? 0
            if result.exitStatus == 75 {
                attempts += 1
                #expect(result.stderrLines.count == 1, "\(result)")
                #expect(result.stderrText.hasPrefix("overland-sync: default: \(failing.url): "), "\(result.stderrText)")
            } else {
                #expect(result.exitStatus == 0, "run \(runs): \(result)")
            }
            // The next run: when the backoff lets the failing one try again.
            let next = Self.time(state["next_attempt"]) ?? now + 60
            #expect(failures >= 1)
            now = max(next, now + 1)
            if runs > 200 { Issue.record("more than 200 runs in a simulated day"); break }
        }
        #expect(attempts >= 24, "a day of backoff is at least 24 attempts (1 h at most between two): \(attempts)")
        let lines = try Self.lines(sandbox)
        #expect(lines.count == logged)
        // The backup has everything, each batch once.
        Delivery(requests: backup.requests, lines: lines).check(total: logged, maximumResends: 0, context: "backup")
        #expect(try Journal(path: sandbox.journal).backlog(for: try #require(CursorName("backup"))) == 0)
        // Nothing the failing destination needs was deleted: every record is still there.
        #expect(JournalInvariant.check(try sandbox.records().records, context: "journal") == Array(0..<logged))
        let status = try sandbox.overland.run(["status", "--journal", sandbox.journal], environment: ["OVERLAND_TEST_NOW": String(now)])
        #expect(status.stdoutText.contains("destination default"), "\(status.stdoutText)")
        #expect(status.stdoutText.contains("queued      \(logged) points"), "\(status.stdoutText)")
        #expect(status.stdoutText.contains("last error  ") && status.stdoutText.contains("500"), "\(status.stdoutText)")
        let json = try sandbox.overland.run(["status", "--json", "--journal", sandbox.journal])
        let object = try #require((try? JSONScan.object(json.stdout)))
        let destinations = try #require(object["destinations"] as? [[String: Any]])
        #expect(destinations.map { $0["name"] as? String } == ["default", "backup"])
        #expect(destinations.first?["queued"] as? Int == logged && destinations.last?["queued"] as? Int == 0, "\(destinations)")

        let before = try sandbox.overland.run(["journal", "stats", "--json", "--journal", sandbox.journal])
        let sealedBefore = ((try? JSONScan.object(before.stdout)))?["sealed_segments"] as? Int
        #expect(sealedBefore == seals, "retention deleted segments the failing destination needs: \(before)")

        // Healthy again: the whole backlog goes, nothing lost, nothing twice.
        failing.clearRequests()
        failing.setScript { _, _ in LocalServer.ok() }
        let healed = try sandbox.sync.run(["--journal", sandbox.journal], environment: ["OVERLAND_TEST_NOW": String(now)])
        #expect(healed.succeeded, "\(healed)")
        Delivery(requests: failing.requests, lines: lines).check(total: logged, maximumResends: 0, context: "default")
        #expect(try Journal(path: sandbox.journal).backlog(for: .default) == 0)
        // Now both have passed them, retention deletes the sealed segments.
        let stats = try sandbox.overland.run(["journal", "stats", "--json", "--journal", sandbox.journal])
        let counts = try #require((try? JSONScan.object(stats.stdout)))
        #expect((counts["sealed_segments"] as? Int ?? 99) <= 1, "only the newest segment stays: \(counts)")
        Figures.record("destinations: one down for a simulated day", "attempts of the failing destination", attempts)
        Figures.record("destinations: one down for a simulated day", "points delivered to each", logged)
    }

    /// kill -9 at the Nth acknowledged reply, whichever destination it belongs to: the
    /// next run delivers the rest; each destination gets every point, at most one batch twice.
    /// `sync.after-reply`: acknowledged, not recorded; `cursor.recorded`: recorded in the
    /// progress record; `cursors.after-named`: a named cursor file written at a durable
    /// point, the floor (`cursor.json`) not yet.
    @Test(arguments: [("sync.after-reply", 1), ("sync.after-reply", 3), ("sync.after-reply", 6),
                      ("cursor.recorded", 2), ("cursor.recorded", 5), ("cursors.after-named", 1), ("cursors.after-named", 2)])
    func killedBetweenTwoDestinationsCursorWrites(point: String, nth: Int) throws {
        let first = try LocalServer()
        let second = try LocalServer { _, _ in LocalServer.ok(delay: .milliseconds(3)) }
        defer { first.stop(); second.stop() }
        let sandbox = try Self.prepare(points: 300, primary: first)
        try Self.add(sandbox, "second", second.url)
        let lines = try Self.lines(sandbox)
        let crashed = try sandbox.sync.run(["--journal", sandbox.journal, "--now"], environment: ["OVERLAND_FAULT_POINT": "\(point):\(nth)"])
        #expect(crashed.termination == .signaled(SIGKILL), "\(crashed)")
        if point == "sync.after-reply" { #expect(first.requests.count + second.requests.count >= nth) }
        let finished = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        #expect(finished.succeeded, "\(finished)")
        let resendsFirst = Delivery(requests: first.requests, lines: lines).check(total: 300, maximumResends: 1, context: "default, \(point):\(nth)")
        let resendsSecond = Delivery(requests: second.requests, lines: lines).check(total: 300, maximumResends: 1, context: "second, \(point):\(nth)")
        if point == "sync.after-reply" { #expect(resendsFirst + resendsSecond >= 1, "the batch acknowledged at the kill is sent again") }
        let journal = try Journal(path: sandbox.journal)
        #expect(try journal.backlog(for: .default) == 0 && journal.backlog(for: try #require(CursorName("second"))) == 0)
        #expect(try sandbox.verify().succeeded)
    }

    /// From a terminal, each destination with nothing due says why, on its own named line;
    /// from cron nothing is printed.
    @Test func nothingDueIsExplainedPerDestinationOnATerminal() throws {
        let first = try LocalServer()
        let second = try LocalServer { _, _ in LocalServer.text(503, "busy") }
        defer { first.stop(); second.stop() }
        let sandbox = try Self.prepare(points: 10, primary: first)
        try sandbox.writeSettings(#"{"endpoint": "\#(first.url)", "send_interval": "5m"}"#)
        try Self.add(sandbox, "second", second.url)
        #expect(try sandbox.sync.run(["--journal", sandbox.journal]).exitStatus == 75)
        try sandbox.logEpochs(10..<15)
        let quiet = try sandbox.sync.run(["--journal", sandbox.journal])
        #expect(quiet.exitStatus == 0 && quiet.stderr.isEmpty && quiet.stdout.isEmpty, "\(quiet)")
        let told = try SyncTerminalTests.onTerminal(sandbox, ["--journal", sandbox.journal])
        // A pseudo-terminal ends lines with "\r\n" (one Character in Swift).
        let lines = told.stdoutText.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init)
            .filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        #expect(lines.count == 2, "\(told.stdoutText)")
        #expect(lines.contains { $0.hasPrefix("overland-sync: default: ") && $0.contains("send interval") && $0.contains("next attempt at ") },
                "\(told.stdoutText)")
        #expect(lines.contains { $0.hasPrefix("overland-sync: second: ") && $0.contains("backing off") && $0.contains("next attempt at ") },
                "\(told.stdoutText)")
    }

    @Test func toSelectsDestinations() throws {
        let first = try LocalServer()
        let second = try LocalServer()
        defer { first.stop(); second.stop() }
        let sandbox = try Self.prepare(points: 60, primary: first)
        try Self.add(sandbox, "second", second.url)
        let only = try sandbox.sync.run(["--journal", sandbox.journal, "--now", "--to", "second"])
        #expect(only.succeeded, "\(only)")
        #expect(first.requests.isEmpty && second.requests.count == 2)
        let unknown = try sandbox.sync.run(["--journal", sandbox.journal, "--to", "nosuch"])
        #expect(unknown.exitStatus == 64 && unknown.stderrText.contains("no destination 'nosuch' (configured: default, second)"), "\(unknown)")
        // Retention keeps what the default destination, not selected, still needs.
        #expect(JournalInvariant.check(try sandbox.records().records, context: "journal").count == 60)
        let both = try sandbox.sync.run(["--journal", sandbox.journal, "--now", "--to", "default", "--to", "second"])
        #expect(both.succeeded && first.requests.count == 2 && second.requests.count == 2, "\(both)")
        // A dry run names each destination's first request.
        try sandbox.logEpochs(60..<65)
        let dry = try sandbox.sync.run(["--journal", sandbox.journal, "--dry-run"])
        #expect(dry.succeeded && dry.stdoutText.contains("# default") && dry.stdoutText.contains("# second"), "\(dry)")
        #expect(first.requests.count == 2 && second.requests.count == 2)
    }

    /// A damaged record is read by every destination's reader: the run says so in one line,
    /// not once per destination.
    @Test func aDamagedRecordIsReportedOncePerRun() throws {
        let first = try LocalServer()
        let second = try LocalServer()
        defer { first.stop(); second.stop() }
        let sandbox = try Self.prepare(points: 60, primary: first)
        try Self.add(sandbox, "second", second.url)
        // Sealed: damage in an active segment's last member reads as a commit in progress.
        let sealed = try sandbox.overland.run(["journal", "seal", "--journal", sandbox.journal])
        #expect(sealed.succeeded, "\(sealed)")
        try sandbox.logEpochs(60..<70)
        let segments = try FileManager.default.contentsOfDirectory(atPath: sandbox.journal + "/segments").filter { $0.hasSuffix(".jsonl.gz") }
        let segment = sandbox.journal + "/segments/" + (try #require(segments.sorted().first))
        var bytes = try #require(FileManager.default.contents(atPath: segment))
        bytes[bytes.count / 3] ^= 0xFF
        #expect(FileManager.default.createFile(atPath: segment, contents: bytes))
        let run = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        let issues = run.stderrLines.filter { $0.contains("damage") || $0.contains("skipp") }
        #expect(!issues.isEmpty, "\(run) \(segments)")
        #expect(Set(run.stderrLines).count == run.stderrLines.count, "a line repeated: \(run.stderrText)")
        #expect(!first.requests.isEmpty && !second.requests.isEmpty, "\(run)")
    }

    /// MQTT destinations wait on their sockets outside the task pool: with more brokers
    /// that never answer than the pool has threads (one per core), an HTTP destination of
    /// the same run is still sent to at once, not after their connect timeout. The brokers
    /// are waited on for an hour (OVERLAND_TEST_MQTT_CONNECT_TIMEOUT): the HTTP request
    /// arriving while the run still waits on them is the proof, whatever the load.
    @Test func silentBrokersHoldNoHTTPDestinationBack() throws {
        let server = try LocalServer()
        defer { server.stop() }
        let sandbox = try Self.prepare(points: 10, primary: server)
        // One port that listens and never answers: every broker connection completes its TCP
        // handshake and gets no CONNACK.
        let port = SilentPort.reserve()
        let brokers = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) + 1
        for index in 0..<brokers {
            let added = try sandbox.overland.run(["destination", "add", "silent\(index)", "mqtt://127.0.0.1:\(port)", "--protocol", "mqtt",
                                                  "--from-start", "--journal", sandbox.journal])
            #expect(added.succeeded, "\(added)")
        }
        let run = try sandbox.sync.start(["--journal", sandbox.journal, "--now"],
                                         environment: ["OVERLAND_TEST_MQTT_CONNECT_TIMEOUT": "3600"])
        waitUntil { !server.requests.isEmpty || !run.isRunning }
        let stillWaiting = run.isRunning
        run.kill()
        let result = run.wait()
        #expect(server.requests.count == 1, "the HTTP destination was not sent to while \(brokers) silent brokers were waited on: \(result)")
        #expect(stillWaiting, "the run ended before the brokers' hour: \(result)")
    }

    /// A destination added after the journal was synced, from its start, lowers the floor
    /// of the cursors on purpose: copy detection does not take the journal for an older copy.
    @Test func fromStartAfterSyncsIsNotAnOlderCopy() throws {
        let first = try LocalServer()
        let second = try LocalServer()
        defer { first.stop(); second.stop() }
        let sandbox = try Self.prepare(points: 60, primary: first)
        #expect(try sandbox.sync.run(["--journal", sandbox.journal, "--now"]).succeeded)
        #expect(first.requests.count == 2)
        try Self.add(sandbox, "second", second.url)
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        #expect(result.succeeded, "\(result)")
        #expect(first.requests.count == 2 && second.requests.count == 2)
        Delivery(requests: second.requests, lines: try Self.lines(sandbox)).check(total: 60, maximumResends: 0, context: "second")
    }

    /// Exit status: the worst of them (77 over 75), one line per failing destination,
    /// named; an mqtt destination whose broker is down waits (75) while the others are sent to.
    @Test func worstExitStatusWithOneLinePerFailingDestination() throws {
        let refusing = try LocalServer { _, _ in LocalServer.text(401, #"{"error":"bad token"}"#) }
        let busy = try LocalServer { _, _ in LocalServer.text(503, "busy") }
        let fine = try LocalServer()
        defer { refusing.stop(); busy.stop(); fine.stop() }
        let sandbox = try Self.prepare(points: 30, primary: refusing)
        try Self.add(sandbox, "busy", busy.url)
        try Self.add(sandbox, "fine", fine.url)
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        result.expectExit(77)
        #expect(result.stderrLines.count == 2, "\(result.stderrText)")
        #expect(result.stderrLines.contains { $0.hasPrefix("overland-sync: default: \(refusing.url) asks for credentials (HTTP 401) and no token is set") },
                "\(result.stderrText)")
        #expect(result.stderrLines.contains { $0.hasPrefix("overland-sync: busy: \(busy.url): ") })
        #expect(fine.requests.count == 1)

        // An mqtt destination whose broker refuses connections: try later (75), named,
        // while the others are sent to.
        let brokerPort = RefusingPort.reserve()
        let added = try sandbox.overland.run(["destination", "add", "broker", "mqtt://127.0.0.1:\(brokerPort)", "--protocol", "mqtt",
                                              "--journal", sandbox.journal])
        #expect(added.succeeded, "\(added)")
        try sandbox.logEpochs(30..<35)
        let mqtt = try sandbox.sync.run(["--journal", sandbox.journal, "--now", "--to", "broker", "--to", "fine"])
        mqtt.expectExit(75)
        #expect(mqtt.stderrLines.count == 1, "\(mqtt.stderrText)")
        #expect(mqtt.stderrText.hasPrefix("overland-sync: broker: ")
                && mqtt.stderrText.contains("cannot connect to 127.0.0.1:\(brokerPort): connection refused"), "\(mqtt.stderrText)")
        #expect(fine.requests.count == 2, "the other destination was sent to")
    }
}
