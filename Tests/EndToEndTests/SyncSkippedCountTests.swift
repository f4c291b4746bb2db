import TestSupport
import Foundation
import Testing

/// The latest and owntracks modes send the newest point by time, not the last one logged,
/// and what they pass over is counted as skipped, not as sent.
@Suite struct SyncSkippedCountTests {
    /// A journal whose last logged points are older than earlier ones: epochs 100..<110,
    /// then 0..<5 (an old capture logged after live ones).
    static func outOfOrder() throws -> ReliabilitySandbox {
        let sandbox = try ReliabilitySandbox(prefix: "overland-honesty")
        try sandbox.logEpochs(100..<110)
        try sandbox.logEpochs(0..<5)
        return sandbox
    }

    static func stats(_ sandbox: ReliabilitySandbox) throws -> [String: Any] {
        let result = try sandbox.overland.run(["journal", "stats", "--json", "--journal", sandbox.journal])
        #expect(result.succeeded, "\(result)")
        return (try? JSONScan.object(result.stdout)) ?? [:]
    }


    /// Issue 21: records the receiver cannot take (a trip record, for Traccar's one location
    /// per request) were counted as "older skipped (logging mode)". Named as what they are.
    @Test func recordsAReceiverCannotTakeAreNamedAsSuch() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-not-carried")
        try sandbox.logEpochs(0..<3)
        #expect(try sandbox.overland.run(["trip", "start", "--journal", sandbox.journal]).succeeded)
        #expect(try sandbox.overland.run(["trip", "stop", "--journal", sandbox.journal]).succeeded)
        try sandbox.logEpochs(3..<5)
        try sandbox.writeSettings(#"{"protocol": "traccar", "device_id": "van"}"#)
        let server = try LocalServer { _, _ in LocalServer.text(200, "") }
        defer { server.stop() }
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", server.url, "--now", "-v"])
        result.expectExit(0)
        #expect(server.requests.count == 5)
        #expect(result.stderrText.contains("5 points sent"), "\(result.stderrText)")
        #expect(result.stderrText.contains("1 not sent: trip, visit or action records"), "\(result.stderrText)")
        #expect(!result.stderrText.contains("logging mode"), "\(result.stderrText)")
    }

    @Test func latestSendsTheNewestPointByTimeAndCountsTheRestAsSkipped() throws {
        let sandbox = try Self.outOfOrder()
        try sandbox.writeSettings(#"{"main": {"logging_mode": "latest"}}"#)
        let server = try LocalServer()
        defer { server.stop() }
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", server.url, "--now", "-v"])
        result.expectExit(0)
        let request = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        let sent = try #require(SyntheticDrive.index(ofRecord: request.bodyText))
        #expect(sent == 109, "the newest by time (epoch 109), not the last logged (epoch 4): \(request.bodyText)")
        #expect(result.stderrText.contains("1 point sent") && result.stderrText.contains("14 older skipped"), "\(result.stderrText)")
        let stats = try Self.stats(sandbox)
        #expect(stats["records"] as? Int == 15)
        #expect(stats["sent"] as? Int == 1, "\(stats)")
        #expect(stats["skipped"] as? Int == 14, "\(stats)")
        #expect(stats["unsent"] as? Int == 0, "\(stats)")
        let text = try sandbox.overland.run(["journal", "stats", "--journal", sandbox.journal])
        #expect(text.stdoutText.contains("records   15 (15 location points): 1 sent, 14 skipped"), "\(text.stdoutText)")
        // A second round: 3 more, one sent, 2 skipped; the counts add up.
        try sandbox.logEpochs(200..<203)
        #expect(try sandbox.sync.run(["--journal", sandbox.journal, "--url", server.url, "--now"]).exitStatus == 0)
        let again = try Self.stats(sandbox)
        #expect(again["sent"] as? Int == 2 && again["skipped"] as? Int == 16, "\(again)")
    }

    @Test func owntracksSendsTheNewestPointByTime() throws {
        let sandbox = try Self.outOfOrder()
        try sandbox.writeSettings(#"{"main": {"logging_mode": "owntracks"}, "device_id": "alice/van"}"#)
        let server = try LocalServer { _, _ in LocalServer.text(200, "[]") }
        defer { server.stop() }
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--url", server.url, "--now"])
        result.expectExit(0)
        let request = try #require(server.requests.first)
        let object = try #require((try? JSONScan.object(request.body)))
        #expect((object["tst"] as? NSNumber)?.int64Value == SyntheticDrive.time(109), "\(request.bodyText)")
        let stats = try Self.stats(sandbox)
        #expect(stats["sent"] as? Int == 1 && stats["skipped"] as? Int == 14, "\(stats)")
    }
}
