import TestSupport
import Foundation
import OverlandJournal
import OverlandSync
import Testing

/// The destination seam without HTTP: the schedule every destination shares
/// (`SyncDestination`) and the run over several (`DestinationsRun`), with senders that only
/// move their cursor.
@Suite struct DestinationSeamTests {
    /// A destination of no carrier: the shared rules only.
    struct Scheduled: SyncDestination {
        let journal: Journal
        var cursorName = CursorName.default
        var receiverFingerprint: String
        var sendIntervalSeconds: Int? = 300
        let timing: SyncTiming

        init(_ fixture: JournalFixture, fingerprint: String, clock: TestClock) {
            journal = fixture.journal
            receiverFingerprint = fingerprint
            timing = SyncTiming(wallClock: { clock.now }, random: { 0.5 })
        }
    }

    /// A failure against one receiver holds a run to it; another url or token is tried at
    /// once, with the note, past the backoff and the send interval; sending off still holds.
    @Test func aChangedReceiverIsTriedAtOnce() throws {
        let fixture = try JournalFixture(points: 3)
        let clock = TestClock()
        let first = Scheduled(fixture, fingerprint: SyncState.fingerprint(url: "mqtt://a", token: "t"), clock: clock)
        var state = SyncState()
        first.recordDelivery(&state)
        first.recordFailure(&state, message: "refused")
        var report = SyncReport(outcome: .refused(status: 0))
        first.saveState(state, into: &report)
        #expect(report.warnings.isEmpty)
        #expect(state.failuresAgainst == first.receiverFingerprint && state.nextAttempt == clock.now + 60)

        clock.advance(5)
        guard case .held(let held, let opened) = first.begin(sendNow: false) else { Issue.record("not held"); return }
        #expect(held.outcome == .backingOff(until: clock.now + 55) && !opened.destinationChanged)
        #expect(first.finish(held, opened).warnings.isEmpty)

        let fixed = Scheduled(fixture, fingerprint: SyncState.fingerprint(url: "mqtt://a", token: "right"), clock: clock)
        guard case .due(let due) = fixed.begin(sendNow: false) else { Issue.record("not due"); return }
        #expect(due.destinationChanged && due.state.consecutiveFailures == 0 && due.state.nextAttempt == nil)
        #expect(fixed.finish(SyncReport(outcome: .delivered), due).warnings == [SyncReport.destinationChangedNote])

        var off = fixed
        off.sendIntervalSeconds = nil
        guard case .held(let sendingOff, let offOpened) = off.begin(sendNow: false) else { Issue.record("not held"); return }
        #expect(sendingOff.outcome == .sendingOff && off.finish(sendingOff, offOpened).warnings.isEmpty)
    }

    /// An empty token is no token: the fingerprint the sync records is the one
    /// `overland status` computes.
    @Test func theFingerprintIgnoresAnEmptyToken() {
        #expect(SyncState.fingerprint(url: "http://h/", token: "") == SyncState.fingerprint(url: "http://h/", token: nil))
        #expect(SyncState.fingerprint(url: "http://h/", token: "a") != SyncState.fingerprint(url: "http://h/", token: nil))
    }

    /// A sender that acknowledges `take` records by moving its cursor.
    struct Moving: DestinationSender {
        let name: CursorName
        var take: UInt64 = 0
        var refusal: String?

        func run(journal: Journal, holding lock: JournalLock, sendNow: Bool, onIssue: JournalIssueHandler?) async -> SyncReport {
            do {
                let from = try journal.cursor(for: name)
                try CursorWrites.advance(journal, name, to: from + take)
            } catch {
                return SyncReport(outcome: .journalError(error))
            }
            var report = SyncReport(outcome: take > 0 ? .delivered : .nothingToSend)
            report.sentRecords = Int(take)
            return report
        }

        func preview(journal: Journal, onIssue: JournalIssueHandler?) throws -> DestinationPreview { .summary("moves \(take)") }
    }

    /// Every destination runs, in order; a refused one reports its refusal without
    /// running; `afterDrain` hears each destination's acknowledged range under that
    /// destination's own lock, the journal's let go (another run may send to others).
    @Test func aRunSendsToEveryDestinationAndHandsOnWhatWasAcknowledged() async throws {
        let fixture = try JournalFixture(points: 10)
        let a = try #require(CursorName("a"))
        let b = try #require(CursorName("b"))
        let c = try #require(CursorName("c"))
        try fixture.journal.advanceCursor(for: b, to: 2)
        var run = DestinationsRun(journal: fixture.journal,
                                  destinations: [Moving(name: a, take: 4), Moving(name: b, take: 3), Moving(name: c, take: 5, refusal: "bad url")],
                                  readers: [a, b, c], keepSentSeconds: nil)
        let heard = Locked<[String: Range<UInt64>]>([:])
        run.afterDrain = { drained in
            // The journal's lock is free; the destination's is the run's.
            let journalLock = try? drained.journal.tryLockCursors()
            let own = try? drained.journal.tryLock(DestinationsRun.destinationLockName(drained.destination.name))
            heard.withLock { $0[drained.destination.name.text] = journalLock != nil && own == nil ? drained.acknowledged : 0..<0 }
            var report = drained.report
            report.warnings.append("read back")
            return report
        }
        let outcome = await run.run(sendNow: false)
        try #require(outcome.reports.count == 3)
        #expect(outcome.reports.map(\.name) == [a, b, c])
        #expect(outcome.reports[0].report.sentRecords == 4 && outcome.reports[1].report.sentRecords == 3)
        #expect(outcome.reports[2].report.outcome == .configurationError && outcome.reports[2].report.message == "bad url")
        #expect(outcome.reports[0].report.warnings == ["read back"])
        #expect(heard.current == ["a": 0..<4, "b": 2..<5])
        #expect(try fixture.journal.cursor(for: c) == 0)
    }
}
