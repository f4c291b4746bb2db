import TestSupport
import Foundation
import OverlandJournal
import Testing

/// Read-back judged only what the receiver had time to store (issue 31, "Verified means
/// true"): `overland-sync` run as cron runs it, a minute apart (`OVERLAND_TEST_NOW`),
/// against stand-ins that store what they acknowledged only later (`StandInStore` with
/// `commitsLater`, committed by the test between runs, as Home Assistant's recorder commits
/// after the webhook answered).
@Suite struct ReadBackSettleTests {
    /// The first run's clock: now, so that what a stand-in records (Home Assistant's
    /// `last_updated`) falls inside the reads of the runs that follow.
    let start = StandInStore.now

    private func sandbox(_ settings: [[String]]) throws -> LogSandbox { try ReadBackJournal.sandbox(settings) }

    private func points(_ range: Range<Int>, _ change: (inout ReadBackJournal.Point) -> Void = { _ in }) -> [ReadBackJournal.Point] {
        ReadBackJournal.points(range, change)
    }

    /// `overland-sync --now --verbose` at `minute` minutes after `start`.
    private func sync(_ sandbox: LogSandbox, minute: Int) throws -> ToolResult {
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        return try sync.run(["--journal", sandbox.journal, "--now", "--verbose"],
                            environment: ["OVERLAND_TEST_NOW": String(start + Int64(minute) * 60)])
    }

    private func state(_ sandbox: LogSandbox, _ file: String = "sync.json") throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: sandbox.journal + "/state/" + file))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func homeAssistantSettings(_ server: LocalServer) -> [[String]] {
        [["endpoint", server.baseURL + "/api/webhook/0a1b2c"], ["protocol", "owntracks"], ["profile", "home-assistant"],
         ["device_id", "bob/van"], ["verify", "true"], ["verify_token", "LLAT-token"]]
    }

    private func recorderSettings(_ server: LocalServer) -> [[String]] {
        [["endpoint", server.baseURL + "/pub"], ["protocol", "owntracks"], ["profile", "owntracks-recorder"],
         ["device_id", "bob/van"], ["verify", "true"]]
    }

    /// Five cron runs, ten new points each, the receiver committing after each run; then
    /// one more run. Every run exits 0, nothing is sent twice, and the last run has every
    /// point read back stored.
    private func cronCadenceEndsQuiet(_ store: StandInStore, _ sandbox: LogSandbox) throws {
        for run in 0..<5 {
            try ReadBackJournal.append(points(run * 10..<(run + 1) * 10), to: sandbox.journal)
            let result = try sync(sandbox, minute: run)
            #expect(result.exitStatus == 0, "run \(run): \(result)")
            #expect(!result.stderrText.contains("did not store") && !result.stderrText.contains("sent again;"), "run \(run): \(result)")
            store.commit()
        }
        let last = try sync(sandbox, minute: 5)
        last.expectExit(0)
        #expect(store.received == 50, "no point sent twice: \(store.received)")
        let saved = try state(sandbox)
        #expect(saved["stored_through"] as? Int == 50 && saved["refused_records"] == nil, "\(saved)")
    }

    @Test func homeAssistantCommittingLaterIsReadBackByTheNextRunAndNothingIsRefused() throws {
        let store = StandInStore(commitsLater: true)
        let server = try LocalServer(store.homeAssistant(token: "LLAT-token"))
        defer { server.stop() }
        let sandbox = try sandbox(homeAssistantSettings(server))
        try cronCadenceEndsQuiet(store, sandbox)
    }

    @Test func aRecorderCommittingLaterIsReadBackByTheNextRunAndNothingIsRefused() throws {
        let store = StandInStore(commitsLater: true)
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try sandbox(recorderSettings(server))
        try cronCadenceEndsQuiet(store, sandbox)
        // One read a run from the second on, each of what the run before sent: never what
        // a run sent itself, inside the settle time.
        #expect(store.readQueries.count == 5, "\(store.readQueries)")
    }

    @Test func aMissingPointIsSentAgainOnceAndReadBackOnlyAfterItSettled() throws {
        // Loses the 3rd point it receives; keeps everything else, committing later.
        let store = StandInStore(commitsLater: true) { receipt, _ in receipt != 3 }
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try sandbox(recorderSettings(server))
        try ReadBackJournal.append(points(0..<20), to: sandbox.journal)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0)
        store.commit()
        let second = try sync(sandbox, minute: 1)
        second.expectExit(75)
        #expect(second.stderrText.contains("reading back: 1 point the receiver did not hold sent again"), "\(second)")
        #expect(store.received == 22, "the lost point, then the newest once more")
        // Not yet committed, and inside the settle time: not read, not sent again.
        let third = try sync(sandbox, minute: 1)
        #expect(third.exitStatus == 0 && store.received == 22, "\(third)")
        store.commit()
        let fourth = try sync(sandbox, minute: 2)
        fourth.expectExit(0)
        #expect(Set(store.points.map(\.time)) == Set((0..<20).map { ReadBackJournal.t0 + Int64($0) }))
        #expect(try state(sandbox)["stored_through"] as? Int == 20)
        // The HTTP resend ended with the newest point: the tracker shows it, not the old one.
        #expect(store.points.last?.time == ReadBackJournal.t0 + 19, "\(store.points.map(\.time).suffix(3))")
    }

    @Test func aPointIsRefusedOnlyAfterThreeReadsEachASettleTimeAfterItWasSent() throws {
        // Keeps nothing north of 45.502 (index 20 on).
        let store = StandInStore(commitsLater: true) { _, point in point.latitude < 45.502 - 1e-9 }
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try sandbox(recorderSettings(server))
        try ReadBackJournal.append(points(0..<30), to: sandbox.journal)
        var statuses: [Int32] = []
        for minute in 0..<4 {
            statuses.append(try sync(sandbox, minute: minute).exitStatus ?? -1)
            store.commit()
        }
        #expect(statuses == [0, 75, 75, 65], "\(statuses)")
        #expect(store.received == 30 + 10 * 2 + 2, "each refused point sent twice again, each resend ending with the newest")
        #expect(try state(sandbox)["refused_records"] as? Int == 10)
    }
}
