import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Cursor durability by time, not by batch (issue 25): the real `overland-sync` draining
/// 120 batches to a loopback server under `strace -f -y -e trace=fsync,fdatasync` makes
/// the cursor durable at most once a second and at the end of the run, where it fsynced
/// it (and its directory) after every batch before. A kill -9 still resends at most the
/// batch in flight: SyncCrashTests (every batch's fault points, random kills).
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
        let ofCursor = calls.filter { $0.path?.hasSuffix("/cursor.json") == true }.count
        let ofJournalDirectory = calls.filter { $0.path == sandbox.journal }.count
        // One durable point a second, whole or begun, and the one at the end: a bound by the
        // run's own measured time, not a deadline.
        let seconds = Int(elapsed.components.seconds) + 1
        #expect(ofCursor >= 1, "the end of the run makes the cursor durable")
        #expect(ofCursor <= seconds + 1, "\(ofCursor) fsyncs of cursor.json in \(elapsed) for \(batches) batches")
        #expect(ofJournalDirectory <= seconds + 1, "\(ofJournalDirectory) fsyncs of the journal directory in \(elapsed)")
        // Each batch's replacement still fsyncs its temporary file before the rename (else a
        // power cut can leave an empty cursor: journal-sim seed 1096); the rest is paced.
        #expect(calls.count <= batches + 2 * (seconds + 1) + 12, "\(calls.count) fsyncs in all, in \(elapsed): \(calls.map(\.line).prefix(20))")
        Figures.record("sync: durability by time", "batches", batches)
        Figures.record("sync: durability by time", "fsyncs of cursor.json", ofCursor)
        Figures.record("sync: durability by time", "fsyncs in all", calls.count)
    }
}
