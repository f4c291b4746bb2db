import TestSupport
import OverlandJournal
import OverlandProtocol
import OverlandSync
import Testing

/// The engine with each receiver: the batch rule decides what a request carries, the
/// receiver's acknowledgement decides when the cursor moves.
@Suite struct ReceiverSyncTests {
    static let trip = Array(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"type":"trip","mode":"car","timestamp":"2023-11-14T22:15:00Z"}}"#.utf8)

    @Test func traccarSendsEachLocationAloneAndSkipsTheTrip() async throws {
        let server = try LocalServer { _, _ in .text(200, "") }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 3)
        try fixture.append(line: Self.trip, commit: true)
        try fixture.append(points: 2)
        var configuration = SyncConfiguration.test(server, path: "/", token: nil)
        configuration.wireProtocol = .traccar
        let report = try await sync(fixture, configuration)
        #expect(report.outcome == .delivered)
        #expect(report.sentRecords == 5 && report.notCarriedRecords == 1 && report.skippedRecords == 0 && report.batches == 5)
        #expect(fixture.cursor == 6)
        #expect(server.requests.count == 5)
        let first = try #require(server.requests.first)
        #expect(first.bodyText.hasPrefix(#"{"location":{"timestamp":"2023-11-14T22:13:20Z","coords":{"latitude":45.490975,"longitude":-77.696315,"accuracy":5,"speed":4.25,"heading":0,"altitude":12}"#), "\(first.bodyText)")
        #expect(first.bodyText.hasSuffix(#""device_id":"van"}"#))
    }

    @Test func traccarTakesOnly200() async throws {
        let server = try LocalServer { _, _ in .text(201, #"{"result":"ok"}"#) }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        var configuration = SyncConfiguration.test(server, path: "/", token: nil)
        configuration.wireProtocol = .traccar
        let report = try await sync(fixture, configuration)
        #expect(report.outcome == .retryLater)
        #expect(report.message?.contains("201") == true, "\(report.message ?? "")")
        #expect(fixture.cursor == 0)
        #expect(server.requests.count == 1)
    }

    @Test func ownTracksAllSendsEveryPointInOrder() async throws {
        let server = try LocalServer { _, _ in .text(200, "[]") }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 4)
        var configuration = SyncConfiguration.test(server, path: "/pub", token: "alice:pw")
        configuration.wireProtocol = .owntracks
        configuration.deviceID = "alice/phone"
        let report = try await sync(fixture, configuration)
        #expect(report.outcome == .delivered && report.sentRecords == 4 && report.skippedRecords == 0)
        #expect(server.requests.map { $0.bodyText.contains(#""tst":1700000000,"#) } == [true, false, false, false])
        #expect(server.requests.last?.bodyText.contains(#""tst":1700000003,"#) == true)
        #expect(fixture.cursor == 4)
    }

    @Test func aJournalOfTripsOnlyIsPassedForAReceiverOfLocations() async throws {
        let server = try LocalServer { _, _ in .text(200, "") }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 0)
        try fixture.append(line: Self.trip, commit: true)
        var configuration = SyncConfiguration.test(server, path: "/", token: nil)
        configuration.wireProtocol = .traccar
        let report = try await sync(fixture, configuration)
        #expect(server.requests.isEmpty)
        #expect(report.notCarriedRecords == 1 && report.skippedRecords == 0)
        #expect(fixture.cursor == 1)
    }

    @Test func misfitsAreRefusedBeforeAnyRequest() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let fixture = try JournalFixture(points: 1)
        var configuration = SyncConfiguration.test(server)
        configuration.profile = .homeAssistant
        var report = try await sync(fixture, configuration)
        #expect(report.outcome == .configurationError)
        #expect(report.message?.hasPrefix("profile home-assistant does not fit protocol overland: it is for protocol owntracks") == true, "\(report.message ?? "")")
        configuration.loggingMode = .owntracks
        configuration.deviceID = "van"
        configuration.token = nil
        report = try await sync(fixture, configuration)
        #expect(report.outcome == .delivered, "the owntracks logging mode speaks OwnTracks: \(report.message ?? "")")
        configuration = SyncConfiguration.test(server)
        configuration.wireProtocol = .traccar
        configuration.deviceID = ""
        #expect(throws: SyncError.self) { try configuration.validate() }
        configuration.wireProtocol = .mqtt
        configuration.deviceID = "van"
        #expect(throws: SyncError.configuration("protocol mqtt is not available in this build of overland-sync")) { try configuration.validate() }
        #expect(server.requests.count == 1)
    }
}
