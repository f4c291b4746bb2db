import TestSupport
import Foundation
import OverlandJournal
import OverlandSync
import Testing

/// A benchmark, not a test: drain throughput to a local receiver that acknowledges without
/// parsing. It checks nothing a test does not; it is disabled unless asked for (it needs no
/// tool, only time), and meant for a release build:
///
///     OVERLAND_SYNC_BENCH=500000 swift test -c release -Xswiftc -enable-testing --filter drainThroughput
@Suite(.serialized) struct DrainBenchmark {
    static let points = ProcessInfo.processInfo.environment["OVERLAND_SYNC_BENCH"].flatMap(Int.init)

    @Test(.enabled(if: points != nil, "benchmark: set OVERLAND_SYNC_BENCH=POINTS to run it"), arguments: [1000, 200])
    func drainThroughput(batchSize: Int) async throws {
        let count = Self.points ?? 0
        var policy = JournalPolicy()
        policy.commitInterval = 3600
        let fixture = try JournalFixture(policy: policy)
        for index in 0..<count {
            try fixture.append(line: JournalFixture.point(index).jsonLine())
        }
        try fixture.commit()
        let bytes = fixture.lines.reduce(0) { $0 + $1.count }

        let server = try LocalServer(recordBodies: false)
        defer { server.stop() }
        var configuration = SyncConfiguration.test(server)
        configuration.batchSize = batchSize
        configuration.keepSentSeconds = nil
        let started = ContinuousClock.now
        let report = try await sync(fixture, configuration)
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("drain: \(count) points (\(bytes / count) bytes each) in batches of \(batchSize): \(String(format: "%.2f", seconds)) s, \(Int(Double(count) / seconds)) points/s, \(String(format: "%.0f", Double(bytes) / seconds / 1e6)) MB/s")
        #expect(report.outcome == .delivered)
        #expect(report.sentRecords == count)
        #expect(fixture.cursor == UInt64(count))
    }
}

