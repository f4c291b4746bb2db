import TestSupport
import Foundation
import OverlandJournal
import Testing

/// Receiver profiles apply when sending, to points already in the journal: a server that,
/// like Wayfinder, drops every point whose speed or accuracies have a fraction (and still
/// answers {"result":"ok"}) gets all of them once the setting is on, even when it was
/// turned on after they were logged. The journal keeps them as logged.
@Suite struct ReceiverProfileTests {
    /// A Wayfinder-like receiver: stores a location only when every number Wayfinder keeps
    /// as an integer is a whole number; answers ok to everything.
    final class WayfinderLike: @unchecked Sendable {
        let stored = LockedCount()
        let dropped = LockedCount()

        func start() throws -> LocalServer {
            let stored = self.stored, dropped = self.dropped
            return try LocalServer { _, request in
                let object = (try? JSONScan.object(request.body))
                for location in object?["locations"] as? [[String: Any]] ?? [] {
                    let properties = location["properties"] as? [String: Any] ?? [:]
                    let whole = ["speed", "speed_accuracy", "course_accuracy", "altitude", "course",
                                 "horizontal_accuracy", "vertical_accuracy"].allSatisfy { key in
                        guard let number = properties[key] as? NSNumber else { return false }
                        return number.doubleValue.rounded() == number.doubleValue
                    }
                    if whole { stored.add(1) } else { dropped.add(1) }
                }
                return LocalServer.ok()
            }
        }
    }

    final class LockedCount: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add(_ n: Int) { lock.lock(); count += n; lock.unlock() }
        var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    }

    private func loggedSandbox() throws -> (LogSandbox, [LogRecord]) {
        let sandbox = try LogSandbox()
        // A drive at 5 kn: 2.57 m/s, a speed Wayfinder refuses.
        let drive = try sandbox.file("drive.nmea", text: SyntheticDrive.text(0..<60))
        #expect(try sandbox.logger.run(["--journal", sandbox.journal, drive]).exitStatus == 0)
        let records = try sandbox.records()
        let fractional = records.filter { ($0.raw("speed") ?? "").contains(".") }
        #expect(!fractional.isEmpty, "the sample must have fractional speeds for this test to mean anything")
        return (sandbox, records)
    }

    private func sync(_ sandbox: LogSandbox, to server: LocalServer) throws -> ToolResult {
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        return try sync.run(["--journal", sandbox.journal, "--url", server.url, "--now"])
    }

    @Test func withoutAProfileAWayfinderLikeReceiverDropsPointsInSilence() throws {
        let (sandbox, records) = try loggedSandbox()
        let receiver = WayfinderLike()
        let server = try receiver.start()
        defer { server.stop() }
        let result = try sync(sandbox, to: server)
        result.expectExit(0)
        #expect(receiver.stored.value + receiver.dropped.value == records.count)
        #expect(receiver.dropped.value > 0, "the receiver is as strict as Wayfinder")
    }

    @Test(arguments: [["profile", "wayfinder"], ["integer_speed", "true"]])
    func theSettingTurnedOnAfterLoggingReachesEveryPoint(setting: [String]) throws {
        let (sandbox, records) = try loggedSandbox()
        let set = try sandbox.overland.run(["config", "set"] + setting)
        set.expectExit(0)
        let receiver = WayfinderLike()
        let server = try receiver.start()
        defer { server.stop() }
        let result = try sync(sandbox, to: server)
        result.expectExit(0)
        #expect(receiver.stored.value == records.count, "\(receiver.dropped.value) dropped")
        #expect(receiver.dropped.value == 0)
        // Sent rounded, kept as logged.
        let first = try #require(server.requests.first)
        #expect(!first.bodyText.contains(#""speed":2.57"#) && first.bodyText.contains(#""speed":3,"#), "\(first.bodyText.prefix(400))")
        #expect(records.contains { $0.raw("speed") == "2.57" }, "logged with its decimals")
        let after = try sandbox.records()
        #expect(after.map(\.line) == records.map(\.line), "the journal keeps full precision")
    }

    /// Compass reads the token only from the query string: with the compass profile the
    /// request carries it there, and the dry run shows it redacted.
    @Test func compassGetsTheTokenInTheQueryString() throws {
        let (sandbox, records) = try loggedSandbox()
        #expect(try sandbox.overland.run(["config", "set", "profile", "compass"]).exitStatus == 0)
        let server = try LocalServer { _, request in
            request.uri.hasSuffix("?token=c0mp%2Fass") ? LocalServer.ok() : LocalServer.text(200, #"{"error":"no token"}"#)
        }
        defer { server.stop() }
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        let token: [String: String?] = ["OVERLAND_TOKEN": "c0mp/ass"]
        let dry = try sync.run(["--journal", sandbox.journal, "--url", server.url, "--dry-run"], environment: token)
        #expect(dry.exitStatus == 0 && dry.stdoutText.contains("?token=<redacted>") && !dry.stdoutText.contains("c0mp"), "\(dry.stdoutText.prefix(300))")
        let result = try sync.run(["--journal", sandbox.journal, "--url", server.url, "--now"], environment: token)
        result.expectExit(0)
        #expect(try Journal(path: sandbox.journal).cursor() == UInt64(records.count))
    }

    @Test func anUnknownProfileIsRefusedNamingTheAllowedOnes() throws {
        let sandbox = try LogSandbox()
        let set = try sandbox.overland.run(["config", "set", "profile", "wayfndr"])
        set.expectExit(64)
        #expect(set.stderrText.contains("none") && set.stderrText.contains("wayfinder"), "\(set.stderrText)")
    }
}
