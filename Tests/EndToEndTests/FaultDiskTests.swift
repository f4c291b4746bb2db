import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Real file-system faults: a full disk (a small tmpfs), a read-only journal (a read-only
/// bind mount; as root, modes alone do not stop writes), an immutable journal (chattr +i),
/// and permission denied (the tools run as `nobody` on root's journal). Each gives a clear
/// error, loses nothing committed, and recovers when the fault is gone.
///
/// Kept as a skip where mount(2) is not allowed (not root, no CAP_SYS_ADMIN in a container):
/// no package can give that. Every tool these tests use is required (a failure when missing).
@Suite(.enabled(if: FaultTools.canMount, "needs root and mount(2) (tmpfs, bind mounts): no install can give that"))
struct FaultDiskTests {
    /// Fills a file system with a ballast file until a write fails; returns the file.
    static func fill(_ directory: String) -> String {
        let ballast = directory + "/ballast"
        let fd = open(ballast, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let chunk = [UInt8](repeating: 0x55, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress!, $0.count) }) > 0 {}
        // The last partial block too.
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress!, 1) }) > 0 {}
        close(fd)
        return ballast
    }

    /// The logger reading a file onto a disk that fills: exit 74, one line per failed
    /// commit naming the file, a journal that verifies with a prefix of the points; after
    /// the disk grows, the rest is logged and nothing is missing or doubled.
    @Test func fullDiskWithAFileInput() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-disk")
        let disk = sandbox.directory.appending("disk")
        mkdir(disk, 0o700)
        try FaultTools.mount(["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", disk])
        defer { FaultTools.unmount(disk) }
        let journal = disk + "/journal"
        let total = 12_000
        let input = try sandbox.file("drive.nmea", SyntheticDrive.text(0..<total))

        let full = try sandbox.log.run(["--journal", journal, "--device-id", "reliability", "--commit-interval", "0", input])
        full.expectExit(74)
        let lines = full.stderrLines
        #expect(lines.last == "overland-log: points not yet written remain unsaved: the journal cannot be written", "\(lines.suffix(2))")
        for line in lines.dropLast() {
            #expect(line.hasPrefix("overland-log: ") && line.contains("'\(journal)/") && line.contains("no space left on device")
                    && line.hasSuffix("points are kept in memory and written again at the next commit"), "\(line)")
        }
        #expect(lines.count >= 2)
        let verify = try sandbox.verify(journal)
        #expect(verify.succeeded, "\(verify)")
        let (records, issues) = try sandbox.records(journal)
        #expect(issues.isEmpty, "\(issues)")
        let kept = JournalInvariant.check(records, context: "disk full")
        #expect(kept == Array(0..<kept.count) && kept.count > 100 && kept.count < total, "\(kept.count) points kept")
        #expect(ReliabilitySandbox.files(under: journal + "/segments").allSatisfy { !$0.hasPrefix(".tmp-") })

        // Space comes back: the rest is logged after what is there.
        try FaultTools.mount(["-o", "remount,size=16m", disk])
        let rest = try sandbox.file("rest.nmea", SyntheticDrive.text(kept.count..<total))
        let resumed = try sandbox.log.run(["--journal", journal, "--device-id", "reliability", rest])
        #expect(resumed.succeeded, "\(resumed)")
        let all = JournalInvariant.check(try sandbox.records(journal).records, context: "after the disk grew")
        #expect(all == Array(0..<total), "\(all.count) of \(total)")
        #expect(try sandbox.verify(journal).succeeded)
        Torture.checkPermissions(journal)
        Figures.record("faults: full disk (64 KiB tmpfs), overland-log from a file", "runs into ENOSPC, then the disk grows", 1)
        Figures.record("faults: full disk (64 KiB tmpfs), overland-log from a file", "failed commits reported", lines.count - 1)
    }

    /// The live logger on a full disk keeps its points in memory, says so, and writes them
    /// at the next commit once space is freed: every point, once, in order, exit 0.
    @Test func fullDiskWhileLoggingLive() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-disk")
        let disk = sandbox.directory.appending("disk")
        mkdir(disk, 0o700)
        try FaultTools.mount(["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", disk])
        defer { FaultTools.unmount(disk) }
        let journal = disk + "/journal"
        try sandbox.logEpochs(0..<20, journal: journal)
        let ballast = Self.fill(disk)

        let fifo = try ReliabilityFIFO(path: sandbox.directory.appending("input.fifo"))
        let child = try fifo.start(sandbox.log, ["--journal", journal, "--device-id", "reliability", "--commit-interval", "0.05"])
        // Feed until the disk refuses a commit (the segment's last page may still have room):
        // after each 200 points, wait for their commit, which either grows the journal or
        // is refused.
        let full = "no space left on device"
        var next = 20
        while !child.stderrSoFar.contains(full) && next < 20_000 {
            let before = Self.segmentBytes(journal)
            fifo.write(SyntheticDrive.text(next..<next + 200))
            next += 200
            #expect(child.waitUntil { child.stderrSoFar.contains(full) || Self.segmentBytes(journal) > before }, "no commit after \(next) points")
        }
        let failures = child.stderrSoFar
        #expect(failures.contains("no space left on device") && failures.contains("'\(journal)/")
                && failures.contains("points are kept in memory"), "\(failures)")
        #expect(child.isRunning, "the logger keeps running on a full disk")
        // More points while the disk is full, then space comes back.
        let refusals = failures.components(separatedBy: full).count - 1
        fifo.write(SyntheticDrive.text(next..<next + 100))
        next += 100
        #expect(child.waitForStderr(containing: full, count: refusals + 1), "their commit is refused too")
        try FileManager.default.removeItem(atPath: ballast)
        fifo.write(SyntheticDrive.text(next..<next + 100))
        next += 100
        fifo.close()
        let result = child.wait()
        #expect(result.succeeded, "\(result)")
        let epochs = JournalInvariant.check(try sandbox.records(journal).records, context: "after space came back")
        #expect(epochs == Array(0..<next), "\(epochs.count) of \(next)")
        #expect(try sandbox.verify(journal).succeeded)
        Torture.checkPermissions(journal)
        let failedCommits = failures.split(separator: "\n").count
        Figures.record("faults: full disk while logging live, then space freed", "live runs", 1)
        Figures.record("faults: full disk while logging live, then space freed", "failed commits, points kept and written later", failedCommits)
    }

    /// The bytes of a journal's segments: what a commit that reached the disk added to.
    static func segmentBytes(_ journal: String) -> Int {
        ReliabilitySandbox.files(under: journal + "/segments").reduce(0) { total, name in
            var info = stat()
            return total + (stat(journal + "/segments/" + name, &info) == 0 ? Int(info.st_size) : 0)
        }
    }

    /// A read-only journal (a read-only bind mount): the logger exits 74 with a clear
    /// message, at once even on a live input; reading commands work; the sync sends but
    /// cannot move the cursor, says so, and finishes when the journal is writable again.
    @Test func readOnlyJournal() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-readonly")
        let server = try LocalServer()
        let writable = sandbox.directory.appending("rw")
        let readOnly = sandbox.directory.appending("ro")
        mkdir(writable, 0o700)
        mkdir(readOnly, 0o700)
        try sandbox.logEpochs(0..<200, journal: writable + "/journal")
        try sandbox.writeSettings(#"{"main": {"batch_size": 50}}"#)
        // A first sync, so that the state directory exists and a cursor is there: one
        // batch, whatever the machine's speed (the second request is refused).
        let once = try LocalServer { index, _ in index == 0 ? LocalServer.ok() : LocalServer.text(503, "busy") }
        let first = try sandbox.sync.run(["--journal", writable + "/journal", "--url", once.url, "--now"],
                                         environment: SyncCrashTests.environment)
        first.expectExit(75)
        let cursor = try sandbox.cursor(writable + "/journal")
        #expect(cursor == 50)
        let before = try sandbox.records(writable + "/journal").records

        try FaultTools.mount(["--bind", writable, readOnly])
        defer { FaultTools.unmount(readOnly) }
        try FaultTools.mount(["-o", "remount,bind,ro", readOnly])
        let journal = readOnly + "/journal"

        let fromFile = try sandbox.log.run(["--journal", journal, "--device-id", "reliability",
                                            try sandbox.file("more.nmea", SyntheticDrive.text(200..<220))])
        fromFile.expectExit(74)
        #expect(fromFile.stderrLines.first?.contains("read-only file system") == true
                && fromFile.stderrLines.first?.contains("'\(journal)") == true, "\(fromFile.stderrText)")

        // Live: no waiting for input that can never be written.
        let fifo = try ReliabilityFIFO(path: sandbox.directory.appending("input.fifo"))
        let live = try fifo.start(sandbox.log, ["--journal", journal, "--device-id", "reliability"])
        fifo.write(SyntheticDrive.text(200..<210))
        let liveResult = live.wait()
        fifo.close()
        #expect(liveResult.exitStatus == 74 && !liveResult.timedOut, "a live logger on a read-only journal: \(liveResult)")
        #expect(liveResult.stderrText.contains("read-only file system"), "\(liveResult.stderrText)")

        for command in [["journal", "verify"], ["journal", "stats"], ["status"]] {
            let result = try sandbox.overland.run(command + ["--journal", journal])
            #expect(result.succeeded, "\(command): \(result)")
        }
        let dryRun = try sandbox.sync.run(["--journal", journal, "--url", server.url, "--dry-run"], environment: SyncCrashTests.environment)
        #expect(dryRun.succeeded && dryRun.stdoutText.hasPrefix("POST "), "\(dryRun)")
        for command in [["journal", "seal"], ["journal", "repair"]] {
            let result = try sandbox.overland.run(command + ["--journal", journal])
            #expect(result.exitStatus == 74 && result.stderrText.contains("read-only file system"), "\(command): \(result)")
        }

        server.clearRequests()
        let sync = try sandbox.sync.run(["--journal", journal, "--url", server.url, "--now"], environment: SyncCrashTests.environment)
        sync.expectExit(74)
        #expect(sync.stderrLines.count == 1 && sync.stderrText.contains("read-only file system")
                && sync.stderrText.contains("'\(journal)"), "\(sync.stderrText)")
        #expect(server.requests.count <= 1, "\(server.requests.count) requests from a journal whose cursor cannot move")
        #expect(try sandbox.cursor(journal) == cursor)
        #expect(try sandbox.records(journal).records == before)

        // Writable again: the drain finishes, the batch in flight at most sent twice.
        let drained = try sandbox.sync.run(["--journal", writable + "/journal", "--url", server.url, "--now"],
                                           environment: SyncCrashTests.environment)
        #expect(drained.succeeded, "\(drained)")
        let lines = before.map(\.line)
        let delivery = Delivery(requests: server.requests, lines: Array(lines))
        #expect(delivery.batches.first?.range.lowerBound == 50)
        var next = 50
        for batch in delivery.batches where batch.range.lowerBound == next { next = batch.range.upperBound }
        #expect(next == 200 && delivery.batches.count <= 4, "\(delivery.batches.map(\.range))")
        try sandbox.logEpochs(200..<220, journal: writable + "/journal")
        #expect(JournalInvariant.check(try sandbox.records(writable + "/journal").records, context: "writable") == Array(0..<220))
        Figures.record("faults: read-only journal (bind mount)", "commands run against it", 9)
    }

    /// chattr +i (immutable segments and directories): as root the only way to refuse a
    /// write without a mount. Clear error, nothing lost; after chattr -i the logger goes on.
    @Test func immutableJournal() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-immutable")
        try sandbox.logEpochs(0..<50)
        let before = try sandbox.records().records
        let chattr = ToolRunner(executable: try SystemTool.require("chattr"))
        let targets = [sandbox.journal + "/segments"] + ReliabilitySandbox.files(under: sandbox.journal + "/segments")
            .map { sandbox.journal + "/segments/" + $0 }
        let set = try chattr.run(["+i"] + targets)
        guard set.succeeded else {
            // Kept: the file system under $TMPDIR has no immutable flag (tmpfs, overlayfs),
            // which no package can add. Anything else chattr says is a failure.
            let unsupported = set.stderrText.contains("Operation not supported") || set.stderrText.contains("Inappropriate ioctl")
            #expect(unsupported, "chattr +i: \(set)")
            return
        }
        defer { _ = try? chattr.run(["-i"] + targets) }
        let result = try sandbox.log.run(["--journal", sandbox.journal, "--device-id", "reliability",
                                          try sandbox.file("more.nmea", SyntheticDrive.text(50..<60))])
        // An immutable file is EPERM, not EACCES: an I/O failure (74), not a permission to fix (77).
        result.expectExit(74)
        #expect(result.stderrLines.first?.contains("operation not permitted") == true
                && result.stderrLines.first?.contains("'\(sandbox.journal)/segments/") == true, "\(result.stderrText)")
        #expect(try sandbox.records().records == before)
        #expect(try sandbox.verify().succeeded)
        _ = try chattr.run(["-i"] + targets)
        try sandbox.logEpochs(50..<60)
        #expect(JournalInvariant.check(try sandbox.records().records, context: "after chattr -i") == Array(0..<60))
        Figures.record("faults: immutable journal (chattr +i)", "runs refused, then resumed", 1)
    }

    /// Root's journal (0700) and `nobody`: every command says "permission denied", names
    /// the path and exits 77; nothing is changed.
    @Test(.enabled(if: FaultTools.canBecomeNobody, "needs root to switch to nobody (no install can give that)"))
    func permissionDenied() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-permission")
        chmod(sandbox.directory.path, 0o755)
        try sandbox.logEpochs(0..<40)
        let before = try sandbox.records().records
        let listing = ReliabilitySandbox.files(under: sandbox.journal)
        // nobody's own home and settings directory.
        let home = sandbox.directory.appending("nobody")
        mkdir(home, 0o755)
        chown(home, 65534, 65534)
        let input = try sandbox.file("more.nmea", SyntheticDrive.text(40..<50))
        chmod(input, 0o644)
        let server = try LocalServer()
        let environment: [String: String?] = ["HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data",
                                              "OVERLAND_TOKEN": SyncCrashTests.token]
        let asNobody = try FaultTools.asNobody()
        let commands: [(String, [String])] = [
            ("overland-log", ["--journal", sandbox.journal, input]),
            ("overland", ["journal", "verify", "--journal", sandbox.journal]),
            ("overland", ["journal", "stats", "--journal", sandbox.journal]),
            ("overland", ["status", "--journal", sandbox.journal]),
            ("overland", ["journal", "repair", "--journal", sandbox.journal]),
            ("overland-sync", ["--journal", sandbox.journal, "--url", server.url, "--now"]),
            ("overland-sync", ["--journal", sandbox.journal, "--url", server.url, "--dry-run"]),
        ]
        for (tool, arguments) in commands {
            var runner = ToolRunner(executable: asNobody[0])
            runner.environment = sandbox.environment.merging(environment) { $1 }
            let result = try runner.run(Array(asNobody.dropFirst()) + [ToolRunner(product: tool).executable] + arguments)
            let shown = "\(tool) \(arguments.prefix(2).joined(separator: " "))"
            #expect(result.exitStatus == 77, "\(shown): \(result)")
            #expect(result.stderrLines.count == 1 && result.stderrText.contains("permission denied")
                    && result.stderrText.contains("'\(sandbox.journal)"), "\(shown): \(result.stderrText)")
        }
        #expect(server.requests.isEmpty)
        #expect(try sandbox.records().records == before)
        #expect(ReliabilitySandbox.files(under: sandbox.journal) == listing)
        #expect(try sandbox.verify().succeeded)
        Torture.checkPermissions(sandbox.journal)
        Figures.record("faults: permission denied (tools as nobody on root's journal)", "commands refused with exit 77", commands.count)
    }
}
