import TestSupport
import Foundation
import OverlandJournal
import OverlandProtocol
@testable import OverlandSync
import Testing

/// Forwards to a real transport, then loses the reply of chosen requests: what a crash
/// between the server's answer and the cursor write looks like to the journal.
struct LosingTransport: Transport {
    let inner: any Transport
    let loses: @Sendable (Int) -> Bool
    let count = Locked(0)

    func send(_ request: SyncRequest, timeout: Duration) async throws -> HTTPReply {
        let index = count.withLock { value in
            defer { value += 1 }
            return value
        }
        let reply = try await inner.send(request, timeout: timeout)
        if loses(index) { throw TransportError(.connectionLost, "reply lost (simulated crash)") }
        return reply
    }
}

/// Byte equality through memcmp: fast in a debug build.
func equalBytes(_ left: [UInt8], _ right: [UInt8]) -> Bool {
    left.count == right.count && left.withUnsafeBytes { l in right.withUnsafeBytes { r in memcmp(l.baseAddress!, r.baseAddress!, l.count) == 0 } }
}

@Suite struct DeliveryTests {
    @Test func aBatchAcknowledgedButNotRecordedIsResentByteForByte() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let fixture = try JournalFixture(points: 160)
        let configuration = SyncConfiguration.test(server)
        let first = try await HTTPClientTransport.withTransport(configuration: configuration) { transport in
            let losing = LosingTransport(inner: transport) { $0 == 1 }
            return await SyncEngine(journal: fixture.journal, configuration: configuration, transport: losing).run()
        }
        #expect(first.outcome == .retryLater)
        #expect(fixture.cursor == 50)
        // New points arrive before the next run: `current` may change, `locations` may not.
        try fixture.append(points: 10)
        let second = try await sync(fixture, configuration, sendNow: true)
        #expect(second.outcome == .delivered)
        #expect(fixture.cursor == 170)
        let requests = server.requests
        try #require(requests.count == 5)
        let locations = fixture.locationsPrefix(50..<100)
        expectSame(Array(requests[1].body.prefix(locations.count)), locations, "first send")
        expectSame(Array(requests[2].body.prefix(locations.count)), locations, "resend")
        #expect(requests[1].bodyText.hasSuffix(#","current":"# + fixture.text(159) + "}"))
        #expect(requests[2].bodyText.hasSuffix(#","current":"# + fixture.text(169) + "}"))
    }

    /// A long backlog drains exactly once, in order, intact; the timing is printed, not asserted.
    @Test func hundredThousandPointsDeliveredExactlyOnceInOrder() async throws {
        var policy = JournalPolicy()
        policy.commitLevel = 1
        // One active segment: sealing would re-check every line, slow in a debug build.
        policy.segmentMaxBytes = 128 << 20
        let count = 100_000
        let fixtureStart = ContinuousClock.now
        let fixture = try JournalFixture(policy: policy)
        for index in 0..<count {
            try fixture.append(line: JournalFixture.point(index).jsonLine())
        }
        try fixture.commit()
        let fixtureTime = ContinuousClock.now - fixtureStart

        let server = try LocalServer()
        defer { server.stop() }
        var configuration = SyncConfiguration.test(server)
        configuration.batchSize = 1000
        configuration.keepSentSeconds = nil
        let started = ContinuousClock.now
        let report = try await sync(fixture, configuration)
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("sync: \(count) points in \(elapsed) (\(Int(Double(count) / seconds)) points/s, debug build; journal written in \(fixtureTime))")

        #expect(report.outcome == .delivered)
        #expect(report.sentRecords == count)
        #expect(report.batches == 100)
        #expect(fixture.cursor == UInt64(count))
        let requests = server.requests
        #expect(requests.count == 100)
        let newest = Array(#","current":"#.utf8) + fixture.lines[count - 1] + Array("}".utf8)
        var mismatches = 0
        for (index, request) in requests.enumerated() {
            let start = index * 1000
            let prefix = fixture.locationsPrefix(start..<min(start + 1000, count))
            // `current` rides along while more than 2 x 1000 points remain unsent.
            let expected = prefix + (count - start > 2000 ? newest : Array("}".utf8))
            if !equalBytes(request.body, expected) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }
}
