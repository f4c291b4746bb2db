@testable import OverlandLogger
import Testing

/// Issue 21: a gpsd that accepts and closes got 5,481 connections in 5 s and 10,962 log
/// lines. The reconnection rule, with its clock and sleep injected: no test sleeps.
@Suite struct ReconnectBackoffTests {
    @Test func waitsDoubleFromHalfASecondToThirtySeconds() {
        var backoff = ReconnectBackoff(openedAt: 0)
        #expect(backoff.ended() == .lost)
        #expect((0..<10).map { _ in backoff.nextDelay() } == [0.5, 1, 2, 4, 8, 16, 30, 30, 30, 30])
    }

    @Test func aGPSDThatAcceptsAndClosesIsToldOnceAndTriedEverLessOften() {
        let clock = FakeClock()
        var backoff = ReconnectBackoff(openedAt: clock.now)
        var events: [ReconnectBackoff.Event] = []
        var connections = 0
        // Each connection opens, reads gpsd's banner (no fix) and ends at once.
        while clock.now < 1000 + 300 {
            if let event = backoff.ended() { events.append(event) }
            let fd = backoff.reopen(now: { clock.now }, sleep: clock.sleep, shouldStop: { false }, open: {
                connections += 1
                return 3
            })
            #expect(fd == 3)
            if let event = backoff.observe(fix: false, at: clock.now) { events.append(event) }
        }
        #expect(events == [.lost], "said once, not per connection")
        // 0.5 + 1 + ... + 16 = 31.5 s for the first 6, then one every 30 s.
        #expect(connections == 6 + Int(((300 - 31.5) / 30).rounded(.up)))
        #expect(clock.sleeps.prefix(8) == [0.5, 1, 2, 4, 8, 16, 30, 30])
    }

    @Test func aReopenedInputIsBackWithItsFirstFixAndTheWaitsStartAgain() {
        let clock = FakeClock()
        var backoff = ReconnectBackoff(openedAt: clock.now)
        #expect(backoff.ended() == .lost)
        var tries = 0
        // gpsd restarting: refused 3 times, then it accepts.
        let fd = backoff.reopen(now: { clock.now }, sleep: clock.sleep, shouldStop: { false }, open: {
            tries += 1
            return tries > 3 ? 7 : nil
        })
        #expect(fd == 7 && clock.sleeps == [0.5, 1, 2, 4])
        #expect(backoff.observe(fix: false, at: clock.now + 1) == nil, "no fix yet, not settled")
        #expect(backoff.observe(fix: true, at: clock.now + 2) == .back)
        #expect(backoff.observe(fix: true, at: clock.now + 3) == nil, "said once")
        #expect(backoff.ended() == .lost)
        #expect(backoff.nextDelay() == 0.5, "a working input lost again is tried again soon")
    }

    @Test func aConnectionThatStaysOpenWithoutFixesIsBackAfterThirtySeconds() {
        var backoff = ReconnectBackoff(openedAt: 0)
        _ = backoff.ended()
        _ = backoff.nextDelay()
        backoff.opened(at: 100)
        #expect(backoff.observe(fix: false, at: 129.9) == nil)
        #expect(backoff.observe(fix: false, at: 130) == .back)
    }

    @Test func aStopEndsTheWaitWithoutAnotherTry() {
        let clock = FakeClock()
        var backoff = ReconnectBackoff.waiting()
        var tries = 0
        var stop = false
        let fd = backoff.reopen(now: { clock.now }, sleep: { clock.sleep($0); if clock.sleeps.count == 3 { stop = true } },
                                shouldStop: { stop }, open: { () -> Int32? in
            tries += 1
            return nil
        })
        #expect(fd == nil && tries == 2 && clock.sleeps == [0.5, 1, 2])
    }

    @Test func aSerialPortIsLookedForTwiceASecond() {
        var backoff = ReconnectBackoff(openedAt: 0, longestWait: ReconnectBackoff.first)
        _ = backoff.ended()
        #expect((0..<5).map { _ in backoff.nextDelay() } == [0.5, 0.5, 0.5, 0.5, 0.5])
    }

    @Test(arguments: [
        ("[::1", false), ("[::1]", true), ("[::1]:2947", true), ("::1", true), ("localhost", true), ("gps.local:2948", true),
        (":2947", true), ("host:0", false), ("host:70000", false), ("[::1]x", false), ("ho st", false), ("a/b", false),
        ("user@host", false), ("[]", true), ("host]", false),
    ])
    func gpsdAddresses(text: String, valid: Bool) {
        #expect((GPSDClient(text) != nil) == valid, "\(text)")
    }
}
