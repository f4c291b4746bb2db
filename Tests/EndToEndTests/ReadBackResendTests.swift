import TestSupport
import Foundation
import OverlandJournal
import Testing

/// `overland destination resend` (issue 31): points a receiver lost after it had them are
/// found by audit, sent again once through the destination's own path, and confirmed by the
/// next audit; `overland status` and audit give the same count for the same journal. Runs a
/// minute apart (`OVERLAND_TEST_NOW`) against the stand-ins of `ReadBackSupport`.
@Suite struct ReadBackResendTests {
    private let start = StandInStore.now

    private func clock(_ minute: Int) -> [String: String?] { ["OVERLAND_TEST_NOW": String(start + Int64(minute) * 60)] }

    private func sync(_ sandbox: LogSandbox, minute: Int) throws -> ToolResult {
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        return try sync.run(["--journal", sandbox.journal, "--now"], environment: clock(minute))
    }

    private func overland(_ sandbox: LogSandbox, _ arguments: [String], minute: Int) throws -> ToolResult {
        try sandbox.overland.run(arguments + ["--journal", sandbox.journal], environment: clock(minute))
    }

    /// `overland status --json`'s first destination.
    private func status(_ sandbox: LogSandbox) throws -> [String: Any] {
        let status = try sandbox.overland.run(["status", "--journal", sandbox.journal, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout)) as? [String: Any], "\(status)")
        return try #require((object["destinations"] as? [[String: Any]])?.first, "\(status)")
    }

    private func recorderSandbox(_ server: LocalServer, points: Int) throws -> LogSandbox {
        let sandbox = try ReadBackJournal.sandbox([["endpoint", server.baseURL + "/pub"], ["protocol", "owntracks"],
                                                   ["profile", "owntracks-recorder"], ["device_id", "bob/van"], ["verify", "true"]])
        try ReadBackJournal.append(ReadBackJournal.points(0..<points), to: sandbox.journal)
        return sandbox
    }

    /// The audit table's row for `day` ("all" for the total), its numbers.
    private func row(_ audit: ToolResult, _ day: String) -> [String]? {
        audit.stdoutLines.first { $0.hasPrefix(day + " ") }.map { $0.split(separator: " ").dropFirst().map(String.init) }
    }

    @Test func pointsTheReceiverLostAreFoundSentAgainOnceAndConfirmed() throws {
        let store = StandInStore()
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try recorderSandbox(server, points: 60)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0)
        #expect(try sync(sandbox, minute: 1).exitStatus == 0)
        #expect(try status(sandbox)["stored_through"] as? Int == 60)
        // The Recorder restored from a backup missing 10 points the sync had confirmed.
        store.lose { (ReadBackJournal.t0 + 20..<ReadBackJournal.t0 + 30).contains($0.time) }

        let audit = try overland(sandbox, ["destination", "audit", "default"], minute: 2)
        audit.expectExit(65)
        #expect(row(audit, "2024-03-01") == ["60", "50", "10", "0", "0"], "\(audit)")
        #expect(try status(sandbox)["refused"] as? Int == 10, "status counts what the audit found")

        let received = store.received
        let resend = try overland(sandbox, ["destination", "resend", "default", "--missing"], minute: 3)
        resend.expectExit(0)
        #expect(resend.stdoutLines.first?.contains("sent again 10 points the receiver did not hold, from 2024-03-01T00:00:20Z to 2024-03-01T00:00:29Z") == true,
                "\(resend)")
        #expect(resend.stderrText.isEmpty, "\(resend)")
        #expect(store.received == received + 11, "the 10 points once each, then the newest once more: \(store.received - received)")
        #expect(store.points.filter { (ReadBackJournal.t0 + 20..<ReadBackJournal.t0 + 30).contains($0.time) }.count == 10)
        #expect(try status(sandbox)["acknowledged"] as? Int == 60, "the cursor does not move")

        let confirmed = try overland(sandbox, ["destination", "audit", "default"], minute: 4)
        confirmed.expectExit(0)
        #expect(row(confirmed, "2024-03-01") == ["60", "60", "0", "0", "0"], "\(confirmed)")
        #expect(try status(sandbox)["refused"] as? Int == 0, "what the audit confirmed is no longer counted refused")
        #expect(try sync(sandbox, minute: 5).exitStatus == 0, "the sync sends nothing again")
        #expect(store.received == received + 11)
    }

    @Test func statusAndAuditCountTheSamePointsWhenTheSyncRefusedThem() throws {
        // Keeps nothing from 00:00:40 on: the sync refuses those 20 after two resends.
        let store = StandInStore { _, point in point.time < ReadBackJournal.t0 + 40 }
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try recorderSandbox(server, points: 60)
        var last: ToolResult?
        for minute in 0..<8 {
            last = try sync(sandbox, minute: minute)
            if try status(sandbox)["stored_through"] as? Int == 60 { break }
        }
        #expect(last?.exitStatus == 65, "\(String(describing: last))")
        #expect(try status(sandbox)["refused"] as? Int == 20)
        let audit = try overland(sandbox, ["destination", "audit", "default"], minute: 9)
        audit.expectExit(65)
        #expect(row(audit, "2024-03-01") == ["60", "40", "20", "0", "0"], "\(audit)")
        #expect(try status(sandbox)["refused"] as? Int == 20, "the same count")
    }

    @Test func aSpanIsSentAgainWholeThroughTheReceiversOwnRequestsEndingWithTheNewest() throws {
        let store = StandInStore()
        let server = try LocalServer(store.compass(writeToken: "W-token", readToken: "R-token"))
        defer { server.stop() }
        let sandbox = try ReadBackJournal.sandbox([["endpoint", server.baseURL + "/api/input"], ["profile", "compass"],
                                                   ["token", "W-token"]])
        // Two days: 2024-03-01 and 2024-03-02.
        try ReadBackJournal.append(ReadBackJournal.points(0..<30) + ReadBackJournal.points(86_400..<86_430), to: sandbox.journal)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0)
        #expect(store.received == 60)
        let resend = try overland(sandbox, ["destination", "resend", "default", "--since", "2024-03-01T00:00:10Z",
                                            "--until", "2024-03-01"], minute: 1)
        resend.expectExit(0)
        #expect(resend.stdoutLines == ["default: sent again 20 points, from 2024-03-01T00:00:10Z to 2024-03-01T00:00:29Z"], "\(resend)")
        #expect(store.received == 60 + 20 + 1)
        let newest = try #require(store.points.last)
        #expect(newest.time == ReadBackJournal.t0 + 86_429, "the newest point acknowledged comes last")
    }

    @Test func resendSaysWhatItNeedsAndRefusesBadDates() throws {
        let store = StandInStore()
        let server = try LocalServer(store.compass(writeToken: "W-token", readToken: "R-token"))
        defer { server.stop() }
        let sandbox = try ReadBackJournal.sandbox([["endpoint", server.baseURL + "/api/input"], ["profile", "compass"],
                                                   ["token", "W-token"]])
        try ReadBackJournal.append(ReadBackJournal.points(0..<5), to: sandbox.journal)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0)
        let cases: [([String], String)] = [
            ([], "resend needs --since, --until or --missing"),
            (["--since", "2024-03-02", "--until", "2024-03-01"], "--since 2024-03-02 is after --until 2024-03-01"),
            (["--since", "yesterday"], #"invalid value "yesterday" for --since (allowed: a day YYYY-MM-DD"#),
        ]
        for (options, message) in cases {
            let result = try overland(sandbox, ["destination", "resend", "default"] + options, minute: 1)
            #expect(result.exitStatus == 64, "\(options): \(result)")
            #expect(result.stderrLines.count == 1 && result.stderrText.contains(message), "\(options): \(result)")
        }
        let none = try overland(sandbox, ["destination", "resend", "default", "--since", "2025-01-01"], minute: 1)
        #expect(none.exitStatus == 0 && none.stdoutLines == ["default: no point acknowledged in that span: nothing sent"], "\(none)")
        #expect(store.received == 5, "nothing sent for a usage error or an empty span")
    }
}
