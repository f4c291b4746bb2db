import TestSupport
import Foundation
import OverlandJournal
import Testing

/// Every line read-back says is true (issue 31; issue 32 item 5): each point read back
/// under its own device, a cause named only when it sets the missing points apart, a
/// receiver that cannot be read back a configuration error the user sees, and a stored mark
/// that cannot be trusted restarting verification, never skipping it. `overland-sync` runs
/// a minute apart (`OVERLAND_TEST_NOW`) against the stand-ins of `ReadBackSupport`.
@Suite struct ReadBackTruthTests {
    private let start = StandInStore.now

    private func sandbox(_ settings: [[String]]) throws -> LogSandbox { try ReadBackJournal.sandbox(settings) }

    private func points(_ range: Range<Int>, _ change: (inout ReadBackJournal.Point) -> Void = { _ in }) -> [ReadBackJournal.Point] {
        ReadBackJournal.points(range, change)
    }

    private func clock(_ minute: Int) -> [String: String?] { ["OVERLAND_TEST_NOW": String(start + Int64(minute) * 60)] }

    private func sync(_ sandbox: LogSandbox, minute: Int) throws -> ToolResult {
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        return try sync.run(["--journal", sandbox.journal, "--now"], environment: clock(minute))
    }

    private func statePath(_ sandbox: LogSandbox) -> String { sandbox.journal + "/state/sync.json" }

    private func state(_ sandbox: LogSandbox) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: statePath(sandbox)))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func recorderSettings(_ server: LocalServer) -> [[String]] {
        [["endpoint", server.baseURL + "/pub"], ["protocol", "owntracks"], ["profile", "owntracks-recorder"],
         ["device_id", "bob/van"], ["verify", "true"]]
    }

    // MARK: - The device is each point's own

    @Test func aJournalOfSeveralDevicesIsReadBackUnderEachPointsOwnDevice() throws {
        let store = StandInStore()
        let server = try LocalServer(store.compass(writeToken: "W-token", readToken: "R-token"))
        defer { server.stop() }
        // The destination's device id is neither of the journal's.
        let sandbox = try sandbox([["endpoint", server.baseURL + "/api/input"], ["profile", "compass"], ["token", "W-token"],
                                   ["device_id", "host-pc"], ["verify", "true"], ["verify_token", "R-token"]])
        try ReadBackJournal.append(points(0..<20) { $0.device = $0.index % 2 == 0 ? "van" : "car" }, to: sandbox.journal)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0)
        let second = try sync(sandbox, minute: 1)
        second.expectExit(0)
        #expect(store.received == 20, "nothing sent again: every point is held under its own device")
        #expect(try state(sandbox)["stored_through"] as? Int == 20)
        let audit = try sandbox.overland.run(["destination", "audit", "default", "--journal", sandbox.journal], environment: clock(2))
        audit.expectExit(0)
        #expect(audit.stdoutLines.dropFirst().first?.split(separator: " ") == ["2024-03-01", "20", "20", "0", "0", "0"], "\(audit)")
    }

    // MARK: - Causes

    @Test func aReceiverHoldingNoneOfThePointsIsSaidSoAndNoWayfinderCauseIsInvented() throws {
        // Home Assistant over its webhook, reading an entity that holds nothing of ours.
        let store = StandInStore { _, _ in false }
        let server = try LocalServer(store.homeAssistant(token: "LLAT-token"))
        defer { server.stop() }
        let sandbox = try sandbox([["endpoint", server.baseURL + "/api/webhook/0a1b2c"], ["protocol", "owntracks"],
                                   ["profile", "home-assistant"], ["device_id", "bob/van"], ["verify", "true"],
                                   ["verify_token", "LLAT-token"]])
        try ReadBackJournal.append(points(0..<10) { $0.speed = 2.5 }, to: sandbox.journal)
        #expect(try (0..<3).map { try sync(sandbox, minute: $0).exitStatus } == [0, 75, 75])
        let result = try sync(sandbox, minute: 3)
        result.expectExit(65)
        let line = try #require(result.stderrLines.first { $0.contains("did not store") }, "\(result)")
        #expect(line.contains("Home Assistant holds none of these points: check verify_url"), "\(line)")
        #expect(!line.contains("wayfinder") && !line.contains("speed with a fraction"), "\(line)")
        #expect(!result.stderrText.contains("LLAT-token"))
    }

    // MARK: - A receiver that cannot be read back

    @Test func aReadAPIWhoseAnswerIsNotAListIsAConfigurationErrorTheUserSees() throws {
        let store = StandInStore()
        let server = try LocalServer { _, request in
            switch (request.method, StandInStore.path(request.uri)) {
            case ("POST", "/api/v1/overland/batches"):
                store.receive(.init(time: 0, latitude: 0, longitude: 0, device: "", speed: -1, recordedAt: 0))
                return StandInStore.reply(201, ["result": "ok"])
            case ("GET", "/api/v1/points"):
                return StandInStore.reply(200, ["points": [Any]()])
            default:
                return LocalServer.text(404, "")
            }
        }
        defer { server.stop() }
        let sandbox = try sandbox([["endpoint", server.baseURL + "/api/v1/overland/batches"], ["profile", "dawarich"],
                                   ["token", "K-key"], ["device_id", "van"], ["verify", "true"]])
        try ReadBackJournal.append(points(0..<5), to: sandbox.journal)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0)
        try ReadBackJournal.append(points(5..<10), to: sandbox.journal)
        let failed = try sync(sandbox, minute: 1)
        failed.expectExit(78)
        #expect(failed.stderrLines == ["overland-sync: verify: Dawarich's answer is not a list of points: check verify_url "
                                       + "(the read API's base url) and the destination's profile"], "\(failed)")
        #expect(store.received == 2, "sending goes on: both runs' batches were sent")
        let status = try sandbox.overland.run(["status", "--journal", sandbox.journal], environment: clock(1))
        let line = try #require(status.stdoutLines.first { $0.contains("read back") }, "\(status)")
        #expect(line.contains("cannot be read back: Dawarich's answer is not a list of points"), "\(line)")
        let audit = try sandbox.overland.run(["destination", "audit", "default", "--journal", sandbox.journal], environment: clock(1))
        #expect(audit.exitStatus == 78, "as its help says, and as the sync: \(audit)")
        #expect(audit.stderrLines.count == 1 && audit.stderrText.contains("not a list of points: check verify_url"), "\(audit)")
    }

    // MARK: - A stored mark that cannot be trusted

    @Test func aForgedStoredMarkBeyondTheCursorSkipsNoRead() throws {
        let store = StandInStore { receipt, _ in receipt % 5 != 0 }
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try sandbox(recorderSettings(server))
        try ReadBackJournal.append(points(0..<20), to: sandbox.journal)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0)
        var forged = try state(sandbox)
        forged["stored_through"] = 9_007_199_254_740_992
        try JSONSerialization.data(withJSONObject: forged).write(to: URL(fileURLWithPath: statePath(sandbox)))
        let result = try sync(sandbox, minute: 1)
        #expect(result.exitStatus == 75, "the lost points found and sent again: \(result)")
        #expect(result.stderrText.contains("beyond the cursor"), "\(result)")
        #expect(!store.readQueries.isEmpty)
        #expect(try sync(sandbox, minute: 2).exitStatus == 0)
        #expect(Set(store.points.map(\.time)).count == 20)
        #expect(try state(sandbox)["stored_through"] as? Int == 20)
    }

    @Test func anUnreadableSyncStateRestartsVerificationInsteadOfMarkingPointsStored() throws {
        let store = StandInStore { receipt, _ in receipt % 5 != 0 }
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try sandbox(recorderSettings(server))
        try ReadBackJournal.append(points(0..<20), to: sandbox.journal)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: statePath(sandbox)))
        let result = try sync(sandbox, minute: 1)
        result.expectExit(75)
        #expect(!store.readQueries.isEmpty, "read back from the journal's first record")
        #expect(try sync(sandbox, minute: 2).exitStatus == 0)
        #expect(Set(store.points.map(\.time)).count == 20)
        #expect(try state(sandbox)["stored_through"] as? Int == 20)
    }
}
