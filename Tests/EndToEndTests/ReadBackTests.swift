import TestSupport
import Foundation
import OverlandJournal
import Testing

/// Read-back (issue 24): `overland-sync` with `verify true` asks the receiver what it
/// holds, sends what is missing again, and says what the receiver refused, against the
/// stand-ins of `ReadBackSupport` on 127.0.0.1.
@Suite struct ReadBackTests {
    private func sandbox(_ settings: [[String]]) throws -> LogSandbox { try ReadBackJournal.sandbox(settings) }

    private func points(_ range: Range<Int>, _ change: (inout ReadBackJournal.Point) -> Void = { _ in }) -> [ReadBackJournal.Point] {
        ReadBackJournal.points(range, change)
    }

    /// The first run's clock: each run is a minute after the one before (`OVERLAND_TEST_NOW`),
    /// so what one sends has settled for the next to read back.
    private let start = StandInStore.now

    private func sync(_ sandbox: LogSandbox, minute: Int, environment: [String: String?] = [:]) throws -> ToolResult {
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        return try sync.run(["--journal", sandbox.journal, "--now"],
                            environment: environment.merging(["OVERLAND_TEST_NOW": String(start + Int64(minute) * 60)]) { $1 })
    }

    /// Runs a minute apart from `minute` on until one exits 0 (at most `limit`); their statuses.
    private func syncUntilQuiet(_ sandbox: LogSandbox, from minute: Int = 0, limit: Int = 6) throws -> [Int32] {
        var statuses: [Int32] = []
        for run in minute..<(minute + limit) {
            let result = try sync(sandbox, minute: run)
            statuses.append(result.exitStatus ?? -1)
            if result.exitStatus == 0, run > minute { break }
        }
        return statuses
    }

    private func state(_ sandbox: LogSandbox) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: sandbox.journal + "/state/sync.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The OwnTracks webhook of a Home Assistant stand-in, read back with its admin token.
    private func homeAssistantSettings(_ server: LocalServer) -> [[String]] {
        [["endpoint", server.baseURL + "/api/webhook/0a1b2c"], ["protocol", "owntracks"], ["profile", "home-assistant"],
         ["device_id", "bob/van"], ["verify", "true"], ["verify_token", "LLAT-token"]]
    }

    private func recorderSettings(_ server: LocalServer) -> [[String]] {
        [["endpoint", server.baseURL + "/pub"], ["protocol", "owntracks"], ["profile", "owntracks-recorder"],
         ["device_id", "bob/van"], ["verify", "true"]]
    }

    /// Every point kept, once each, by time.
    private func times(_ store: StandInStore) -> Set<Int64> { Set(store.points.map(\.time)) }

    /// Syncs until a run exits 0 with every acknowledged point compared (at most `runs`
    /// runs): the runs' results, the last one's decisive.
    private func syncUntilCompared(_ sandbox: LogSandbox, runs: Int = 3) throws -> [ToolResult] {
        var results: [ToolResult] = []
        for minute in 0..<runs {
            results.append(try sync(sandbox, minute: minute))
            let status = try sandbox.overland.run(["status", "--journal", sandbox.journal, "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout)) as? [String: Any], "\(status)")
            let destination = try #require((object["destinations"] as? [[String: Any]])?.first, "\(status)")
            if results.last?.exitStatus == 0, destination["stored_through"] as? Int == destination["acknowledged"] as? Int { break }
        }
        return results
    }

    // MARK: - OwnTracks Recorder

    @Test func lossyRecorderHoldsEveryPointAfterEachRun() throws {
        // Acknowledges everything, keeps all but every 5th point it receives.
        let store = StandInStore { receipt, _ in receipt % 5 != 0 }
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try sandbox(recorderSettings(server))
        try ReadBackJournal.append(points(0..<120), to: sandbox.journal)
        let statuses = try syncUntilQuiet(sandbox)
        #expect(statuses.first == 0 && statuses.last == 0 && statuses.dropFirst().dropLast().allSatisfy { $0 == 75 }, "\(statuses)")
        #expect(times(store) == Set((0..<120).map { ReadBackJournal.t0 + Int64($0) }))
        #expect(store.received > 120, "missing points were sent again")
        // The Recorder answers only the last 6 hours without `from`: every read names it.
        #expect(!store.readQueries.isEmpty && store.readQueries.allSatisfy { $0.contains("from=20") && $0.contains("&to=") })
        let saved = try state(sandbox)
        #expect(saved["stored_through"] as? Int == 120)
        #expect(saved["resends"] == nil)
    }

    /// The Recorder's `/api/0/locations` skips `secs <= from || secs >= to` (storage.c):
    /// a read from the first point's second missed it, one comparison of 500 in each, and
    /// audit's day read from midnight missed a point at 00:00:00.
    @Test func recorderBoundsAreExclusiveAndTheFirstAndLastPointAreRead() throws {
        let store = StandInStore()
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try sandbox(recorderSettings(server))
        // t0 is 2024-03-01T00:00:00Z: the first point is at midnight.
        try ReadBackJournal.append(points(0..<1_100), to: sandbox.journal)
        let runs = try syncUntilCompared(sandbox)
        #expect(runs.last?.exitStatus == 0, "\(runs)")
        #expect(store.received == 1_100, "no point was sent again: every one was read back where it is")
        let audit = try sandbox.overland.run(["destination", "audit", "default", "--journal", sandbox.journal, "--json"])
        audit.expectExit(0)
        let days = try #require(try JSONSerialization.jsonObject(with: Data(audit.stdout)) as? [[String: Any]], "\(audit)")
        #expect(days.first?["day"] as? String == "2024-03-01" && days.first?["missing"] as? Int == 0, "\(audit)")
    }

    /// The Recorder files `My Van` as `my-van` (util.c `ut_lower`) and answers for the name
    /// it is asked, lowered: the reader asks for the name as filed.
    @Test func recorderDeviceWithASpaceIsReadWhereTheRecorderFiledIt() throws {
        let store = StandInStore()
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        var settings = recorderSettings(server)
        settings[3] = ["device_id", "Alice/My Van"]
        let sandbox = try sandbox(settings)
        try ReadBackJournal.append(points(0..<60), to: sandbox.journal)
        let runs = try syncUntilCompared(sandbox)
        #expect(runs.last?.exitStatus == 0, "\(runs)")
        #expect(Set(store.points.map(\.device)) == ["alice/my-van"])
        #expect(store.received == 60, "nothing sent again")
        #expect(store.readQueries.allSatisfy { $0.contains("user=alice&device=my-van&") }, "\(store.readQueries.prefix(1))")
    }

    /// An older capture logged after newer points: one comparison spans every stored point
    /// between them. The Recorder's full records (about 300 bytes each) made the answer more
    /// than the 1 MiB an acknowledgement may have, and read-back failed at every run.
    @Test func aComparisonSpanningMoreThanAMebibyteOfAnswerIsRead() throws {
        let store = StandInStore()
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try sandbox(recorderSettings(server))
        try ReadBackJournal.append(points(10_000..<14_800) + points(0..<300), to: sandbox.journal)
        let runs = try syncUntilCompared(sandbox)
        #expect(runs.last?.exitStatus == 0, "\(runs)")
        #expect(store.received == 5_100, "nothing sent again")
        #expect(store.readQueries.allSatisfy { $0.contains("&fields=tst%2Clat%2Clon") })
    }

    @Test func pointsRefusedForGoodEndTheRunWith65AndOneLine() throws {
        // Keeps nothing north of 45.502 (index 20 on), however often it is sent.
        let store = StandInStore { _, point in point.latitude < 45.502 - 1e-9 }
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try sandbox(recorderSettings(server))
        try ReadBackJournal.append(points(0..<40), to: sandbox.journal)
        #expect(try (0..<3).map { try sync(sandbox, minute: $0).exitStatus } == [0, 75, 75])
        let result = try sync(sandbox, minute: 3)
        result.expectExit(65)
        let lines = result.stderrLines.filter { $0.contains("did not store") }
        #expect(lines.count == 1, "\(result)")
        let line = try #require(lines.first)
        #expect(line.contains("20 points") && line.contains("2024-03-01T00:00:20Z") && line.contains("2024-03-01T00:00:39Z"), "\(line)")
        #expect(store.received == 40 + 20 * 2 + 2, "each refused point sent twice again, no more (and the newest after each resend)")
        // Refused: not sent again by the next run.
        let again = try sync(sandbox, minute: 4)
        again.expectExit(0)
        #expect(store.received == 82)
        #expect(try state(sandbox)["refused_records"] as? Int == 20)
    }

    @Test func refusedPointsAreTriedAgainOnceASettingChanges() throws {
        // Refuses the van's points north of 45.502; takes everything filed under another device.
        let store = StandInStore { _, point in point.device != "bob/van" || point.latitude < 45.502 - 1e-9 }
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try sandbox(recorderSettings(server))
        try ReadBackJournal.append(points(0..<40), to: sandbox.journal)
        #expect(try (0..<4).map { try sync(sandbox, minute: $0).exitStatus } == [0, 75, 75, 65])
        #expect(try sync(sandbox, minute: 4).exitStatus == 0, "refused: not tried again while nothing changed")
        #expect(store.received == 82)
        #expect(try sandbox.overland.run(["config", "set", "device_id", "bob/truck"]).exitStatus == 0)
        #expect(try sync(sandbox, minute: 5).exitStatus == 75, "the refused points sent again, as the new setting sends them")
        let result = try sync(sandbox, minute: 6)
        result.expectExit(0)
        #expect(Set(store.points.filter { $0.device == "bob/truck" }.map(\.time)) == Set((20..<40).map { ReadBackJournal.t0 + Int64($0) }))
        let saved = try state(sandbox)
        #expect(saved["refused_records"] == nil && saved["refused_from"] == nil && saved["stored_through"] as? Int == 40)
    }

    @Test func killedBetweenResendAndReadBackLosesNothing() throws {
        let store = StandInStore { receipt, _ in receipt % 5 != 0 }
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try sandbox(recorderSettings(server))
        try ReadBackJournal.append(points(0..<40), to: sandbox.journal)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0)
        let killed = try sync(sandbox, minute: 1, environment: ["OVERLAND_FAULT_POINT": "readback.after-resend"])
        #expect(killed.signal == SIGKILL, "\(killed)")
        #expect(store.received == 48, "the 8 missing sent again, then killed")
        let saved = try state(sandbox)
        #expect((saved["resends"] as? [[Int]])?.count == 8, "resend counts written before the resend")
        #expect(saved["stored_through"] as? Int == 0)
        let statuses = try syncUntilQuiet(sandbox, from: 2)
        #expect(statuses.last == 0, "\(statuses)")
        #expect(times(store).count == 40)
        #expect(try state(sandbox)["stored_through"] as? Int == 40)
    }

    @Test func aReceiverThatCannotBeReadIsTriedAgainLater() throws {
        let store = StandInStore()
        store.readsFail = true
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try sandbox(recorderSettings(server))
        try ReadBackJournal.append(points(0..<20), to: sandbox.journal)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0, "nothing read back in the run that sent it")
        let failed = try sync(sandbox, minute: 1)
        failed.expectExit(75)
        #expect(failed.stderrLines.filter { $0.contains("answered HTTP 503 to reading back") }.count == 1, "\(failed)")
        #expect(try state(sandbox)["stored_through"] as? Int == 0, "nothing compared: the mark stays")
        store.readsFail = false
        let result = try sync(sandbox, minute: 2)
        result.expectExit(0)
        #expect(times(store).count == 20)
        #expect(try state(sandbox)["stored_through"] as? Int == 20)
    }

    // MARK: - Compass: a store that drops fractional speeds

    @Test func fractionalSpeedsDroppedAreNamedWithTheirFix() throws {
        let store = StandInStore { _, point in point.speed == point.speed.rounded() }
        let server = try LocalServer(store.compass(writeToken: "W-token", readToken: "R-token"))
        defer { server.stop() }
        let sandbox = try sandbox([["endpoint", server.baseURL + "/api/input"], ["profile", "compass"], ["token", "W-token"],
                                   ["device_id", "van"], ["verify", "true"], ["verify_token", "R-token"]])
        try ReadBackJournal.append(points(0..<30) { if $0.index % 3 == 0 { $0.speed = 2.5 } }, to: sandbox.journal)
        #expect(try (0..<3).map { try sync(sandbox, minute: $0).exitStatus } == [0, 75, 75])
        let result = try sync(sandbox, minute: 3)
        result.expectExit(65)
        let line = try #require(result.stderrLines.first { $0.contains("did not store") })
        #expect(line.contains("10 points") && line.contains("speed with a fraction") && line.contains("profile wayfinder"), "\(line)")
        #expect(!result.stderrText.contains("R-token") && !result.stderrText.contains("W-token"))
        #expect(times(store).count == 20)
    }

    @Test func aSecondSharedWithAnotherDeviceIsNamed() throws {
        // One point a second across devices: the car's points take five of the van's seconds.
        let store = StandInStore(uniqueSeconds: true)
        for index in 5..<10 {
            store.inject(.init(time: ReadBackJournal.t0 + Int64(index), latitude: 10, longitude: 10, device: "car", speed: 1, recordedAt: 0))
        }
        let server = try LocalServer(store.compass(writeToken: "W-token", readToken: "R-token"))
        defer { server.stop() }
        let sandbox = try sandbox([["endpoint", server.baseURL + "/api/input"], ["profile", "compass"], ["token", "W-token"],
                                   ["device_id", "van"], ["verify", "true"], ["verify_token", "R-token"]])
        try ReadBackJournal.append(points(0..<20), to: sandbox.journal)
        #expect(try (0..<3).map { try sync(sandbox, minute: $0).exitStatus } == [0, 75, 75])
        let result = try sync(sandbox, minute: 3)
        result.expectExit(65)
        let line = try #require(result.stderrLines.first { $0.contains("did not store") }, "\(result)")
        #expect(line.contains("5 points") && line.contains("shares its second") && line.contains("2024-03-01T00:00:05Z"), "\(line)")
    }

    // MARK: - Dawarich: pages

    @Test func dawarichIsReadInPages() throws {
        let store = StandInStore { receipt, _ in receipt % 100 != 0 }
        let server = try LocalServer(store.dawarich(apiKey: "K-key"))
        defer { server.stop() }
        let sandbox = try sandbox([["endpoint", server.baseURL + "/api/v1/overland/batches"], ["profile", "dawarich"],
                                   ["token", "K-key"], ["device_id", "van"], ["verify", "true"]])
        try ReadBackJournal.append(points(0..<1200), to: sandbox.journal)
        let statuses = try syncUntilQuiet(sandbox)
        #expect(statuses == [0, 75, 0], "\(statuses)")
        #expect(times(store).count == 1200)
        #expect(store.readQueries.contains { $0.contains("page=2&") }, "a comparison of 500 points reads more than one page")
    }

    // MARK: - Home Assistant: history with attributes

    @Test func homeAssistantHistoryConfirmsTheTracker() throws {
        let store = StandInStore { receipt, _ in receipt % 7 != 0 }
        let server = try LocalServer(store.homeAssistant(token: "LLAT-token"))
        defer { server.stop() }
        let sandbox = try sandbox(homeAssistantSettings(server))
        try ReadBackJournal.append(points(0..<30), to: sandbox.journal)
        let statuses = try syncUntilQuiet(sandbox)
        #expect(statuses.last == 0, "\(statuses)")
        #expect(Set(store.points.map(\.latitude)).count == 30)
        #expect(store.readQueries.allSatisfy { $0.contains("filter_entity_id=device_tracker.bob_van") })
    }

    /// With `device_tracker.bob_van` already taken (a decoy), Home Assistant names the
    /// device's tracker `bob_van_2`: the reader finds it by its device identifier and reads
    /// it, never the decoy.
    @Test func homeAssistantReadsTheDevicesTrackerNotADecoyOfItsName() throws {
        let store = StandInStore()
        store.decoy("device_tracker.bob_van")
        let server = try LocalServer(store.homeAssistant(token: "LLAT-token"))
        defer { server.stop() }
        let sandbox = try sandbox(homeAssistantSettings(server))
        try ReadBackJournal.append(points(0..<30), to: sandbox.journal)
        let runs = try syncUntilCompared(sandbox)
        #expect(runs.last?.exitStatus == 0, "\(runs)")
        #expect(store.received == 30, "nothing sent again")
        #expect(Set(store.points.map(\.device)) == ["device_tracker.bob_van_2"])
        #expect(!store.readQueries.isEmpty && store.readQueries.allSatisfy { $0.contains("filter_entity_id=device_tracker.bob_van_2&") })
    }

    @Test func homeAssistantWithoutAReadTokenIsAConfigurationError() throws {
        let store = StandInStore()
        let server = try LocalServer(store.homeAssistant(token: "LLAT-token"))
        defer { server.stop() }
        let sandbox = try sandbox([["endpoint", server.baseURL + "/api/webhook/0a1b2c"], ["protocol", "owntracks"],
                                   ["profile", "home-assistant"], ["device_id", "bob/van"], ["verify", "true"]])
        try ReadBackJournal.append(points(0..<3), to: sandbox.journal)
        let result = try sync(sandbox, minute: 0)
        result.expectExit(78)
        #expect(result.stderrText.contains("verify_token"))
    }

    // MARK: - Settings

    @Test func verifyIsRefusedForWayfinderWithOneLine() throws {
        let sandbox = try sandbox([["endpoint", "https://wayfinder.example/api/overland"], ["profile", "wayfinder"]])
        let refused = try sandbox.overland.run(["config", "set", "verify", "true"])
        #expect(refused.exitStatus != 0 && refused.stderrLines.count == 1 && refused.stderrText.contains("Wayfinder"), "\(refused)")
        let add = try sandbox.overland.run(["destination", "add", "way", "https://wayfinder.example/api/overland", "--profile", "wayfinder"])
        add.expectExit(0)
        let set = try sandbox.overland.run(["destination", "set", "way", "verify", "true"])
        #expect(set.exitStatus != 0 && set.stderrLines.count == 1 && set.stderrText.contains("Wayfinder"), "\(set)")
    }

    @Test func theReadTokenIsNeverShown() throws {
        let sandbox = try sandbox([["endpoint", "https://c.example/api/input"], ["profile", "compass"], ["verify", "true"]])
        let set = try sandbox.overland.run(["config", "set", "verify_token", "--token-stdin"], stdinText: "S3cr3t-read-token\n")
        set.expectExit(0)
        #expect(!set.stdoutText.contains("S3cr3t") && !set.stderrText.contains("S3cr3t"))
        let list = try sandbox.overland.run(["config", "list"])
        #expect(list.exitStatus == 0 && list.stdoutText.contains("verify_token") && !list.stdoutText.contains("S3cr3t"), "\(list)")
        let add = try sandbox.overland.run(["destination", "add", "c2", "https://c.example/api/input", "--profile", "compass"])
        add.expectExit(0)
        let stdin = try sandbox.overland.run(["destination", "set", "c2", "verify_token", "--token-stdin"], stdinText: "S3cr3t-two\n")
        stdin.expectExit(0)
        let shown = try sandbox.overland.run(["destination", "list", "--json"])
        #expect(shown.stdoutText.contains("\"verify_token\":true") && !shown.stdoutText.contains("S3cr3t"), "\(shown)")
    }

    // MARK: - Status and audit

    @Test func statusShowsAcknowledgedStoredAndRefused() throws {
        let store = StandInStore { _, point in point.latitude < 45.503 - 1e-9 }
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        let sandbox = try sandbox(recorderSettings(server))
        try ReadBackJournal.append(points(0..<40), to: sandbox.journal)
        #expect(try (0..<4).map { try sync(sandbox, minute: $0).exitStatus } == [0, 75, 75, 65])
        let status = try sandbox.overland.run(["status", "--journal", sandbox.journal])
        let line = try #require(status.stdoutLines.first { $0.hasPrefix("read back") }, "\(status)")
        #expect(line.contains("acknowledged through record 40, stored through record 40, 10 refused"), "\(line)")
        let json = try sandbox.overland.run(["status", "--journal", sandbox.journal, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        let destination = try #require((object["destinations"] as? [[String: Any]])?.first)
        #expect(destination["verify"] as? Bool == true && destination["acknowledged"] as? Int == 40)
        #expect(destination["stored_through"] as? Int == 40 && destination["refused"] as? Int == 10)
    }

    @Test func auditCountsByDayAndExitsNonZeroWhileAnythingIsMissing() throws {
        // verify off: the sync trusts the acknowledgements; the audit finds what was lost.
        let store = StandInStore { receipt, _ in receipt % 5 != 0 }
        let server = try LocalServer(store.recorder)
        defer { server.stop() }
        var settings = recorderSettings(server)
        settings.removeLast()
        let sandbox = try sandbox(settings)
        try ReadBackJournal.append(points(0..<40) + points(86_400..<86_410), to: sandbox.journal)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0)
        // Held elsewhere: one point the journal does not have, one second at another place.
        store.inject(.init(time: ReadBackJournal.t0 + 50_000, latitude: 1, longitude: 1, device: "bob/van", speed: -1, recordedAt: 0))
        store.inject(.init(time: ReadBackJournal.t0 + 4, latitude: 2, longitude: 2, device: "bob/van", speed: -1, recordedAt: 0))
        let audit = try sandbox.overland.run(["destination", "audit", "default", "--journal", sandbox.journal])
        audit.expectExit(65)
        #expect(audit.stdoutLines.dropFirst().first?.split(separator: " ") == ["2024-03-01", "40", "32", "7", "1", "2"], "\(audit)")
        #expect(audit.stdoutLines.dropFirst(2).first?.split(separator: " ") == ["2024-03-02", "10", "8", "2", "0", "0"], "\(audit)")
        let json = try sandbox.overland.run(["destination", "audit", "default", "--journal", sandbox.journal, "--json",
                                             "--since", "2024-03-02"])
        let days = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [[String: Any]], "\(json)")
        #expect(days.count == 1 && days.first?["day"] as? String == "2024-03-02" && days.first?["missing"] as? Int == 2)
        let bad = try sandbox.overland.run(["destination", "audit", "default", "--journal", sandbox.journal, "--since", "yesterday"])
        #expect(bad.exitStatus == 64 && bad.stderrLines.count == 1, "\(bad)")
    }
}
