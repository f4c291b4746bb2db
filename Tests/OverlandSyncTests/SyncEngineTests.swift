import TestSupport
import Foundation
import OverlandJSON
import OverlandJournal
import OverlandProtocol
@testable import OverlandSync
import Testing

/// Expects two bodies to be byte-for-byte equal; on failure says where they part, without
/// printing megabytes.
func expectSame(_ actual: [UInt8], _ expected: [UInt8], _ what: String = "body",
                sourceLocation: SourceLocation = #_sourceLocation) {
    let equal = actual == expected
    let split = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actual.count, expected.count)
    let context = String(decoding: actual[max(0, split - 40)..<min(actual.count, split + 40)], as: UTF8.self)
    #expect(equal, "\(what) differs at byte \(split) (\(actual.count) vs \(expected.count) bytes): ...\(context)...",
            sourceLocation: sourceLocation)
}

@Suite struct SyncEngineTests {
    // MARK: - Replies

    @Test func okDeliversAndAdvancesTheCursor() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let fixture = try JournalFixture(points: 3)
        let report = try await sync(fixture, .test(server))
        #expect(report.outcome == .delivered)
        #expect(report.sentRecords == 3)
        #expect(report.batches == 1)
        #expect(report.backlog == 0)
        #expect(fixture.cursor == 3)
        let request = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        #expect(request.method == "POST")
        #expect(request.uri == "/overland")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Authorization") == "Bearer secret-token")
        #expect(request.header("User-Agent") == "overland-sync/0.0.0-test")
        #expect(request.bodyText == "{\"locations\":[\(fixture.text(0)),\(fixture.text(1)),\(fixture.text(2))]}")
        let state = fixture.state
        #expect(state.lastSuccess != nil)
        #expect(state.consecutiveFailures == 0)
        #expect(state.lastStatus == 200)
    }

    @Test func noTokenSendsNoAuthorization() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let fixture = try JournalFixture(points: 1)
        let report = try await sync(fixture, .test(server, token: ""))
        #expect(report.outcome == .delivered)
        #expect(server.requests.first?.header("Authorization") == nil)
    }

    @Test func dawarichCreatedWithOKDelivers() async throws {
        let server = try LocalServer { _, _ in .text(201, #"{"result":"ok"}"#) }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        let report = try await sync(fixture, .test(server))
        #expect(report.outcome == .delivered)
        #expect(fixture.cursor == 2)
    }

    @Test func errorIn200IsNotDeliveredAndTheErrorIsKept() async throws {
        let server = try LocalServer { _, _ in .text(200, #"{"error":"device \u001b[31mnot registered"}"#) }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        let report = try await sync(fixture, .test(server))
        #expect(report.outcome == .retryLater)
        #expect(report.message == "server reported an error: device ?[31mnot registered")
        #expect(fixture.cursor == 0)
        let state = fixture.state
        #expect(state.lastError == "server reported an error: device ?[31mnot registered")
        #expect(state.consecutiveFailures == 1)
    }

    @Test(arguments: ["OK", "", "[]", #"{"result":"error"}"#, #"{"status":"ok"}"#])
    func unacknowledged200IsNotDelivered(body: String) async throws {
        let server = try LocalServer { _, _ in .text(200, body) }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        let report = try await sync(fixture, .test(server))
        #expect(report.outcome == .retryLater)
        #expect(fixture.cursor == 0)
    }

    @Test func serverErrorIsRetryable() async throws {
        let server = try LocalServer { _, _ in .text(500, #"{"error":"database down"}"#) }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        let report = try await sync(fixture, .test(server))
        #expect(report.outcome == .retryLater)
        #expect(report.lastStatus == 500)
        #expect(report.message == "server answered 500 internal server error: database down")
        #expect(fixture.cursor == 0)
    }

    @Test(arguments: [401, 403])
    func credentialsRefused(status: Int) async throws {
        let server = try LocalServer { _, _ in .text(status, "") }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        let report = try await sync(fixture, .test(server))
        #expect(report.outcome == .refused(status: status))
        #expect(fixture.cursor == 0)
        #expect(fixture.state.nextAttempt != nil)
    }

    @Test func serverDownIsRetryableAndQuick() async throws {
        let port = LocalServer.closedPort()
        var configuration = SyncConfiguration(endpoint: "http://127.0.0.1:\(port)/overland", token: "t", deviceID: "van")
        configuration.sendIntervalSeconds = 0
        let fixture = try JournalFixture(points: 2)
        let started = ContinuousClock.now
        let report = try await sync(fixture, configuration)
        #expect(report.outcome == .retryLater)
        #expect(report.message?.hasPrefix("cannot connect") == true, "\(report.message ?? "")")
        // Refused at once, not retried within the run (no wall-clock bound: see the deadline tests).
        _ = started
        #expect(fixture.cursor == 0)
    }

    @Test func slowServerPastTheDeadline() async throws {
        // The server would answer "ok" after 30 s; only the deadline makes this a timed-out
        // retry. No wall-clock bound: in a test run the timer shares two cooperative threads
        // with tests that block, so how soon it fires says nothing about the product.
        let server = try LocalServer { _, _ in .text(200, #"{"result":"ok"}"#, delay: .seconds(30)) }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        var configuration = SyncConfiguration.test(server)
        configuration.requestTimeout = 0.5
        let started = ContinuousClock.now
        let report = try await sync(fixture, configuration)
        #expect(report.outcome == .retryLater)
        #expect(report.message?.hasPrefix("no complete reply within") == true, "\(report.message ?? "")")
        #expect(fixture.cursor == 0)
        _ = started
    }

    @Test func tricklingReplyBodyPastTheDeadline() async throws {
        // 30 s of trickle; the deadline cuts it (no wall-clock bound: see above).
        let server = try LocalServer { _, _ in .trickle(count: 300, interval: .milliseconds(100)) }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        var configuration = SyncConfiguration.test(server)
        configuration.requestTimeout = 0.7
        let started = ContinuousClock.now
        let report = try await sync(fixture, configuration)
        #expect(report.outcome == .retryLater)
        #expect(report.message?.hasPrefix("no complete reply within") == true, "\(report.message ?? "")")
        _ = started
        #expect(fixture.cursor == 0)
    }

    @Test func connectionDroppedMidReply() async throws {
        let server = try LocalServer { _, _ in .closeMidBody(sent: 10) }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        let report = try await sync(fixture, .test(server))
        #expect(report.outcome == .retryLater)
        #expect(fixture.cursor == 0)
    }

    @Test func connectionClosedWithoutReply() async throws {
        let server = try LocalServer { _, _ in .close }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        let report = try await sync(fixture, .test(server))
        #expect(report.outcome == .retryLater)
        #expect(fixture.cursor == 0)
    }

    @Test func hugeReplyIsRefusedCleanly() async throws {
        let server = try LocalServer { _, _ in .reply(status: 200, body: [UInt8](repeating: UInt8(ascii: " "), count: 3 << 20)) }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        let report = try await sync(fixture, .test(server))
        #expect(report.outcome == .retryLater)
        #expect(report.message == "reply larger than 1048576 bytes")
        #expect(fixture.cursor == 0)
    }

    @Test func deeplyNestedReplyIsNotAcknowledged() async throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let server = try LocalServer { _, _ in .text(200, deep) }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        let report = try await sync(fixture, .test(server))
        #expect(report.outcome == .retryLater)
        #expect(report.message?.contains("nesting deeper than 16") == true, "\(report.message ?? "")")
        #expect(fixture.cursor == 0)
    }

    @Test func redirectIsNotFollowed() async throws {
        let server = try LocalServer { _, _ in
            .text(302, "", headers: [("Location", "http://user:pw@elsewhere.invalid/steal?token=abc#frag")])
        }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        let report = try await sync(fixture, .test(server))
        // A configuration error (the endpoint must change), not a retry forever; the
        // Location is shown as every url is (RedactedURL): its password, query values and
        // fragment hidden.
        #expect(report.outcome == .configurationError)
        #expect(report.message?.contains("elsewhere.invalid/steal?") == true, "\(report.message ?? "")")
        #expect(report.message?.contains("pw") == false && report.message?.contains("abc") == false
                && report.message?.contains("frag") == false, "\(report.message ?? "")")
        #expect(fixture.state.nextAttempt != nil)
        #expect(server.requests.count == 1)
        #expect(fixture.cursor == 0)
    }

    @Test func consider2xxSuccessful() async throws {
        let server = try LocalServer { _, _ in .text(204, "") }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        var configuration = SyncConfiguration.test(server)
        #expect(try await sync(fixture, configuration).outcome == .retryLater)
        #expect(fixture.cursor == 0)
        configuration.consider2xxSuccessful = true
        #expect(try await sync(fixture, configuration, sendNow: true).outcome == .delivered)
        #expect(fixture.cursor == 2)
    }

    // MARK: - Batches

    @Test func batchesAdvanceTheCursorInOrder() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let fixture = try JournalFixture(points: 120)
        var progress: [SyncProgress] = []
        let report = try await sync(fixture, .test(server), onProgress: { progress.append($0) })
        #expect(report.outcome == .delivered)
        #expect(report.sentRecords == 120)
        #expect(report.batches == 3)
        #expect(fixture.cursor == 120)
        #expect(progress.map(\.sentRecords) == [50, 100, 120])
        #expect(progress.map(\.backlog) == [70, 20, 0])
        let requests = server.requests
        try #require(requests.count == 3)
        // 120 unsent is more than 2 x 50: the first request also carries the newest point.
        expectSame(requests[0].body, fixture.locationsPrefix(0..<50) + Array(#","current":"#.utf8) + fixture.lines[119] + Array("}".utf8))
        expectSame(requests[1].body, fixture.locationsPrefix(50..<100) + Array("}".utf8))
        expectSame(requests[2].body, fixture.locationsPrefix(100..<120) + Array("}".utf8))
    }

    @Test func aFailedBatchStopsTheRunAndIsResentIdentically() async throws {
        let server = try LocalServer { index, _ in index == 1 ? .text(503, "") : LocalServer.ok() }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 120)
        let first = try await sync(fixture, .test(server))
        #expect(first.outcome == .retryLater)
        #expect(first.sentRecords == 50)
        #expect(fixture.cursor == 50)
        #expect(server.requests.count == 2)
        let second = try await sync(fixture, .test(server), sendNow: true)
        #expect(second.outcome == .delivered)
        #expect(fixture.cursor == 120)
        let requests = server.requests
        try #require(requests.count == 4)
        expectSame(requests[1].body, requests[2].body)
    }

    @Test func currentOnlyWhenTheBacklogExceedsTwoBatches() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let fixture = try JournalFixture(points: 180)
        let report = try await sync(fixture, .test(server))
        #expect(report.outcome == .delivered)
        let requests = server.requests
        try #require(requests.count == 4)
        let current = Array(#","current":"#.utf8) + fixture.lines[179] + Array("}".utf8)
        // Unsent 180 and 130: more than 2 x 50, so `current` is the newest point, not in the batch.
        expectSame(requests[0].body, fixture.locationsPrefix(0..<50) + current)
        expectSame(requests[1].body, fixture.locationsPrefix(50..<100) + current)
        // Unsent 80, then 30: no `current`.
        expectSame(requests[2].body, fixture.locationsPrefix(100..<150) + Array("}".utf8))
        expectSame(requests[3].body, fixture.locationsPrefix(150..<180) + Array("}".utf8))
        for request in requests {
            let value = try JSONParser.parse(request.body)
            #expect(value["locations"]?.array != nil)
        }
    }

    @Test func tripIsCarriedInEveryRequest() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let fixture = try JournalFixture(points: 60)
        var configuration = SyncConfiguration.test(server)
        let trip = #"{"mode":"car","start":"2023-12-05T16:50:25Z","distance":1234,"start_location":null,"current_location":null}"#
        configuration.trip = Array(trip.utf8)
        #expect(try await sync(fixture, configuration).outcome == .delivered)
        let requests = server.requests
        #expect(requests.count == 2)
        for request in requests {
            #expect(request.bodyText.hasSuffix(#"],"trip":"# + trip + "}"))
        }
    }

    @Test func urlTemplateIsFilledFromTheNewestPoint() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let fixture = try JournalFixture(points: 3)
        let configuration = SyncConfiguration.test(server, path: "/in?ts=%TS&lat=%LAT&lon=%LON&spd=%SPD&acc=%ACC&alt=%ALT&bat=%BAT&token=abc")
        #expect(try await sync(fixture, configuration).outcome == .delivered)
        #expect(server.requests.first?.uri == "/in?ts=2023-11-14T22%3A13%3A22Z&lat=45.490981&lon=-77.696295&spd=4.25&acc=5&alt=14&bat=0.8&token=abc")
    }

    @Test func nothingToSend() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let fixture = try JournalFixture(points: 0)
        let report = try await sync(fixture, .test(server))
        #expect(report.outcome == .nothingToSend)
        #expect(server.requests.isEmpty)
    }

    // MARK: - Modes

    @Test func latestSendsOnlyTheNewestPoint() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let fixture = try JournalFixture(points: 10)
        var configuration = SyncConfiguration.test(server)
        configuration.loggingMode = .latest
        let report = try await sync(fixture, configuration)
        #expect(report.outcome == .delivered)
        #expect(report.sentRecords == 1)
        #expect(fixture.cursor == 10)
        #expect(server.requests.map(\.bodyText) == ["{\"locations\":[\(fixture.text(9))]}"])
        #expect(try await sync(fixture, configuration).outcome == .nothingToSend)
    }

    @Test func ownTracksMessageHeadersAndBasicAuthentication() async throws {
        let server = try LocalServer { _, _ in .text(200, "[]") }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 4)
        var configuration = SyncConfiguration.test(server, path: "/pub", token: "alice:s3cret:x")
        configuration.loggingMode = .owntracks
        configuration.deviceID = "alice/phone"
        let report = try await sync(fixture, configuration)
        #expect(report.outcome == .delivered)
        #expect(fixture.cursor == 4)
        let request = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        #expect(request.header("Authorization") == "Basic YWxpY2U6czNjcmV0Ong=")
        #expect(request.header("X-Limit-U") == "alice")
        #expect(request.header("X-Limit-D") == "phone")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.bodyText == #"{"_type":"location","lat":45.490984,"lon":-77.696285,"tst":1700000003,"acc":5,"alt":15,"vel":15,"cog":3,"batt":80,"bs":1,"tid":"ne","topic":"owntracks/alice/phone"}"#)
    }

    @Test func ownTracksFindsTheNewestLocationBehindATripRecord() async throws {
        let server = try LocalServer { _, _ in .text(200, "[]") }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        try fixture.append(line: Array(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"type":"trip","mode":"car","timestamp":"2023-11-14T22:15:00Z"}}"#.utf8), commit: true)
        var configuration = SyncConfiguration.test(server, path: "/pub", token: "bob")
        configuration.loggingMode = .owntracks
        configuration.deviceID = "car"
        #expect(try await sync(fixture, configuration).outcome == .delivered)
        #expect(fixture.cursor == 3)
        let request = try #require(server.requests.first)
        #expect(request.header("Authorization") == "Basic Ym9iOg==")
        #expect(request.header("X-Limit-U") == "bob")
        #expect(request.header("X-Limit-D") == "car")
        #expect(request.bodyText.contains(#""tst":1700000001,"#))
        #expect(request.bodyText.hasSuffix(#""tid":"ar","topic":"owntracks/car"}"#))
    }

    // MARK: - set, geocode

    @Test func setAndGeocodeAreHandedOver() async throws {
        let server = try LocalServer { _, _ in
            .text(200, #"{"result":"ok","geocode":{"full_name":"Ottawa, Ontario"},"set":{"send_interval":"off","main":{"batch_size":500}}}"#)
        }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        var received: [JSONValue] = []
        let report = try await sync(fixture, .test(server), onSet: { received.append($0) })
        #expect(report.outcome == .delivered)
        #expect(report.geocode == "Ottawa, Ontario")
        #expect(fixture.state.geocode == "Ottawa, Ontario")
        #expect(received.count == 1)
        #expect(received.first?["send_interval"]?.string == "off")
        #expect(received.first?["main"]?["batch_size"]?.int == 500)
    }

    // MARK: - Lock, schedule, backoff

    /// The first run is held inside its request (the transport's gate) until the second
    /// has returned: the lock, not the reply's speed, decides. The second run's transport
    /// answers at once, so a second run let through would deliver, not hang.
    @Test func aSecondRunOnTheSameJournalExitsAtOnce() async throws {
        let fixture = try JournalFixture(points: 2)
        let configuration = SyncConfiguration.fake()
        let gated = GatedTransport()
        let sentBySecond = Locked(0)
        let immediate = CursorWatchingTransport { _ in sentBySecond.withLock { $0 += 1 } }
        let engine: @Sendable (any Transport) -> SyncEngine = { transport in
            SyncEngine(journal: fixture.journal, configuration: configuration, transport: transport,
                       wallClock: { 1_800_000_000 }, random: { 0.5 })
        }
        let first = Task {
            let report = await engine(gated).run(sendNow: true)
            gated.endArrivals()
            return report
        }
        var arrivals = gated.arrivals.makeAsyncIterator()
        if await arrivals.next() == nil {
            let report = await first.value
            Issue.record("the first run never sent: \(report)")
        }
        let second = await engine(immediate).run(sendNow: true)
        gated.open()
        #expect(second.outcome == .alreadyRunning)
        #expect(sentBySecond.current == 0)
        let firstReport = await first.value
        #expect(firstReport.outcome == .delivered)
        #expect(gated.requests == 1)
        #expect(fixture.cursor == 2)
    }

    @Test func backoffIsRememberedAndNowBypassesIt() async throws {
        let server = try LocalServer { _, _ in .text(500, "") }
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        let clock = TestClock()
        let configuration = SyncConfiguration.test(server)

        #expect(try await sync(fixture, configuration, clock: clock).outcome == .retryLater)
        var state = fixture.state
        #expect(state.consecutiveFailures == 1)
        #expect(state.nextAttempt == clock.now + 60)  // random 0.5: the middle of ±20%
        #expect(state.lastError == "server answered 500 internal server error")

        clock.advance(30)
        #expect(try await sync(fixture, configuration, clock: clock).outcome == .backingOff(until: clock.now + 30))
        #expect(server.requests.count == 1)

        clock.advance(31)
        #expect(try await sync(fixture, configuration, clock: clock).outcome == .retryLater)
        state = fixture.state
        #expect(state.consecutiveFailures == 2)
        #expect(state.nextAttempt == clock.now + 120)

        server.setScript { _, _ in LocalServer.ok() }
        #expect(try await sync(fixture, configuration, clock: clock).outcome == .backingOff(until: clock.now + 120))
        #expect(try await sync(fixture, configuration, clock: clock, sendNow: true).outcome == .delivered)
        state = fixture.state
        #expect(state.consecutiveFailures == 0)
        #expect(state.nextAttempt == nil)
        #expect(fixture.cursor == 2)
        #expect(server.requests.count == 3)
    }

    @Test func aChangedURLOrTokenIsTriedAtOnce() async throws {
        let broken = try LocalServer { _, _ in .text(500, "") }
        defer { broken.stop() }
        let fixed = try LocalServer()
        defer { fixed.stop() }
        let fixture = try JournalFixture(points: 2)
        let clock = TestClock()
        #expect(try await sync(fixture, .test(broken), clock: clock).outcome == .retryLater)
        #expect(try await sync(fixture, .test(broken), clock: clock).outcome == .backingOff(until: clock.now + 60))
        let against = try #require(fixture.state.failuresAgainst)
        #expect(against.count == 16 && !against.contains("secret"), "a fingerprint, not the URL or token")

        // The same receiver with a new token: tried now, and its failure backs off afresh.
        var newToken = SyncConfiguration.test(broken)
        newToken.token = "another-token"
        let retried = try await sync(fixture, newToken, clock: clock)
        #expect(retried.outcome == .retryLater)
        #expect(retried.warnings.contains { $0.contains("destination changed") })
        #expect(fixture.state.consecutiveFailures == 1)
        #expect(broken.requests.count == 2)

        // Another URL: delivered at once, and the state forgets the failures.
        #expect(try await sync(fixture, .test(fixed), clock: clock).outcome == .delivered)
        #expect(fixture.cursor == 2)
        #expect(fixture.state.failuresAgainst == nil)
        #expect(fixture.state.nextAttempt == nil)
    }

    /// A run that delivered a batch and then failed, within the send interval; the user
    /// fixes the url: the next run does what it says ("trying it now"), rather than
    /// saying so and then "not due".
    @Test func aChangedURLIsTriedAtOnceWithinTheSendInterval() async throws {
        let flaky = try LocalServer { index, _ in index == 0 ? LocalServer.ok() : .text(500, "") }
        defer { flaky.stop() }
        let fixed = try LocalServer()
        defer { fixed.stop() }
        let fixture = try JournalFixture(points: 120)
        let clock = TestClock()
        var broken = SyncConfiguration.test(flaky)
        broken.sendIntervalSeconds = 300
        let partial = try await sync(fixture, broken, clock: clock)
        #expect(partial.outcome == .retryLater && partial.sentRecords == 50, "\(partial)")
        #expect(fixture.state.lastSuccess == clock.now, "a partly delivered run records its delivery")
        clock.advance(5)
        var repaired = SyncConfiguration.test(fixed)
        repaired.sendIntervalSeconds = 300
        let retried = try await sync(fixture, repaired, clock: clock)
        #expect(retried.outcome == .delivered && retried.sentRecords == 70, "\(retried)")
        #expect(retried.warnings == [SyncReport.destinationChangedNote])
        #expect(fixture.cursor == 120)
        // Sending off still holds it, and then nothing claims a try.
        clock.advance(5)
        try fixture.append(points: 1)
        let failing = try await sync(fixture, SyncConfiguration.test(flaky), clock: clock)
        #expect(failing.outcome == .retryLater)
        var off = SyncConfiguration.test(fixed)
        off.sendIntervalSeconds = nil
        let held = try await sync(fixture, off, clock: clock)
        #expect(held.outcome == .sendingOff && held.warnings.isEmpty, "\(held)")
    }

    @Test func sendIntervalGatesRunsAndNowOverrides() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        let clock = TestClock()
        var configuration = SyncConfiguration.test(server)
        configuration.sendIntervalSeconds = 300
        #expect(try await sync(fixture, configuration, clock: clock).outcome == .delivered)
        try fixture.append(points: 2)
        clock.advance(100)
        #expect(try await sync(fixture, configuration, clock: clock).outcome == .notDue(nextSend: clock.now + 200))
        #expect(server.requests.count == 1)
        #expect(try await sync(fixture, configuration, clock: clock, sendNow: true).outcome == .delivered)
        #expect(server.requests.count == 2)
        try fixture.append(points: 1)
        clock.advance(301)
        #expect(try await sync(fixture, configuration, clock: clock).outcome == .delivered)
        #expect(fixture.cursor == 5)
    }

    @Test func sendIntervalOffSendsNothingUnlessNow() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let fixture = try JournalFixture(points: 2)
        var configuration = SyncConfiguration.test(server)
        configuration.sendIntervalSeconds = nil
        #expect(try await sync(fixture, configuration).outcome == .sendingOff)
        #expect(server.requests.isEmpty)
        #expect(try await sync(fixture, configuration, sendNow: true).outcome == .delivered)
    }

    /// Each request takes 700 ms of an injected monotonic clock against a maximum of 2 s:
    /// batches start at 0, 0.7 and 1.4 s, the fourth would start at 2.1 s and waits for the
    /// next run; each request's time-out is cut to what is left, never under 1 s.
    @Test func maxTimeStopsBetweenBatches() async throws {
        let fixture = try JournalFixture(points: 500)
        var configuration = SyncConfiguration.fake()
        configuration.maxTime = 2
        let clock = ManualClock()
        let timeouts = Locked<[Duration]>([])
        let transport = CursorWatchingTransport { timeout in
            timeouts.withLock { $0.append(timeout) }
            clock.advance(.milliseconds(700))
        }
        let engine = SyncEngine(journal: fixture.journal, configuration: configuration, transport: transport,
                                wallClock: { 1_800_000_000 }, random: { 0.5 }, monotonicClock: { clock.now })
        let report = await engine.run(sendNow: true)
        #expect(report.outcome == .maxTimeReached, "\(report)")
        #expect(report.batches == 3)
        #expect(timeouts.current == [.seconds(2), .milliseconds(1300), .seconds(1)])
        #expect(fixture.cursor == 150)
        #expect(report.backlog == 350)
    }

    // MARK: - Dry run, configuration

    @Test func dryRunShowsTheFirstRequestRedactedAndChangesNothing() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let fixture = try JournalFixture(points: 3)
        let configuration = SyncConfiguration.test(server, path: "/in?token=secret-token")
        let request = try await HTTPClientTransport.withTransport(configuration: configuration) { transport in
            try SyncEngine(journal: fixture.journal, configuration: configuration, transport: transport).dryRun()
        }
        let shown = try #require(request)
        #expect(shown.url == server.baseURL + "/in?token=<redacted>")
        #expect(shown.header("Authorization") == "Bearer <redacted>")
        #expect(!shown.displayText.contains("secret-token"))
        #expect(shown.displayText.hasPrefix("POST \(server.baseURL)/in?token=<redacted>\nContent-Type: application/json\n"))
        #expect(server.requests.isEmpty)
        #expect(fixture.cursor == 0)
        #expect(!FileManager.default.fileExists(atPath: fixture.journal.statePath + "/sync.json"))
    }

    @Test(arguments: ["ftp://example.com/", "example.com/in", "http:///in"])
    func badEndpointIsAConfigurationError(endpoint: String) async throws {
        let fixture = try JournalFixture(points: 1)
        var configuration = SyncConfiguration(endpoint: endpoint)
        configuration.sendIntervalSeconds = 0
        let report = try await sync(fixture, configuration)
        #expect(report.outcome == .configurationError)
    }

    @Test func missingCAFileIsAConfigurationError() {
        var configuration = SyncConfiguration(endpoint: "https://example.com/")
        configuration.caFile = "/nonexistent/ca.pem"
        #expect(throws: SyncError.self) { _ = try HTTPClientTransport(configuration: configuration) }
    }

    @Test func tlsToAPlainServerFailsAsRetryable() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let fixture = try JournalFixture(points: 1)
        var configuration = SyncConfiguration.test(server)
        configuration.endpoint = "https://127.0.0.1:\(server.port)/overland"
        let report = try await sync(fixture, configuration)
        #expect(report.outcome == .retryLater)
        #expect(fixture.cursor == 0)
    }
}
