import TestSupport
import Foundation
import Testing
import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// Real processes killed with SIGKILL, by the test or at the library's named fault points:
/// whatever a child reported committed must survive exactly once, and the journal must
/// recover and read cleanly (journal-format.md sections 6 to 9).
@Suite struct JournalCrashTests {
    @Test func killNineLoop() throws {
        let directory = try TemporaryDirectory()
        let journal = directory.appending("journal")
        var random = SeededGenerator(seed: 0x5EED_1A4D)
        var committed: [String: Int] = [:]
        var writers: [String] = []
        for iteration in 0..<16 {
            let writer = "w\(iteration)"
            writers.append(writer)
            let child = try Torture.runner.start([
                "append", journal, "100000", "--commit-every", "7", "--writer", writer, "--segment-bytes", "3000",
            ])
            let target = Int.random(in: 1...40, using: &random)
            var lines = 0
            while lines < target {
                let (line, timedOut) = child.readLine()
                #expect(!timedOut, "no commit within 30 s: \(child.stderrSoFar)")
                guard let line else { break }
                if line.hasPrefix("committed ") { lines += 1 }
            }
            // Kill at once, or a little later, to land anywhere inside the next commit.
            let delay = Int.random(in: 0...3, using: &random)
            if delay > 0 { usleep(UInt32(delay * 300)) }
            child.kill(SIGKILL)
            let result = child.wait()
            #expect(result.termination == .signaled(SIGKILL), "\(writer): \(result)")
            #expect(!result.stderrText.contains("journal-torture:"), "\(writer): \(result.stderrText)")
            // Everything printed before the kill counts, including lines not yet read.
            committed.merge(Torture.committed(in: result.stdoutLines)) { $1 }
            #expect((committed[writer] ?? 0) >= target * 7 || lines < target)

            // Each restart recovers first; check the invariants as we go.
            let (records, issues) = try Torture.read(journal)
            #expect(issues.isEmpty, "a torn tail is not damage: \(issues)")
            Torture.check(records, committed: committed, writers: writers)
        }
        #expect(committed.values.reduce(0, +) > 0)

        let recovery = try Torture.recover(journal)
        #expect(!recovery.stderrText.contains("set aside"), "a kill is not damage: \(recovery.stderrText)")
        let (records, issues) = try Torture.read(journal)
        #expect(issues.isEmpty, "\(issues)")
        let present = Torture.check(records, committed: committed, writers: writers)
        for writer in writers {
            // A commit is all or nothing, and at most the one in flight was durable unreported.
            let extra = (present[writer] ?? 0) - (committed[writer] ?? 0)
            #expect(extra >= 0 && extra <= 7, "\(writer): \(extra) records beyond the reported commits")
        }
        #expect(try Torture.readWithCommand(journal).map(\.line) == records.map(\.line))
        let journalValue = try Journal(path: journal)
        for name in try journalValue.segments().dropLast() {
            #expect(try journalValue.isSealed(name), "\(name) left unsealed after recovery")
        }
        Torture.checkPermissions(journal)
    }

    struct FaultCase: Sendable, CustomTestStringConvertible {
        var point: String
        var nth: Int?
        /// Arguments after `append DIR`.
        var append: [String] = ["300", "--commit-every", "5", "--segment-bytes", "1500"]
        /// A temporary file is left behind at this point.
        var leavesTemporary = false

        var armed: String { nth.map { "\(point):\($0)" } ?? point }
        var testDescription: String { armed }
    }

    static let faultCases: [FaultCase] = [
        FaultCase(point: "segment.after-write", nth: nil, leavesTemporary: true),
        FaultCase(point: "segment.after-write", nth: 2, leavesTemporary: true),
        FaultCase(point: "segment.after-write", nth: 4, leavesTemporary: true),
        FaultCase(point: "append.after-write", nth: nil),
        FaultCase(point: "append.after-write", nth: 3),
        FaultCase(point: "append.after-write", nth: 25),
        FaultCase(point: "append.after-sync", nth: nil),
        FaultCase(point: "append.after-sync", nth: 17),
        FaultCase(point: "seal.after-write", nth: nil, leavesTemporary: true),
        FaultCase(point: "seal.after-write", nth: 3, leavesTemporary: true),
        FaultCase(point: "seal.after-rename", nth: nil),
        FaultCase(point: "seal.after-rename", nth: 2),
    ]

    @Test(arguments: faultCases)
    func faultPointDuringAppend(_ fault: FaultCase) throws {
        let directory = try TemporaryDirectory()
        let journal = directory.appending("journal")
        // A clean first run, so that the fault hits a journal with history.
        let first = try Torture.runner.run(["append", journal, "23", "--commit-every", "4", "--writer", "a"])
        #expect(first.succeeded, "\(first)")

        let crashed = try Torture.runner.run(["append", journal] + fault.append + ["--writer", "b"],
                                             environment: ["OVERLAND_FAULT_POINT": fault.armed])
        #expect(crashed.termination == .signaled(SIGKILL), "\(fault.armed) was not reached: \(crashed)")
        var committed = Torture.committed(in: first.stdoutLines)
        committed.merge(Torture.committed(in: crashed.stdoutLines)) { $1 }
        let segments = directory.appending("journal/segments")
        let temporary = try FileManager.default.contentsOfDirectory(atPath: segments).filter { $0.hasPrefix(".tmp-") }
        if fault.leavesTemporary {
            #expect(!temporary.isEmpty, "expected an interrupted write in segments/")
        }

        // Readers cope before any repair: what is committed reads, nothing is damage.
        let (before, issuesBefore) = try Torture.read(journal)
        Torture.check(before, committed: committed, writers: ["a", "b"])
        #expect(issuesBefore.allSatisfy { $0.kind != .damage }, "\(issuesBefore)")

        let recovery = try Torture.recover(journal)
        #expect(!recovery.stderrText.contains("set aside"), "\(recovery.stderrText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: segments).allSatisfy { !$0.hasPrefix(".tmp-") })
        let (after, issues) = try Torture.read(journal)
        #expect(issues.isEmpty, "\(issues)")
        let present = Torture.check(after, committed: committed, writers: ["a", "b"])
        #expect((present["b"] ?? 0) - (committed["b"] ?? 0) <= 5)
        #expect(present["a"] == 23)

        // The journal carries on: a third writer appends after the last number.
        let third = try Torture.runner.run(["append", journal, "12", "--commit-every", "5", "--writer", "c", "--seal"])
        #expect(third.succeeded, "\(third)")
        let (final, finalIssues) = try Torture.read(journal)
        #expect(finalIssues.isEmpty, "\(finalIssues)")
        Torture.check(final, committed: ["c": 12].merging(committed) { $1 }, writers: ["a", "b", "c"])
        #expect(Array(final.prefix(after.count)).map(\.line) == after.map(\.line))
        #expect(final.suffix(12).map(\.writer) == Array(repeating: "c", count: 12))
        let sealed = try Journal(path: journal)
        for name in try sealed.segments() {
            #expect(try sealed.isSealed(name), "\(name) is not sealed")
            let gzip = try ToolRunner(executable: "/bin/gzip").run(["-t", segments + "/" + name.fileName])
            #expect(gzip.succeeded, "gzip -t \(name): \(gzip.stderrText)")
        }
        Torture.checkPermissions(journal)
    }

    /// `journal-torture seal` (what `overland journal seal` does) killed around its rename.
    @Test(arguments: ["seal.after-write", "seal.after-rename"])
    func faultPointDuringAnExplicitSeal(point: String) throws {
        let directory = try TemporaryDirectory()
        let journal = directory.appending("journal")
        let appended = try Torture.runner.run(["append", journal, "40", "--commit-every", "3", "--writer", "s"])
        #expect(appended.succeeded, "\(appended)")
        let segment = directory.appending("journal/segments/00000000000000000000.jsonl.gz")
        let original = try Data(contentsOf: URL(fileURLWithPath: segment))

        let crashed = try Torture.runner.run(["seal", journal], environment: ["OVERLAND_FAULT_POINT": point])
        #expect(crashed.termination == .signaled(SIGKILL), "\(crashed)")
        let now = try Data(contentsOf: URL(fileURLWithPath: segment))
        // Old file or new file, never a mix.
        #expect((now == original) == (point == "seal.after-write"))
        let (records, issues) = try Torture.read(journal)
        #expect(issues.isEmpty, "\(issues)")
        Torture.check(records, committed: ["s": 40], writers: ["s"])
        #expect(records.count == 40)

        _ = try Torture.recover(journal)
        let sealAgain = try Torture.runner.run(["seal", journal])
        #expect(sealAgain.succeeded, "\(sealAgain)")
        #expect(try Journal(path: journal).isSealed(SegmentName(firstSequence: 0)))
        let (after, afterIssues) = try Torture.read(journal)
        #expect(afterIssues.isEmpty)
        #expect(after.map(\.line) == records.map(\.line))
        Torture.checkPermissions(journal)
    }

    /// A named cursor is written, then the floor: killed inside either write or between
    /// them, every reader's cursor reads as its old or new value, and the floor is never
    /// above a reader's cursor (it may stay low: a reader of version 1 resends, loses nothing).
    @Test(arguments: ["cursors.after-write", "cursors.after-rename", "cursors.after-named", "cursor.after-write",
                      "cursor.after-rename"])
    func namedCursorCrashSafety(point: String) throws {
        let directory = try TemporaryDirectory()
        let journal = directory.appending("journal")
        #expect(try Torture.runner.run(["append", journal, "50", "--commit-every", "10"]).succeeded)
        #expect(try Torture.runner.run(["advance", journal, "10"]).succeeded)
        #expect(try Torture.runner.run(["advance", journal, "5", "--reader", "b"]).succeeded)
        #expect(try Torture.runner.run(["cursor", journal]).stdoutLines == ["5"])
        #expect(try Torture.runner.run(["cursor", journal, "--reader", "default"]).stdoutLines == ["10"])

        // `b` moves ahead of `default`: the floor goes from 5 to 10 (after `b`'s write).
        for (attempt, target) in [30, 45, 50].enumerated() {
            let reader = try #require(CursorName("b"))
            let before = try Journal(path: journal)
            let old = (b: try before.cursor(for: reader), floor: try before.cursor())
            let crashed = try Torture.runner.run(["advance", journal, String(target), "--reader", "b"],
                                                 environment: ["OVERLAND_FAULT_POINT": point])
            // The floor is written only when it changes (to 10, the default reader's cursor).
            let floorWritten = point.hasPrefix("cursor.") && old.floor != min(UInt64(target), 10)
            if point.hasPrefix("cursors.") || floorWritten {
                #expect(crashed.termination == .signaled(SIGKILL), "attempt \(attempt): \(crashed)")
            } else {
                #expect(crashed.succeeded, "attempt \(attempt): \(crashed)")
            }
            let after = try Journal(path: journal)
            let b = try after.cursor(for: reader)
            let floor = try after.cursor()
            #expect(b == old.b || b == UInt64(target), "attempt \(attempt): b \(b)")
            // The named cursor's rename is its commit point.
            #expect(b == (point == "cursors.after-write" ? old.b : UInt64(target)), "attempt \(attempt): b \(b)")
            #expect(try after.cursor(for: .default) == 10, "the default reader never moves")
            #expect(floor <= min(b, 10), "attempt \(attempt): the floor \(floor) above a reader")
            #expect(floor == old.floor || floor == min(b, 10), "attempt \(attempt): floor \(floor)")
            let shown = try Torture.runner.run(["cursor", journal, "--reader", "b"])
            #expect(shown.stdoutLines == [String(b)], "\(shown)")
        }
        // The next advance puts the floor right.
        #expect(try Torture.runner.run(["advance", journal, "50", "--reader", "b"]).succeeded)
        #expect(try Journal(path: journal).cursor() == 10)
        #expect(try Torture.runner.run(["advance", journal, "50"]).succeeded)
        #expect(try Journal(path: journal).cursor() == 50)
        Torture.checkPermissions(journal)
    }

    /// The cursor is replaced whole: killed after the temporary write or after the rename,
    /// it reads as the old or the new value, never an error.
    @Test(arguments: ["cursor.after-write", "cursor.after-rename"])
    func cursorCrashSafety(point: String) throws {
        let directory = try TemporaryDirectory()
        let journal = directory.appending("journal")
        #expect(try Torture.runner.run(["append", journal, "50", "--commit-every", "10"]).succeeded)
        #expect(try Torture.runner.run(["advance", journal, "10"]).succeeded)

        for (attempt, target) in [30, 45, 50].enumerated() {
            let old = try Journal(path: journal).cursor()
            let crashed = try Torture.runner.run(["advance", journal, String(target)],
                                                 environment: ["OVERLAND_FAULT_POINT": point])
            #expect(crashed.termination == .signaled(SIGKILL), "attempt \(attempt): \(crashed)")
            let shown = try Torture.runner.run(["cursor", journal])
            #expect(shown.succeeded, "the cursor must read after a crash: \(shown)")
            let value = try Journal(path: journal).cursor()
            #expect(value == old || value == UInt64(target))
            #expect(shown.stdoutLines == [String(value)])
            // The rename is the commit point.
            #expect(value == (point == "cursor.after-write" ? old : UInt64(target)))
            let end = try Torture.runner.run(["end", journal])
            #expect(end.stdoutLines == ["end 50 backlog \(50 - value)"], "\(end)")
        }
        // A later advance works despite the leftover temporary file.
        #expect(try Torture.runner.run(["advance", journal, "50"]).succeeded)
        #expect(try Journal(path: journal).cursor() == 50)
        Torture.checkPermissions(journal)
    }

    /// Segment names past what sequence numbers can reach (a hostile stick) are no
    /// segments: ignored and reported, never an overflow trap in the appender, never a place
    /// where it writes members that readers then refuse. Run in a child: a trap is a crash.
    @Test(arguments: ["18446744073709551615.jsonl.gz", "09300000000000000000.jsonl.gz", "00009007199254740993.jsonl.gz"])
    func hugeSegmentNamesAreNotSegments(name: String) throws {
        let directory = try TemporaryDirectory()
        let journal = directory.appending("journal")
        #expect(try Torture.runner.run(["append", journal, "5", "--writer", "a"]).succeeded)
        let hostile = journal + "/segments/" + name
        try FileManager.default.copyItem(atPath: journal + "/segments/00000000000000000000.jsonl.gz", toPath: hostile)
        let hostileBytes = try Data(contentsOf: URL(fileURLWithPath: hostile))

        let appended = try Torture.runner.run(["append", journal, "5", "--writer", "b"])
        #expect(appended.succeeded, "\(appended)")
        #expect(Torture.committed(in: appended.stdoutLines) == ["b": 5])
        #expect(appended.stderrText.contains(name), "the name is reported: \(appended.stderrText)")
        let (records, issues) = try Torture.read(journal)
        #expect(records.map(\.sequence) == Array(0..<10))
        Torture.check(records, committed: ["a": 5, "b": 5], writers: ["a", "b"])
        #expect(issues.map(\.kind) == [.unexpectedFile], "\(issues)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: hostile)) == hostileBytes)
        let end = try Torture.runner.run(["end", journal])
        #expect(end.stdoutLines == ["end 10 backlog 10"], "\(end)")
    }

    /// A failed fsync (injected with strace): the commit is reported as an I/O error, the
    /// bytes it wrote are taken back, and every earlier commit survives. (journal-torture
    /// exits on the first error, so the in-process retry into a new segment is not
    /// exercised here.)
    @Test(.enabled(if: !FaultTools.ptraceDenied, FaultTools.ptraceDeniedReason), arguments: [4, 6, 7, 9, 12])
    func failedSyncKeepsEarlierCommits(failingSync: Int) throws {
        let directory = try TemporaryDirectory()
        let journal = directory.appending("journal")
        let strace = ToolRunner(executable: try FaultTools.strace())
        let result = try strace.run([
            "-f", "-o", "/dev/null", "-e", "trace=fsync", "-e", "inject=fsync:error=EIO:when=\(failingSync)",
            Torture.runner.executable, "append", journal, "40", "--commit-every", "4", "--writer", "f",
        ])
        result.expectExit(74)
        #expect(result.stderrText.contains("cannot sync"), "\(result.stderrText)")
        let committed = Torture.committed(in: result.stdoutLines)

        let (records, issues) = try Torture.read(journal)
        #expect(issues.isEmpty, "\(issues)")
        let present = Torture.check(records, committed: committed, writers: ["f"])
        #expect((present["f"] ?? 0) - (committed["f"] ?? 0) <= 4)
        _ = try Torture.recover(journal)
        let more = try Torture.runner.run(["append", journal, "8", "--commit-every", "4", "--writer", "g"])
        #expect(more.succeeded, "\(more)")
        let (after, afterIssues) = try Torture.read(journal)
        #expect(afterIssues.isEmpty, "\(afterIssues)")
        Torture.check(after, committed: committed.merging(["g": 8]) { $1 }, writers: ["f", "g"])
        for name in try FileManager.default.contentsOfDirectory(atPath: journal + "/segments") {
            let gzip = try ToolRunner(executable: "/bin/gzip").run(["-t", journal + "/segments/" + name])
            #expect(gzip.succeeded, "gzip -t \(name): \(gzip.stderrText)")
        }
    }
}
