import TestSupport
import Foundation
import OverlandJournal
import OverlandProtocol
@testable import OverlandSync
import Testing

/// The cursor's durability by time, not by batch (issue 25): the pacer on an injected
/// monotonic clock, and the engine replacing the cursor after every acknowledgement.
@Suite struct DurabilityPacerTests {
    @Test func durableAtMostOnceAnIntervalAndPendingUntilThen() {
        let clock = ManualClock()
        var pacer = DurabilityPacer(interval: .seconds(1), now: { clock.now })
        #expect(!pacer.pending)
        var durablePoints = 0
        // 40 writes 100 ms apart: 4 seconds, so 4 durable points (at 1.0, 2.0, 3.0, 4.0 s).
        for _ in 0..<40 {
            clock.advance(.milliseconds(100))
            if pacer.wrote() {
                durablePoints += 1
                pacer.madeDurable()
                #expect(!pacer.pending)
            } else {
                #expect(pacer.pending, "a write waits for its fsync")
            }
        }
        #expect(durablePoints == 4)
    }

    @Test func aWriteAfterAQuietIntervalIsMadeDurableAtOnce() {
        let clock = ManualClock()
        var pacer = DurabilityPacer(interval: .seconds(1), now: { clock.now })
        let atStart = pacer.wrote()
        #expect(!atStart, "the interval starts with the run")
        clock.advance(.seconds(5))
        let afterQuiet = pacer.wrote()
        #expect(afterQuiet)
        pacer.madeDurable()
        clock.advance(.milliseconds(999))
        let justBefore = pacer.wrote()
        #expect(!justBefore)
        clock.advance(.milliseconds(1))
        let onTheSecond = pacer.wrote()
        #expect(onTheSecond)
    }

    /// Every acknowledged batch is on disk (in the progress record, or the cursor file for
    /// the first) before the next request goes: a kill -9 at any request resends at most
    /// the batch in flight. The clock stands still, so the cursor file is written once more
    /// only at the end of the run.
    @Test func theCursorIsRecordedAfterEveryAcknowledgement() async throws {
        let fixture = try JournalFixture(points: 400)
        let configuration = SyncConfiguration.fake()
        let seen = Locked<[UInt64]>([])
        let files = Locked<[UInt64]>([])
        let transport = CursorWatchingTransport { _ in
            seen.withLock { $0.append((try? fixture.journal.cursor(for: .default)) ?? .max) }
            files.withLock { $0.append((try? fixture.journal.cursor()) ?? .max) }
        }
        let clock = ManualClock()
        let engine = SyncEngine(journal: fixture.journal, configuration: configuration, transport: transport,
                                wallClock: { 1_800_000_000 }, random: { 0.5 }, monotonicClock: { clock.now })
        let report = await engine.run(sendNow: true)
        #expect(report.outcome == .delivered, "\(report)")
        #expect(seen.current == stride(from: 0, to: 400, by: 50).map(UInt64.init))
        #expect(files.current == [0] + Array(repeating: 50, count: 7), "the first cursor is a file, the rest wait for the durable point")
        #expect(fixture.cursor == 400)
    }
}

/// Answers every request `{"result":"ok"}` after calling `onRequest` with its time-out.
struct CursorWatchingTransport: Transport {
    let onRequest: @Sendable (Duration) -> Void
    func send(_ request: SyncRequest, timeout: Duration) async throws -> HTTPReply {
        onRequest(timeout)
        return HTTPReply(status: 200, headers: [SyncRequest.Header("Content-Type", "application/json")], body: Array(#"{"result":"ok"}"#.utf8))
    }
}
