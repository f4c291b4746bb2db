import TestSupport
import Foundation
import Testing

/// Read-back from Traccar (issue 24), driven through `overland-sync` with `verify true`
/// against the Traccar stand-in of `ReadBackSupport` (`StandInStore.traccar`): its OsmAnd
/// ingest, `/api/devices` and `/api/positions` with a Traccar user's credentials.
@Suite struct ReadBackTraccarTests {
    static let credentials = "admin@example.org:Tr4cc4r-pass"

    private func sandbox(_ server: LocalServer, verifyToken: String?) throws -> LogSandbox {
        let sandbox = try LogSandbox()
        for setting in [["endpoint", server.baseURL + "/"], ["protocol", "traccar"], ["device_id", "van"], ["verify", "true"]] {
            let set = try sandbox.overland.run(["config", "set"] + setting)
            try #require(set.succeeded, "\(setting): \(set)")
        }
        if let verifyToken {
            let set = try sandbox.overland.run(["config", "set", "verify_token", "--token-stdin"], stdinText: verifyToken + "\n")
            try #require(set.succeeded, "\(set)")
        }
        return sandbox
    }

    /// The first run's clock; each run a minute later reads back what the one before sent.
    private let start = StandInStore.now

    private func sync(_ sandbox: LogSandbox, minute: Int) throws -> ToolResult {
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        return try sync.run(["--journal", sandbox.journal, "--now", "--verbose"],
                            environment: ["OVERLAND_TEST_NOW": String(start + Int64(minute) * 60)])
    }

    private func points(_ range: Range<Int>) -> [ReadBackJournal.Point] { range.map { ReadBackJournal.Point(index: $0) } }

    @Test func aLossyTraccarEndsHoldingEveryPoint() throws {
        // Answers 200 to every position; of the first 60 it receives, drops every 4th.
        let store = StandInStore { receipt, _ in receipt > 60 || receipt % 4 != 0 }
        let server = try LocalServer(store.traccar(uniqueID: "van", credentials: Self.credentials))
        defer { server.stop() }
        let sandbox = try sandbox(server, verifyToken: Self.credentials)
        try ReadBackJournal.append(points(0..<60), to: sandbox.journal)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0)
        #expect(try sync(sandbox, minute: 1).exitStatus == 75, "the lost positions sent again")
        let result = try sync(sandbox, minute: 2)
        result.expectExit(0)
        #expect(Set(store.points.map(\.time)) == Set((0..<60).map { ReadBackJournal.t0 + Int64($0) }))
        #expect(result.stderrText.contains("read back 60 points: 60 stored"), "\(result)")
        // The device's number looked up first in each run that reads, then every range read
        // with from and to.
        let reads = store.readQueries
        #expect(reads.first == "/api/devices?uniqueId=van", "\(reads)")
        #expect(reads.filter { $0 != "/api/devices?uniqueId=van" }.allSatisfy { $0.hasPrefix("/api/positions?deviceId=7&from=2024-03-01T") && $0.contains("&to=") }, "\(reads)")
        #expect(!result.stderrText.contains("Tr4cc4r"))
    }

    @Test func positionsTraccarNeverKeepsAreRefusedWithOneLine() throws {
        // Answers 200 to every position; never keeps one north of 45.502 (index 20 on).
        let store = StandInStore { _, point in point.latitude < 45.502 - 1e-9 }
        let server = try LocalServer(store.traccar(uniqueID: "van", credentials: Self.credentials))
        defer { server.stop() }
        let sandbox = try sandbox(server, verifyToken: Self.credentials)
        try ReadBackJournal.append(points(0..<30), to: sandbox.journal)
        #expect(try (0..<3).map { try sync(sandbox, minute: $0).exitStatus } == [0, 75, 75])
        let result = try sync(sandbox, minute: 3)
        result.expectExit(65)
        let lines = result.stderrLines.filter { $0.contains("did not store") }
        #expect(lines == ["overland-sync: Traccar did not store 10 points acknowledged and sent twice again, "
                          + "from 2024-03-01T00:00:20Z to 2024-03-01T00:00:29Z; no longer sent"], "\(result)")
        #expect(store.received == 30 + 10 * 2 + 2, "each refused position sent twice again, no more (and the newest after each resend)")
        let again = try sync(sandbox, minute: 4)
        #expect(again.exitStatus == 0 && store.received == 52, "refused: not sent again while nothing changed: \(again)")
    }

    @Test func withoutReadCredentialsTheRunIsRefusedWithOneLine() throws {
        let store = StandInStore()
        let server = try LocalServer(store.traccar(uniqueID: "van", credentials: Self.credentials))
        defer { server.stop() }
        let sandbox = try sandbox(server, verifyToken: nil)
        try ReadBackJournal.append(points(0..<5), to: sandbox.journal)
        let result = try sync(sandbox, minute: 0)
        result.expectExit(78)
        let lines = result.stderrLines.filter { $0.contains("verify") }
        #expect(lines == ["overland-sync: verify: Traccar is read with a Traccar user's credentials: set verify_token to USER:PASSWORD (--token-stdin)"],
                "\(result)")
        #expect(store.received == 5, "the points were sent; only reading back needs the credentials")
    }

    @Test func wrongReadCredentialsAreNamedAndNothingIsMarkedStored() throws {
        let store = StandInStore()
        let server = try LocalServer(store.traccar(uniqueID: "van", credentials: Self.credentials))
        defer { server.stop() }
        let sandbox = try sandbox(server, verifyToken: "admin@example.org:wrong-pass")
        try ReadBackJournal.append(points(0..<5), to: sandbox.journal)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0, "nothing read back in the run that sent it")
        let result = try sync(sandbox, minute: 1)
        result.expectExit(75)
        #expect(result.stderrText.contains("Traccar refused the read credentials (HTTP 401): check verify_token"), "\(result)")
        #expect(!result.stderrText.contains("wrong-pass"))
    }
}
