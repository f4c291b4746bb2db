import TestSupport
import Foundation
import OverlandJournal
import Testing

/// What `overland status`, `journal stats` and `overland-sync` say about deliveries, as a
/// user reads them after partly delivered runs, with named destinations only, a destination
/// never used, and an endpoint fixed after failures. The clock is OVERLAND_TEST_NOW.
@Suite struct StatusMessagesTests {
    static let now: Int64 = 1_900_000_000

    static func environment(_ offset: Int64 = 0) -> [String: String?] { ["OVERLAND_TEST_NOW": String(now + offset)] }

    /// A sandbox with 120 points logged and the settings `settings`.
    static func prepare(_ settings: String) throws -> ReliabilitySandbox {
        let sandbox = try ReliabilitySandbox(prefix: "overland-status-messages")
        try sandbox.logEpochs(0..<120)
        try sandbox.writeSettings(settings)
        return sandbox
    }

    /// Named destinations only: the top block shows no queue, delivery or schedule for the
    /// default destination that does not exist; each destination's block tells its own,
    /// and a partly delivered run is a delivery. `journal stats` counts nothing as sent to a
    /// destination added after the points.
    @Test func namedDestinationsOnly() throws {
        let server = try LocalServer { index, _ in index == 0 ? LocalServer.ok() : LocalServer.text(500, "database down") }
        defer { server.stop() }
        let sandbox = try Self.prepare(#"{"retention_days": 30}"#)
        let added = try sandbox.overland.run(["destination", "add", "backup", server.url, "--from-start", "--journal", sandbox.journal])
        #expect(added.succeeded, "\(added)")
        #expect(try sandbox.overland.run(["destination", "set", "backup", "batch_size", "50"]).succeeded)
        let late = try sandbox.overland.run(["destination", "add", "late", "http://127.0.0.1:9/in", "--journal", sandbox.journal])
        #expect(late.succeeded, "\(late)")

        let run = try sandbox.sync.run(["--journal", sandbox.journal, "--to", "backup"], environment: Self.environment())
        run.expectExit(75)
        #expect(run.stderrText.contains("70 points kept for the next try"), "\(run.stderrText)")

        let status = try sandbox.overland.run(["status", "--journal", sandbox.journal], environment: Self.environment(30))
        #expect(status.succeeded, "\(status)")
        let text = status.stdoutText
        let top = text.components(separatedBy: "\ndestination ").first ?? ""
        #expect(!top.contains("queued") && !top.contains("last sent") && !top.contains("sending"), "\(text)")
        #expect(top.contains("endpoint    not set: points go to the destinations below"), "\(text)")
        let backup = try #require(text.components(separatedBy: "destination backup\n").dropFirst().first)
        #expect(backup.contains("queued      70 points"), "\(text)")
        #expect(backup.contains("last sent   30 s ago (2030-03-17T17:46:40Z)"), "\(text)")
        #expect(backup.contains("(1 failed attempt)"), "\(text)")
        let lateBlock = try #require(text.components(separatedBy: "destination late\n").dropFirst().first)
        #expect(lateBlock.contains("queued     0 points") && lateBlock.contains("last sent  never"), "\(text)")

        let json = try sandbox.overland.run(["status", "--json", "--journal", sandbox.journal], environment: Self.environment(30))
        let object = try #require((try? JSONScan.object(json.stdout)))
        #expect(object["queued"] is NSNull, "\(json.stdoutText)")

        let stats = try sandbox.overland.run(["journal", "stats", "--journal", sandbox.journal])
        #expect(stats.succeeded, "\(stats)")
        #expect(stats.stdoutLines.contains("  backup: 50 sent, 70 unsent (cursor 50)"), "\(stats.stdoutText)")
        #expect(stats.stdoutLines.contains("  late: 0 sent, 120 passed over when it was added, 0 unsent (cursor 120)"), "\(stats.stdoutText)")
        let statsJSON = try sandbox.overland.run(["journal", "stats", "--json", "--journal", sandbox.journal])
        let statsObject = try #require((try? JSONScan.object(statsJSON.stdout)))
        let readers = try #require(statsObject["readers"] as? [String: [String: Any]])
        #expect(readers["late"]?["sent"] as? Int == 0 && readers["late"]?["passed_when_added"] as? Int == 120, "\(statsJSON.stdoutText)")
        #expect(readers["backup"]?["sent"] as? Int == 50, "\(statsJSON.stdoutText)")
    }

    /// Wayfinder's documented endpoint suggests its profile, in `config set endpoint` and
    /// `destination add`; never applied.
    @Test func wayfindersPathSuggestsItsProfile() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-wayfinder-hint")
        let url = "https://wayfinder.example/api/wayfinder/overland/"
        let set = try sandbox.overland.run(["config", "set", "endpoint", url])
        #expect(set.succeeded, "\(set)")
        #expect(set.stderrText.contains("Wayfinder receives Overland batches at /api/wayfinder/overland/")
                && set.stderrText.contains("to use it: overland config set profile wayfinder"), "\(set.stderrText)")
        let profile = try sandbox.overland.run(["config", "get", "profile"])
        #expect(profile.stdoutText == "none\n", "\(profile)")
        let added = try sandbox.overland.run(["destination", "add", "wf", url, "--journal", sandbox.journal])
        #expect(added.succeeded && added.stderrText.contains("'overland destination set wf profile wayfinder'"), "\(added)")
    }

    /// Root (or anyone but the service's user) on a packaged device: no journal of its own,
    /// but the packaged service's is there: status says where, and how to look at it.
    @Test func aPackagedJournalIsPointedTo() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-status-packaged")
        let packaged = sandbox.directory.appending("var/lib/overland/.local/share/overland/journal")
        try FileManager.default.createDirectory(atPath: packaged, withIntermediateDirectories: true)
        let status = try sandbox.overland.run(["status"], environment: ["OVERLAND_PACKAGED_JOURNAL": packaged])
        #expect(status.succeeded && status.stderr.isEmpty, "\(status)")
        let lines = status.stdoutLines
        #expect(lines.first?.hasPrefix("Nothing has been logged yet (no journal at ") == true, "\(status.stdoutText)")
        #expect(lines.dropFirst().first == "The overland service logs as the overland user, to \(packaged); to see it:", "\(status.stdoutText)")
        #expect(lines.dropFirst(2).first == "  sudo -u overland -H overland status", "\(status.stdoutText)")
        let json = try sandbox.overland.run(["status", "--json"], environment: ["OVERLAND_PACKAGED_JOURNAL": packaged])
        let object = try #require((try? JSONScan.object(json.stdout)))
        #expect(object["packaged_journal"] as? String == packaged, "\(json.stdoutText)")
        // No packaged journal: no hint.
        let plain = try sandbox.overland.run(["status"], environment: ["OVERLAND_PACKAGED_JOURNAL": packaged + "-absent"])
        #expect(plain.succeeded && !plain.stdoutText.contains("sudo -u overland"), "\(plain)")
        // A journal of one's own: no hint either.
        try sandbox.logEpochs(0..<3)
        let own = try sandbox.overland.run(["status", "--journal", sandbox.journal], environment: ["OVERLAND_PACKAGED_JOURNAL": packaged])
        #expect(own.succeeded && !own.stdoutText.contains("sudo -u overland"), "\(own)")
    }

    /// A run killed (-9) after its first batch was acknowledged delivered points: status
    /// says when, not "last sent never" (the state is saved at a run's first delivery).
    @Test func aKilledRunThatDeliveredIsNotNeverSent() throws {
        let server = try LocalServer()
        defer { server.stop() }
        let sandbox = try Self.prepare(#"{"endpoint": "\#(server.url)", "main": {"batch_size": 50}}"#)
        let killed = try sandbox.sync.run(["--journal", sandbox.journal, "--now"],
                                          environment: Self.environment().merging(["OVERLAND_FAULT_POINT": "sync.after-reply:2"]) { $1 })
        #expect(killed.signal == SIGKILL, "\(killed)")
        #expect(server.requests.count == 2)
        let status = try sandbox.overland.run(["status", "--journal", sandbox.journal], environment: Self.environment(60))
        #expect(status.succeeded, "\(status)")
        #expect(status.stdoutText.contains("queued      70 points"), "\(status.stdoutText)")
        #expect(status.stdoutText.contains("last sent   1 min 0 s ago (2030-03-17T17:46:40Z)"), "\(status.stdoutText)")
    }

    /// After failures, the user fixes the endpoint: status says the next run tries it (not
    /// "next attempt in 1 min"), and the next run does, within the send interval (not
    /// "trying it now" followed by "not due").
    @Test func aFixedEndpointIsTriedByTheNextRun() throws {
        let flaky = try LocalServer { index, _ in index == 0 ? LocalServer.ok() : LocalServer.text(500, "database down") }
        let fixed = try LocalServer()
        defer { flaky.stop(); fixed.stop() }
        let sandbox = try Self.prepare(#"{"endpoint": "\#(flaky.url)", "send_interval": "5m", "main": {"batch_size": 50}}"#)
        let first = try sandbox.sync.run(["--journal", sandbox.journal], environment: Self.environment())
        first.expectExit(75)
        let failing = try sandbox.overland.run(["status", "--journal", sandbox.journal], environment: Self.environment(5))
        #expect(failing.stdoutText.contains("last sent   5 s ago"), "\(failing.stdoutText)")
        #expect(failing.stdoutText.contains("(1 failed attempt)") && failing.stdoutText.contains("next attempt in"), "\(failing.stdoutText)")

        #expect(try sandbox.overland.run(["config", "set", "endpoint", fixed.url]).succeeded)
        let changed = try sandbox.overland.run(["status", "--journal", sandbox.journal], environment: Self.environment(5))
        #expect(changed.succeeded, "\(changed)")
        #expect(!changed.stdoutText.contains("next attempt in"), "\(changed.stdoutText)")
        #expect(changed.stdoutText.contains("the destination changed since the last failed attempt: the next run tries it"), "\(changed.stdoutText)")

        let retried = try sandbox.sync.run(["--journal", sandbox.journal, "-v"], environment: Self.environment(10))
        #expect(retried.succeeded, "\(retried)")
        #expect(retried.stderrText.contains("trying it now") && !retried.stderrText.contains("not due"), "\(retried.stderrText)")
        #expect(retried.stderrText.contains("70 points sent to \(fixed.url) in 2 requests"), "\(retried.stderrText)")
        #expect(fixed.requests.count == 2)
        let after = try sandbox.overland.run(["status", "--journal", sandbox.journal], environment: Self.environment(10))
        #expect(after.stdoutText.contains("queued      0 points") && after.stdoutText.contains("last sent   0 s ago"), "\(after.stdoutText)")
    }
}
