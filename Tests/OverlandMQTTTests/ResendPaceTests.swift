import Testing

@testable import OverlandMQTT

/// Resends through a broker go at a pace its subscriber can take (the OwnTracks Recorder
/// with HTTP on takes about 20 messages a second; mosquitto drops what queues past 1,000).
@Suite struct ResendPaceTests {
    @Test func messagesAreSpreadAtMostTenASecond() throws {
        var pace = ResendPace()
        let start = ContinuousClock.now
        // Asked all at once, as a resend loop whose broker acknowledges at once asks.
        let slots = (0..<25).map { _ in pace.slot(now: start) }
        #expect(slots.first == start)
        let last = try #require(slots.last)
        #expect(last - start == .milliseconds(2_400), "25 messages take 2.4 s at 10 a second")
        #expect(zip(slots, slots.dropFirst()).allSatisfy { $1 - $0 == .milliseconds(100) })
    }

    @Test func aPauseIsNotBanked() {
        var pace = ResendPace(perSecond: 20)
        let start = ContinuousClock.now
        _ = pace.slot(now: start)
        let later = start + .seconds(60)
        #expect(pace.slot(now: later) == later, "after a pause the next goes at once")
        #expect(pace.slot(now: later) == later + .milliseconds(50), "and the one after it an interval later")
        #expect(ResendPace(perSecond: 0).perSecond == 1)
    }
}
