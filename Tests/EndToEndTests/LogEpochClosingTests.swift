import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A live point reaches the journal in the commit after its last sentence, not one epoch
/// later: the logger learns the receiver's cycle-ending sentence and completes a cycle when
/// the input goes quiet. Generated epochs (no capture needed).
@Suite("overland-log: epoch closing")
struct LogEpochClosingTests {
    /// Fixes, a pause longer than the commit window, `kill -9`: the last fix is there.
    @Test func lastFixBeforeAPauseSurvivesKillNine() throws {
        let sandbox = try LogSandbox()
        let fifo = try sandbox.fifo()
        let child = try sandbox.startLogging(["--device-id", "pause", "--commit-interval", "5"], from: fifo)
        fifo.write(GeneratedNMEA.epochs(0..<20))
        fifo.waitUntilRead(settle: 0)
        logSleep(6.5)
        #expect(child.isRunning)
        child.kill(SIGKILL)
        _ = child.wait()
        fifo.close()
        let times = try sandbox.records().map(\.timestamp)
        #expect(times == (0..<20).map { GeneratedNMEA.time($0) })
    }

    /// Once the ender (VTG here) is learned, a fix is emitted as its epoch's last sentence
    /// arrives: with a short commit interval it is in the journal well before the next epoch.
    @Test func liveFixIsCommittedWithoutWaitingForTheNextEpoch() throws {
        let sandbox = try LogSandbox()
        let fifo = try sandbox.fifo()
        let child = try sandbox.startLogging(["--commit-interval", "0"], from: fifo)
        fifo.write(GeneratedNMEA.epochs(0..<3))
        let clock = ContinuousClock()
        let started = clock.now
        var count: UInt64 = 0
        while clock.now - started < .seconds(10) {
            count = sandbox.recordCount()
            if count >= 3 { break }
            logSleep(0.02)
        }
        #expect(count == 3, "all three epochs committed with the input still open")
        // The ender closes the third epoch at once; the quiet interval (1 s until the rate is
        // known) would be the fallback. Either way well under the next epoch plus the window.
        #expect(clock.now - started < .seconds(3))
        fifo.close()
        let result = child.wait()
        #expect(result.succeeded, "\(result)")
        #expect(try sandbox.records().map(\.timestamp) == (0..<3).map { GeneratedNMEA.time($0) })
    }

    /// gpsd JSON on a live stream: the last TPV before a pause is committed too.
    @Test func lastGPSDReportBeforeAPauseIsCommitted() throws {
        let sandbox = try LogSandbox()
        let fifo = try sandbox.fifo()
        let child = try sandbox.startLogging(["--commit-interval", "1"], from: fifo)
        for second in 0..<5 {
            fifo.write("{\"class\":\"TPV\",\"mode\":3,\"time\":\"2024-06-09T00:06:5\(second).000Z\",\"lat\":44.0688,\"lon\":-121.3141,\"alt\":1109.2}\n")
        }
        fifo.waitUntilRead(settle: 0)
        var count: UInt64 = 0
        let clock = ContinuousClock()
        let started = clock.now
        while clock.now - started < .seconds(8) {
            count = sandbox.recordCount()
            if count >= 5 { break }
            logSleep(0.05)
        }
        #expect(count == 5)
        child.kill(SIGKILL)
        _ = child.wait()
        fifo.close()
    }
}
