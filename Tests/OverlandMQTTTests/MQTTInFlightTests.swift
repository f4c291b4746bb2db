import OverlandSync
import Testing

@testable import OverlandMQTT

/// The window of a drain: a month's backlog slides through it without its entries staying
/// behind, and PUBACKs in any order still find their entry after old ones are forgotten.
@Suite struct MQTTInFlightTests {
    /// Publishes `count` records one message each through a window of `window`, the PUBACKs
    /// of each batch in reverse order, recording after every batch as the sender does.
    func slide(_ count: Int, window: Int, into report: inout SyncReport) -> (MQTTInFlight, largest: Int) {
        var inFlight = MQTTInFlight(handledUpTo: 0)
        var published = 0
        var largest = 0
        var mids: [Int32] = []
        while published < count || !inFlight.isEmpty {
            while published < count, inFlight.unrecorded < window {
                let mid = Int32(published % 60_000 + 1)
                inFlight.published(mid: mid, next: UInt64(published + 1))
                mids.append(mid)
                published += 1
            }
            // The oldest third of what waits is acknowledged, newest first.
            let batch = max(1, mids.count / 3)
            for mid in mids.prefix(batch).reversed() { inFlight.acknowledge(mid) }
            mids.removeFirst(batch)
            inFlight.advance(&report)
            inFlight.recordedHead = inFlight.head
            largest = max(largest, inFlight.pending.count)
        }
        return (inFlight, largest)
    }

    @Test func aLongBacklogKeepsFewEntries() {
        var report = SyncReport(outcome: .nothingToSend)
        let (inFlight, largest) = slide(200_000, window: 100, into: &report)
        #expect(inFlight.handledUpTo == 200_000)
        #expect(report.sentRecords == 200_000)
        // Before: every entry of the drain stayed (a window that slides is never empty).
        #expect(largest <= 2 * 4096 + 200, "\(largest) entries held")
    }

    @Test func acknowledgementsAfterForgettingFindTheirEntries() {
        var report = SyncReport(outcome: .nothingToSend)
        let (inFlight, _) = slide(10_000, window: 1000, into: &report)
        #expect(inFlight.handledUpTo == 10_000)
        #expect(report.sentRecords == 10_000)
        #expect(inFlight.isEmpty)
        #expect(inFlight.oldestPublishedAt == nil)
    }
}
