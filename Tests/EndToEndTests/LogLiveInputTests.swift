import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The logger reading a live stream (a pipe, as from `gpspipe -r`): commits on a timer,
/// commits everything on SIGTERM and SIGINT, survives `kill -9` with a usable journal, and
/// reloads its settings on SIGHUP. Standard input is a FIFO whose write end the test keeps
/// open, so that the logger's exit can only come from the signal, never from end of input.
@Suite("overland-log: live input and signals")
struct LogLiveInputTests {
    static func epochs() -> [String] { LogSamples.driveEpochs() }
    static func times(_ epochs: ArraySlice<String>) -> [Int64] { epochs.map(LogSamples.driveEpochTime) }

    @Test(arguments: [SIGTERM, SIGINT])
    func stopSignalCommitsEveryFixReadBeforeIt(signal: Int32) throws {
        let sandbox = try LogSandbox()
        let epochs = Self.epochs()
        let fifo = try sandbox.fifo()
        // A commit interval of an hour: nothing is committed but by the stop itself.
        let child = try sandbox.startLogging(["--device-id", "live", "--commit-interval", "3600", "--stats"], from: fifo)
        fifo.write(epochs[0..<120].joined())
        fifo.waitUntilRead()
        #expect(child.isRunning)
        #expect(sandbox.recordCount() == 0, "nothing committed yet")

        child.kill(signal)
        let result = child.wait()
        fifo.close()
        #expect(result.termination == .exited(0), "\(result)")
        #expect(!result.timedOut)
        // The last epoch is complete only once the stream stops: the stop completes it too.
        let records = try sandbox.records()
        #expect(records.map(\.timestamp) == Self.times(epochs[0..<120]))
        #expect(result.stderrText.contains("120 fixes, 120 points logged"), "\(result.stderrText)")
        #expect(try sandbox.overlandJournal("journal", "verify").succeeded)
    }

    @Test func commitIntervalWritesPointsWhileTheInputStaysOpen() throws {
        let sandbox = try LogSandbox()
        let epochs = Self.epochs()
        let fifo = try sandbox.fifo()
        let child = try sandbox.startLogging(["--commit-interval", "1"], from: fifo)
        fifo.write(epochs[0..<30].joined())
        // The 30th epoch stays open until the next one starts: 29 are certain. When, on the
        // clock, is LogReaderTests' (a fake clock); here, that the running logger commits.
        #expect(waitUntil { sandbox.recordCount() >= 29 || !child.isRunning })
        #expect(child.isRunning, "the logger still runs: its input is open")

        fifo.write(epochs[30..<40].joined())
        fifo.close()
        let result = child.wait()
        #expect(result.succeeded, "\(result)")
        #expect(try sandbox.records().map(\.timestamp) == Self.times(epochs[0..<40]))
    }

    /// `kill -9` in the middle of a stream: the journal opens and verifies, holds a prefix of
    /// the points exactly as a clean run writes them, and the next run appends after it.
    @Test func killNineLeavesAPrefixAndTheNextRunAppends() throws {
        let sandbox = try LogSandbox()
        let epochs = Self.epochs()
        let child = try sandbox.logger.start(["--journal", sandbox.journal, "--device-id", "kill", "--commit-interval", "0.5"],
                                             stdin: true)
        // Written as the logger reads (the pipe paces it), killed once some are committed:
        // wherever that falls in its reading, appending or committing.
        var written = 0
        while written < 1200 {
            child.writeInput(Array(epochs[written..<written + 40].joined().utf8))
            written += 40
        }
        #expect(waitUntil { sandbox.recordCount() > 0 })
        child.kill(SIGKILL)
        let killed = child.wait()
        #expect(killed.termination == .signaled(SIGKILL), "\(killed)")

        let verify = try sandbox.overlandJournal("journal", "verify")
        #expect(verify.succeeded, "\(verify)")
        let survivors = try sandbox.records()
        let count = survivors.count
        #expect(count > 0 && count <= 1200, "\(count) points survived")

        // The same points as a clean run of the whole drive, byte for byte, in order.
        let reference = try LogSandbox()
        #expect(try reference.log(["--device-id", "kill", try reference.driveFile()]).succeeded)
        let expected = try reference.records()
        #expect(survivors.map(\.line) == expected.prefix(count).map(\.line), "a prefix, no duplicates, no corruption")

        // The next run appends after the survivors what they lack (the journal's time index,
        // caught up from the records the killed run committed): sequence numbers continue,
        // and the journal ends up holding the drive once.
        let again = try sandbox.log(["--device-id", "kill", try sandbox.driveFile()])
        #expect(again.succeeded, "\(again)")
        let all = try sandbox.records()
        #expect(all.count == 5597)
        #expect(all.map(\.sequence) == (0..<UInt64(5597)).map { $0 })
        #expect(all.map(\.line) == expected.map(\.line))
        #expect(try sandbox.overlandJournal("journal", "verify").succeeded)
    }

    /// SIGHUP reloads the settings of a running logger. The file is rewritten with the same
    /// size and its modification time put back, so that the logger's own watch of the file
    /// sees no change: only the signal can make it reload.
    @Test func sighupReloadsTheSettings() throws {
        let sandbox = try LogSandbox()
        let epochs = Self.epochs()
        try sandbox.writeSettings(#"{"main": {"min_time": "1s"}}"#)
        var before = stat()
        #expect(stat(sandbox.settingsPath, &before) == 0)

        let fifo = try sandbox.fifo()
        let child = try sandbox.startLogging([], from: fifo)
        fifo.write(epochs[0..<60].joined())
        fifo.waitUntilRead()

        try sandbox.writeSettings(#"{"main": {"min_time": "5s"}}"#)
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, sandbox.settingsPath, &times, 0) == 0)
        child.kill(SIGHUP)
        // Taken (no longer pending) means reloaded: the logger reloads as it takes the signal,
        // before it reads on.
        #expect(waitUntil { !child.hasPending(SIGHUP) })
        #expect(child.isRunning, "SIGHUP does not stop the logger")
        fifo.write(epochs[60..<180].joined())
        fifo.close()
        let result = child.wait()
        #expect(result.succeeded, "\(result)")

        let logged = try sandbox.records().map(\.timestamp)
        let reloadedAt = LogSamples.driveEpochTime(epochs[59])
        // Under min_time 1s: every epoch before the reload (the 60th was still open then).
        #expect(Array(logged.prefix { $0 < reloadedAt }) == Self.times(epochs[0..<59]))
        // Under min_time 5s after it.
        let after = logged.filter { $0 >= reloadedAt }
        #expect(!after.isEmpty)
        #expect(zip(after, after.dropFirst()).allSatisfy { $1 - $0 >= 5 }, "\(after)")
        let span = LogSamples.driveEpochTime(epochs[179]) - reloadedAt
        #expect(after.count <= Int(span / 5) + 2, "\(after.count) points in \(span) s")
    }
}
