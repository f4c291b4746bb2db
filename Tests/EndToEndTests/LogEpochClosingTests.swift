import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A live point reaches the journal while the input stays open, not at its end: the logger
/// learns the receiver's cycle-ending sentence and completes a cycle when the input goes
/// quiet. Generated epochs (no capture needed). How soon, on the clock, is
/// OverlandLoggerTests.LogReaderTests' (a fake clock); here, that it happens in the process.
@Suite("overland-log: epoch closing")
struct LogEpochClosingTests {
    /// Fixes, then a pause: the last fix is committed during the pause, and survives `kill -9`.
    @Test func lastFixBeforeAPauseSurvivesKillNine() throws {
        let sandbox = try LogSandbox()
        let fifo = try sandbox.fifo()
        let child = try sandbox.startLogging(["--device-id", "pause", "--commit-interval", "1"], from: fifo)
        fifo.write(GeneratedNMEA.epochs(0..<20))
        #expect(waitUntil { sandbox.recordCount() >= 20 || !child.isRunning })
        #expect(child.isRunning)
        child.kill(SIGKILL)
        _ = child.wait()
        fifo.close()
        let times = try sandbox.records().map(\.timestamp)
        #expect(times == (0..<20).map { GeneratedNMEA.time($0) })
    }

    /// With `--commit-interval 0` each epoch is committed with the input still open.
    @Test func liveFixIsCommittedWithTheInputOpen() throws {
        let sandbox = try LogSandbox()
        let fifo = try sandbox.fifo()
        let child = try sandbox.startLogging(["--commit-interval", "0"], from: fifo)
        fifo.write(GeneratedNMEA.epochs(0..<3))
        #expect(waitUntil { sandbox.recordCount() >= 3 || !child.isRunning })
        #expect(child.isRunning, "the input is still open")
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
        #expect(waitUntil { sandbox.recordCount() >= 5 || !child.isRunning })
        #expect(sandbox.recordCount() == 5)
        child.kill(SIGKILL)
        _ = child.wait()
        fifo.close()
    }
}
