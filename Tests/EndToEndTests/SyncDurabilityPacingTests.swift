import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Cursor durability by time, not by batch (issue 25): the real `overland-sync` draining
/// 120 batches to a loopback server under `strace -f -y -e trace=fsync,fdatasync` records
/// each acknowledgement in the destination's progress record (overwritten in place, no
/// fsync) and writes the cursor file (its content fsynced before the rename, then the
/// directory) at most once a second and at the end of the run, where it fsynced a new
/// cursor file after every batch before (journal-format.md section 9). A kill -9 still
/// resends at most the batch in flight: SyncCrashTests (every batch's fault points, random
/// kills).
@Suite(.enabled(if: !FaultTools.ptraceDenied, FaultTools.ptraceDeniedReason))
struct SyncDurabilityPacingTests {
    @Test func aDrainFsyncsTheCursorAtMostOnceASecond() throws {
        let points = 6_000
        let batches = points / 50
        let sandbox = try SyncCrashTests.prepare(points: points)
        let server = try LocalServer()
        defer { server.stop() }
        let log = sandbox.directory.appending("strace.log")
        var runner = ToolRunner(executable: try FaultTools.strace())
        runner.environment = sandbox.environment.merging(SyncCrashTests.environment) { $1 }
        let clock = ContinuousClock()
        let started = clock.now
        let result = try runner.run(["-f", "-y", "-qq", "-o", log, "-e", "trace=fsync,fdatasync", "--",
                                     sandbox.sync.executable] + SyncCrashTests.syncArguments(sandbox, server))
        let elapsed = clock.now - started
        #expect(result.succeeded, "\(result)")
        #expect(try sandbox.cursor() == UInt64(points))
        #expect(server.requests.count == batches)

        let calls = try FaultStraceTests.calls(in: log, named: ["fsync", "fdatasync"])
        let ofNewCursor = calls.filter { $0.path?.hasSuffix("/.tmp-cursor.json") == true }.count
        let ofJournalDirectory = calls.filter { $0.path == sandbox.journal }.count
        // One durable point a second, whole or begun, and the one at the end: a bound by the
        // run's own measured time, not a deadline.
        let seconds = Int(elapsed.components.seconds) + 1
        #expect(ofJournalDirectory >= 1, "the end of the run makes the cursor durable")
        #expect(ofJournalDirectory <= seconds + 1, "\(ofJournalDirectory) fsyncs of the journal directory in \(elapsed) for \(batches) batches")
        #expect(ofNewCursor >= 1 && ofNewCursor <= seconds + 1, "\(ofNewCursor) fsyncs of new cursor files in \(elapsed) for \(batches) batches")
        let ofProgress = calls.filter { $0.path?.hasSuffix("progress-default") == true }.count
        #expect(ofProgress <= seconds + 2, "\(ofProgress) fsyncs of the progress record in \(elapsed): settled once a durable point, never per batch")
        #expect(calls.count <= 4 * (seconds + 1) + 12, "\(calls.count) fsyncs in all, in \(elapsed): \(calls.map(\.line).prefix(20))")
        let progress = try #require(ProgressRecord(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: sandbox.journal + "/state/progress-default")))))
        #expect(progress.base == UInt64(points) && progress.next == UInt64(points), "settled at the end of the run: \(progress)")
        Figures.record("sync: durability by time", "batches", batches)
        Figures.record("sync: durability by time", "fsyncs of the journal directory", ofJournalDirectory)
        Figures.record("sync: durability by time", "fsyncs in all", calls.count)
        Figures.record("sync: durability by time", "fsyncs of new cursor files", ofNewCursor)
    }

    /// The MQTT destination (journal-format.md section 9, "A reader that pipelines") records
    /// its place every half window in its progress record and writes its cursor file at
    /// most once a second and at the end of the run: 3,000 points are 60 half windows,
    /// where it fsynced a new cursor file every half window before.
    @Test func anMQTTDrainFsyncsTheCursorAtMostOnceASecond() throws {
        let points = 3_000
        let sandbox = try ReliabilitySandbox(prefix: "overland-mqtt-pacing")
        try sandbox.logEpochs(0..<points)
        let broker = try MosquittoBroker(directory: sandbox.directory.path)
        let log = sandbox.directory.appending("strace.log")
        var runner = ToolRunner(executable: try FaultTools.strace())
        runner.environment = sandbox.environment
        let clock = ContinuousClock()
        let started = clock.now
        let result = try runner.run(["-f", "-y", "-qq", "-o", log, "-e", "trace=fsync,fdatasync", "--", sandbox.sync.executable,
                                     "--journal", sandbox.journal, "--url", "mqtt://127.0.0.1:\(broker.port)", "--now"])
        let elapsed = clock.now - started
        #expect(result.succeeded, "\(result)")
        #expect(try sandbox.cursor() == UInt64(points))
        let calls = try FaultStraceTests.calls(in: log, named: ["fsync", "fdatasync"])
        let ofNewCursor = calls.filter { $0.path?.hasSuffix("/.tmp-cursor.json") == true }.count
        let seconds = Int(elapsed.components.seconds) + 1
        #expect(ofNewCursor >= 1 && ofNewCursor <= seconds + 1, "\(ofNewCursor) fsyncs of new cursor files in \(elapsed) for \(points / 50) half windows")
        Figures.record("mqtt: durability by time", "fsyncs of new cursor files", ofNewCursor)
    }
}
