import Foundation
import Testing
import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// A target that fills up in the middle of a move: a clean error (exit 74), the segments
/// that fitted moved, the rest still in the source and syncable (no move pending), and a
/// run after space was freed finishes (journal-format.md section 12).
///
/// Where the machine allows `mount` (root), the target is a tmpfs of 64 KiB, which fails
/// with ENOSPC like a full stick. Elsewhere, strace injects ENOSPC into the Nth `write`.
@Suite struct MoveTargetFullTests {
    @Test func aFullTmpfsStopsTheMoveCleanlyAndARunAfterFreeingSpaceFinishes() throws {
        let sandbox = try MoveSandbox()
        let lines = try MoveRecords.makeSource(at: sandbox.source, sealed: 6, perSegment: 20, cursor: 27, pad: 1500)
        try #require(lines.count > 27)
        let unsent = Array(lines[27...])
        let mountPoint = sandbox.directory.appending("stick")
        guard let stick = MountedFileSystem.tmpfs(at: mountPoint, bytes: 64 << 10) else {
            try injectedFailures(sandbox, lines: lines)
            return
        }
        let full = try sandbox.move()
        full.expectExit(74)
        #expect(full.stderrText.contains("no space left on device"), "\(full.stderrText)")
        #expect(full.stderrText.contains("stay in the source journal"), "\(full.stderrText)")
        let source = try #require(try JournalView.read(sandbox.source))
        let target = try #require(try JournalView.read(sandbox.target))
        #expect(!source.movePending, "a clean failure leaves no move pending: the source syncs on")
        MoveInvariant.check(unsent: unsent, source: source, target: target, context: "target full")
        #expect(target.unsent.count > 0 && source.unsent.count > 5, "some but not all moved: \(target.unsent.count)")
        #expect((try FileManager.default.contentsOfDirectory(atPath: sandbox.target + "/segments")).allSatisfy { !$0.hasPrefix(".tmp-") })
        let verify = try sandbox.overland(["journal", "verify", "--journal", sandbox.target])
        #expect(verify.succeeded, "\(verify)")

        // Still full: the same clean failure, nothing lost.
        let again = try sandbox.move()
        again.expectExit(74)
        MoveInvariant.check(unsent: unsent, source: try JournalView.read(sandbox.source), target: try JournalView.read(sandbox.target),
                            context: "still full")

        #expect(stick.resize(bytes: 4 << 20))
        let finished = try sandbox.move()
        #expect(finished.succeeded, "\(finished)")
        MoveInvariant.checkComplete(unsent: unsent, stayed: Array(lines.suffix(5)), source: try JournalView.read(sandbox.source),
                                    target: try JournalView.read(sandbox.target), context: "after freeing space")
    }

    /// A full target that the first write already hits: the target journal cannot even be
    /// created; nothing changes in the source.
    /// Kept as a skip where mount(2) is not allowed (not root, no CAP_SYS_ADMIN): no package
    /// can give that, and the test above covers the non-root case with strace.
    @Test(.enabled(if: FaultTools.canMount, "needs root and mount(2) for a 4 KiB tmpfs (no install can give that)"))
    func aTargetTooSmallForAnythingChangesNothing() throws {
        let sandbox = try MoveSandbox()
        let lines = try MoveRecords.makeSource(at: sandbox.source, sealed: 3, perSegment: 20, cursor: 0, pad: 1500)
        let stick = try #require(MountedFileSystem.tmpfs(at: sandbox.directory.appending("stick"), bytes: 4 << 10), "mount -t tmpfs failed")
        let full = try sandbox.move()
        full.expectExit(74)
        let source = try #require(try JournalView.read(sandbox.source))
        #expect(!source.movePending)
        #expect(source.unsent == lines)
        withExtendedLifetime(stick) {}
    }

    /// Without mount: ENOSPC injected by strace into the Nth write of the move, for several N.
    private func injectedFailures(_ sandbox: MoveSandbox, lines: [String]) throws {
        let strace = try FaultTools.strace()
        let unsent = Array(lines[27...])
        for nth in [3, 6, 9, 12] {
            let result = try ToolRunner(executable: strace).run(
                ["-f", "-qq", "-o", "/dev/null", "-e", "trace=write", "-e", "inject=write:error=ENOSPC:when=\(nth)+",
                 sandbox.runner.executable, "journal", "move", "--journal", sandbox.source, "--to", sandbox.target],
                environment: MoveSandbox.environment(sandbox.directory))
            #expect(!result.succeeded, "write \(nth): \(result)")
            MoveInvariant.check(unsent: unsent, source: try JournalView.read(sandbox.source), target: try JournalView.read(sandbox.target),
                                context: "ENOSPC from write \(nth)")
        }
        let finished = try sandbox.move()
        #expect(finished.succeeded, "\(finished)")
        MoveInvariant.checkComplete(unsent: unsent, stayed: Array(lines.suffix(5)), source: try JournalView.read(sandbox.source),
                                    target: try JournalView.read(sandbox.target), context: "after the injected failures")
    }
}
