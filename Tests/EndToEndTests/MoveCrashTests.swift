import Foundation
import Testing
import OverlandJournal
import OverlandSync

#if canImport(Glibc)
import Glibc
#endif

/// `overland journal move` killed (SIGKILL, at the library's named fault points and at
/// random moments) and run again: at every moment no record is lost and none is sendable
/// from both journals; the second run finishes the move (journal-format.md section 12).
@Suite struct MoveCrashTests {
    /// Six sealed segments of 20 records and an active one of 5; the cursor at 27 falls
    /// inside the second segment, so the first stays (sent) and the second moves in part.
    static let cursor: UInt64 = 27

    struct Case: Sendable, CustomTestStringConvertible {
        var fault: String
        /// A second crash, during the run that finishes the first.
        var secondFault: String?
        var extra: [String] = []
        var testDescription: String { ([fault] + (secondFault.map { [$0] } ?? []) + extra).joined(separator: " then ") }
    }

    static let cases: [Case] = [
        Case(fault: "move.after-target"),
        Case(fault: "move.after-intent"),
        Case(fault: "move.after-write:1"),
        Case(fault: "move.after-write:4"),
        Case(fault: "move.after-copy:1"),
        Case(fault: "move.after-copy:5"),
        Case(fault: "move.after-verify:3"),
        Case(fault: "move.after-cursor:1"),
        Case(fault: "move.after-cursor:4"),
        Case(fault: "move.after-delete:2"),
        Case(fault: "move.after-delete:5"),
        Case(fault: "cursor.after-write:2"),
        Case(fault: "cursor.after-rename:3"),
        Case(fault: "seal.after-write", extra: ["--seal"]),
        Case(fault: "move.after-copy:2", secondFault: "move.after-copy:1"),
        Case(fault: "move.after-verify:1", secondFault: "move.after-delete:2"),
        Case(fault: "move.after-intent", secondFault: "move.after-write:1"),
    ]

    @Test(arguments: cases)
    func killedAtAFaultPointThenRunAgain(_ testCase: Case) throws {
        let sandbox = try MoveSandbox()
        let lines = try MoveRecords.makeSource(at: sandbox.source, cursor: Self.cursor)
        let unsent = Array(lines[Int(Self.cursor)...])
        let sealFirst = testCase.extra.contains("--seal")
        let stayed = sealFirst ? [] : Array(lines.suffix(5))

        for (step, fault) in [testCase.fault, testCase.secondFault].compactMap({ $0 }).enumerated() {
            let crashed = try sandbox.move(testCase.extra, fault: fault)
            #expect(crashed.termination == .signaled(SIGKILL), "\(fault) (run \(step + 1)): \(crashed)")
            MoveInvariant.check(unsent: unsent, source: try JournalView.read(sandbox.source), target: try JournalView.read(sandbox.target),
                                context: "killed at \(fault)")
        }
        let finished = try sandbox.move(testCase.extra)
        #expect(finished.succeeded, "\(finished)")
        let source = try JournalView.read(sandbox.source)
        let target = try JournalView.read(sandbox.target)
        MoveInvariant.checkComplete(unsent: unsent, stayed: stayed, source: source, target: target, context: "after the re-run")
        // The sent first segment stays in the source for retention.
        #expect(source?.records.first?.line == lines.first)

        let verify = try sandbox.overland(["journal", "verify", "--journal", sandbox.target])
        #expect(verify.succeeded, "\(verify)")
        for file in (try FileManager.default.contentsOfDirectory(atPath: sandbox.target + "/segments")) {
            #expect(!file.hasPrefix(".tmp-"), "a temporary file was left in the target: \(file)")
        }
        for file in (try FileManager.default.contentsOfDirectory(atPath: sandbox.source + "/segments")) {
            #expect(!file.hasPrefix(".tmp-"), "a temporary file was left in the source: \(file)")
        }
        // A third run has nothing left to do; while points wait in the active segment, which
        // only --seal moves, it says so and does not exit 0 (issue 33).
        let waiting = try Journal(path: sandbox.source).backlog()
        let again = try sandbox.move(testCase.extra)
        #expect(again.stdoutText.contains("moved 0 segments"), "\(again)")
        #expect(again.exitStatus == (waiting > 0 && !sealFirst ? 64 : 0), "\(waiting) waiting: \(again)")
    }

    @Test func killedAtRandomMomentsThenRunAgain() throws {
        var random = SeededGenerator(seed: 0x0A0E_5EED)
        for round in 0..<6 {
            let sandbox = try MoveSandbox()
            let lines = try MoveRecords.makeSource(at: sandbox.source, sealed: 12, perSegment: 30, cursor: Self.cursor, pad: 200)
            let unsent = Array(lines[Int(Self.cursor)...])
            // Each round is killed a few times, ever later, before one run completes.
            var delay = Int.random(in: 0...3000, using: &random)
            for _ in 0..<3 {
                let child = try sandbox.runner.start(["journal", "move", "--journal", sandbox.source, "--to", sandbox.target])
                usleep(UInt32(delay))
                child.kill(SIGKILL)
                let result = child.wait()
                #expect(result.termination == .signaled(SIGKILL) || result.succeeded, "round \(round): \(result)")
                MoveInvariant.check(unsent: unsent, source: try JournalView.read(sandbox.source),
                                    target: try JournalView.read(sandbox.target), context: "round \(round), killed after \(delay) µs")
                delay += Int.random(in: 2000...15000, using: &random)
            }
            let finished = try sandbox.move()
            #expect(finished.succeeded, "round \(round): \(finished)")
            MoveInvariant.checkComplete(unsent: unsent, stayed: Array(lines.suffix(5)), source: try JournalView.read(sandbox.source),
                                        target: try JournalView.read(sandbox.target), context: "round \(round), after the re-run")
        }
    }

    @Test func whilePendingTheSourceIsNotSyncedAndCopyDetectionSaysWhy() throws {
        let sandbox = try MoveSandbox()
        try MoveRecords.makeSource(at: sandbox.source, cursor: Self.cursor)
        let crashed = try sandbox.move(fault: "move.after-copy:2")
        #expect(crashed.termination == .signaled(SIGKILL))
        let source = try Journal(path: sandbox.source)
        let intent = try #require(try source.pendingMove())
        #expect(intent.targetID.description == (try JournalView.read(sandbox.target))?.id)
        #expect(intent.segments.count == 5)
        #expect(intent.segments.first?.from == Self.cursor)
        #expect(throws: JournalOriginError.self) {
            try JournalOrigin.check(source, registry: sandbox.directory.appending("registry/journals.json"), machine: "machine-a")
        }
        // The target itself may be synced meanwhile: what it holds is complete.
        let target = try Journal(path: sandbox.target)
        try JournalOrigin.check(target, registry: sandbox.directory.appending("registry/journals.json"), machine: "machine-a")
    }

    @Test(arguments: ["move.after-intent", "move.after-copy:1", "move.after-verify:2"])
    func anotherMoveIntoTheSameStickMeanwhileIsNumberedAround(fault: String) throws {
        let sandbox = try MoveSandbox()
        let first = try MoveRecords.makeSource(at: sandbox.source, cursor: Self.cursor)
        #expect(try sandbox.move(fault: fault).termination == .signaled(SIGKILL))
        // A second logger's journal moves onto the same stick before the first finishes.
        let other = sandbox.directory.appending("other")
        let second = try MoveRecords.makeSource(at: other, sealed: 3, perSegment: 10, active: 2, cursor: 0, offset: 5000)
        let otherMove = try sandbox.overland(["journal", "move", "--journal", other, "--to", sandbox.target])
        #expect(otherMove.succeeded, "\(otherMove)")
        let finished = try sandbox.move()
        #expect(finished.succeeded, "\(finished)")
        let target = try #require(try JournalView.read(sandbox.target))
        let fromFirst = Array(first[Int(Self.cursor)..<120])
        #expect(Set(target.unsent) == Set(fromFirst).union(second.prefix(30)), "each record of both moves once")
        #expect(target.unsent.count == fromFirst.count + 30)
        #expect(zip(target.records, target.records.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
        #expect(try JournalView.read(sandbox.source)?.unsent == Array(first.suffix(5)))
        #expect(try sandbox.overland(["journal", "verify", "--journal", sandbox.target]).succeeded)
    }

    @Test func aCopyDamagedOnTheStickBeforeTheCursorMovedIsWrittenAgain() throws {
        let sandbox = try MoveSandbox()
        let lines = try MoveRecords.makeSource(at: sandbox.source, cursor: Self.cursor, pad: 100)
        #expect(try sandbox.move(fault: "move.after-copy:2").termination == .signaled(SIGKILL))
        // The second segment reached the stick, then a bit of it rotted.
        let target = try Journal(path: sandbox.target)
        let name = try #require(try target.segments().last)
        let file = sandbox.target + "/segments/" + name.fileName
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[bytes.count / 2] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let finished = try sandbox.move()
        #expect(finished.succeeded, "\(finished)")
        MoveInvariant.checkComplete(unsent: Array(lines[Int(Self.cursor)...]), stayed: Array(lines.suffix(5)),
                                    source: try JournalView.read(sandbox.source), target: try JournalView.read(sandbox.target),
                                    context: "after rewriting the damaged copy")
    }

    @Test func aStickMountedElsewhereFinishesTheMoveThere() throws {
        let sandbox = try MoveSandbox()
        let lines = try MoveRecords.makeSource(at: sandbox.source, cursor: Self.cursor)
        let crashed = try sandbox.move(fault: "move.after-copy:3")
        #expect(crashed.termination == .signaled(SIGKILL))
        // The stick comes back under another name.
        let elsewhere = sandbox.directory.appending("other-mount/overland")
        try FileManager.default.createDirectory(atPath: sandbox.directory.appending("other-mount"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: sandbox.target, toPath: elsewhere)
        let missing = try sandbox.move()
        missing.expectExit(66)
        #expect(missing.stderrText.contains("pending"), "\(missing.stderrText)")
        let finished = try sandbox.move(to: elsewhere)
        #expect(finished.succeeded && finished.stdoutText.contains("finished an interrupted move"), "\(finished)")
        MoveInvariant.checkComplete(unsent: Array(lines[Int(Self.cursor)...]), stayed: Array(lines.suffix(5)),
                                    source: try JournalView.read(sandbox.source), target: try JournalView.read(elsewhere),
                                    context: "finished at the new mount point")
    }

    @Test func abortKeepsWhatIsCompleteInTheTargetAndTheRestInTheSource() throws {
        let sandbox = try MoveSandbox()
        let lines = try MoveRecords.makeSource(at: sandbox.source, cursor: Self.cursor)
        let unsent = Array(lines[Int(Self.cursor)...])
        #expect(try sandbox.move(fault: "move.after-copy:3").termination == .signaled(SIGKILL))
        let aborted = try sandbox.overland(["journal", "move", "--journal", sandbox.source, "--abort"])
        #expect(aborted.succeeded, "\(aborted)")
        #expect(aborted.stdoutText.contains("1 segment ("), "\(aborted.stdoutText)") // the third, complete but not yet counted
        let source = try JournalView.read(sandbox.source)
        let target = try JournalView.read(sandbox.target)
        #expect(source?.movePending == false)
        MoveInvariant.check(unsent: unsent, source: source, target: target, context: "after --abort")
        #expect(target?.unsent.count == 13 + 20 + 20)
        let noneLeft = try sandbox.overland(["journal", "move", "--journal", sandbox.source, "--abort"])
        noneLeft.expectExit(64)
    }

    @Test func abortCompletesACopyFoundInPartRatherThanLeaveItInBothJournals() throws {
        let sandbox = try MoveSandbox()
        let lines = try MoveRecords.makeSource(at: sandbox.source, cursor: Self.cursor)
        #expect(try sandbox.move(fault: "move.after-copy:3").termination == .signaled(SIGKILL))
        // The third segment's copy lost its seal (a stick pulled before its blocks were
        // written, say); its first records are readable, and a sync would send them.
        let target = try Journal(path: sandbox.target)
        let name = try #require(try target.segments().last)
        let file = sandbox.target + "/segments/" + name.fileName
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        try Data(bytes.prefix(bytes.count - 62)).write(to: URL(fileURLWithPath: file))
        let aborted = try sandbox.overland(["journal", "move", "--journal", sandbox.source, "--abort"])
        #expect(aborted.succeeded, "\(aborted)")
        let source = try JournalView.read(sandbox.source)
        let after = try JournalView.read(sandbox.target)
        MoveInvariant.check(unsent: Array(lines[Int(Self.cursor)...]), source: source, target: after, context: "after --abort")
        #expect(after?.unsent.count == 13 + 20 + 20)
        #expect(try sandbox.overland(["journal", "verify", "--journal", sandbox.target]).succeeded)
    }

    @Test func abortWithTheTargetLostKeepsEverythingInTheSource() throws {
        let sandbox = try MoveSandbox()
        let lines = try MoveRecords.makeSource(at: sandbox.source, cursor: Self.cursor)
        #expect(try sandbox.move(fault: "move.after-delete:2").termination == .signaled(SIGKILL))
        try FileManager.default.removeItem(atPath: sandbox.directory.appending("stick"))
        let refused = try sandbox.overland(["journal", "move", "--journal", sandbox.source, "--abort"])
        refused.expectExit(66)
        let aborted = try sandbox.overland(["journal", "move", "--journal", sandbox.source, "--abort", "--target-lost"])
        #expect(aborted.succeeded, "\(aborted)")
        let source = try #require(try JournalView.read(sandbox.source))
        #expect(!source.movePending)
        // The two segments that completed went with the stick; everything after stays.
        #expect(source.unsent == Array(lines[(40 + 20)...]))
    }

    @Test func refusesTargetsThatAreNotItsOwn() throws {
        let sandbox = try MoveSandbox()
        try MoveRecords.makeSource(at: sandbox.source, cursor: Self.cursor)
        // A directory with other files in it (the stick's root, say).
        try FileManager.default.createDirectory(atPath: sandbox.directory.appending("stick"), withIntermediateDirectories: true)
        try Data("photo".utf8).write(to: URL(fileURLWithPath: sandbox.directory.appending("stick/photo.jpg")))
        let notEmpty = try sandbox.move(to: sandbox.directory.appending("stick"))
        notEmpty.expectExit(73)
        // Another logger's journal.
        let other = sandbox.directory.appending("other")
        try MoveRecords.makeSource(at: other, sealed: 1, cursor: 0)
        let notMoved = try sandbox.move(to: other)
        notMoved.expectExit(65)
        #expect(notMoved.stderrText.contains("did not create"), "\(notMoved.stderrText)")
        // Itself.
        let itself = try sandbox.move(to: sandbox.source)
        itself.expectExit(64)
        // Usage.
        let noTarget = try sandbox.overland(["journal", "move", "--journal", sandbox.source])
        noTarget.expectExit(64)
        // Nothing moved anywhere.
        #expect(try JournalView.read(sandbox.source)?.unsent.count == 120 + 5 - 27)
    }

    @Test func aSyncRunningMeansTryLater() throws {
        let sandbox = try MoveSandbox()
        try MoveRecords.makeSource(at: sandbox.source, cursor: Self.cursor)
        let source = try Journal(path: sandbox.source)
        let held = try #require(try source.tryLock("sync.lock"))
        let busy = try sandbox.move()
        busy.expectExit(75)
        withExtendedLifetime(held) {}
    }
}
