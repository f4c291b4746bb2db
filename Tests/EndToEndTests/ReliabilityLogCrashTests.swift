import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real `overland-log`, fed a fast live stream and killed with SIGKILL at random moments
/// and at every named fault point: after every kill the journal verifies, holds every
/// record it held before the kill exactly once and in order, and holds a prefix of what
/// the killed run was fed; a run that is not killed loses nothing.
@Suite struct ReliabilityLogCrashTests {
    /// Feeds a running logger epochs `range` in random slices; with `killAfterSlice` kills
    /// it after that slice (and a random pause). Returns how many epochs were written.
    static func feed(_ child: RunningTool, _ range: Range<Int>, killAfterSlice: Int?,
                     random: inout SeededGenerator) -> Int {
        var next = range.lowerBound
        var slice = 0
        while next < range.upperBound {
            let size = min(Int.random(in: 1...40, using: &random), range.upperBound - next)
            child.writeInput(Array(SyntheticDrive.text(next..<next + size).utf8))
            next += size
            if slice == killAfterSlice {
                sleepMilliseconds(Int.random(in: 0...60, using: &random))
                child.kill(SIGKILL)
                return next - range.lowerBound
            }
            slice += 1
            if Bool.random(using: &random) { sleepMilliseconds(Int.random(in: 0...4, using: &random)) }
        }
        return next - range.lowerBound
    }

    /// Waits until the journal holds `count` records (or gives up after `timeout`).
    static func waitForRecords(_ journal: String, count: UInt64, timeout: Duration = ToolRunner.hangGuard) -> Bool {
        var records: UInt64 = 0
        waitUntil(timeout: timeout) {
            records = (try? Journal(path: journal).statistics().records) ?? 0
            return records >= count
        }
        return records == count
    }

    @Test func killNineAtRandomMomentsAndRestart() throws {
        let sandbox = try ReliabilitySandbox()
        let journal = sandbox.journal
        var random = Soak.generator(0x10C_C4A5)
        let kills = Soak.count(24)
        var previous: [StoredRecord] = []
        var next = 0
        var quietKills = 0
        var lost = 0
        var fedTotal = 0

        for kill in 0..<kills {
            let quiet = kill % 4 == 3
            let child = try sandbox.log.start(["--journal", journal, "--device-id", "reliability", "--commit-interval", "0.05"],
                                              stdin: true)
            let runStart = next
            let planned = Int.random(in: 20...240, using: &random)
            let fed: Int
            if quiet {
                // Everything fed is read and committed (the last epoch too: the logger learns
                // the cycle's last sentence, and completes a cycle when the input goes quiet):
                // a kill now must lose none of it.
                fed = Self.feed(child, runStart..<runStart + planned, killAfterSlice: nil, random: &random)
                let reached = Self.waitForRecords(journal, count: UInt64(previous.count + fed))
                #expect(reached, "kill \(kill): the logger did not commit \(fed) points: \(child.stderrSoFar)")
                child.kill(SIGKILL)
                quietKills += 1
            } else {
                let slices = max(1, planned / 20)
                fed = Self.feed(child, runStart..<runStart + planned, killAfterSlice: Int.random(in: 0..<slices, using: &random),
                                random: &random)
                if child.isRunning { child.kill(SIGKILL) }
            }
            next = runStart + fed
            fedTotal += fed
            let result = child.wait()
            #expect(result.termination == .signaled(SIGKILL), "kill \(kill): \(result)")
            #expect(!result.stderrText.contains("overland-log:"), "kill \(kill): \(result.stderrText)")

            guard FileManager.default.fileExists(atPath: journal + "/manifest.json") else {
                // Killed before the journal was created: nothing can have been committed.
                #expect(previous.isEmpty, "kill \(kill): the manifest is gone")
                continue
            }
            let verify = try sandbox.verify()
            #expect(verify.succeeded && verify.stdoutText.contains(" 0 damaged ranges"), "kill \(kill): \(verify)")
            let (records, issues) = try sandbox.records()
            #expect(issues.isEmpty, "kill \(kill): a kill is not damage: \(issues)")
            let epochs = JournalInvariant.check(records, context: "kill \(kill)")
            // Nothing committed before is lost, changed or repeated.
            if Array(records.prefix(previous.count)) != previous {
                lost += max(1, previous.count - records.count)
                Issue.record("kill \(kill): records committed before the kill changed (\(previous.count) before, \(records.count) now)")
            }
            // What this run added is a prefix of what it was fed.
            let added = Array(epochs.dropFirst(previous.count))
            #expect(added == Array(runStart..<runStart + added.count), "kill \(kill): added \(added.first ?? -1)... from \(runStart)")
            #expect(added.count <= fed, "kill \(kill): \(added.count) points from \(fed) epochs")
            if quiet {
                #expect(added.count == fed, "kill \(kill): \(added.count) of \(fed) committed points survived")
                lost += max(0, fed - added.count)
            }
            previous = records
        }

        // A last run to the end of its input loses nothing at all.
        let child = try sandbox.log.start(["--journal", journal, "--device-id", "reliability", "--commit-interval", "0.05"],
                                          stdin: true)
        child.writeInput(Array(SyntheticDrive.text(next..<next + 100).utf8))
        let finished = child.wait()
        #expect(finished.succeeded, "\(finished)")
        let (records, issues) = try sandbox.records()
        #expect(issues.isEmpty, "\(issues)")
        let epochs = JournalInvariant.check(records, context: "after the last run")
        #expect(Array(records.prefix(previous.count)) == previous)
        #expect(Array(epochs.dropFirst(previous.count)) == Array(next..<next + 100))
        #expect(try sandbox.verify().succeeded)
        Torture.checkPermissions(journal)
        #expect(quietKills > 0 && records.count > previous.count)
        Figures.record("crash: overland-log, kill -9 at random moments", "kills", kills, lost: lost)
        Figures.record("crash: overland-log, kill -9 at random moments", "kills right after a commit (all fed must be there)", quietKills)
        Figures.record("crash: overland-log, kill -9 at random moments", "epochs fed", fedTotal + 100)
    }

    /// One scripted logger run: twelve small files, one commit each (--commit-interval 0
    /// commits after every read), on a journal with history (a sealed segment, so that the
    /// first commit starts a new segment and the rest append to it).
    struct Script {
        static let history = 0..<30
        static let files = 12
        static let perFile = 8
        static var range: Range<Int> { history.upperBound..<(history.upperBound + files * perFile) }
        static let continuation = 500..<520

        /// A journal holding `history`, sealed, and the script's input files.
        static func prepare(_ sandbox: ReliabilitySandbox) throws -> [String] {
            try sandbox.logEpochs(history)
            let sealed = try sandbox.overland.run(["journal", "seal", "--journal", sandbox.journal])
            #expect(sealed.succeeded, "\(sealed)")
            return try (0..<files).map { file in
                let first = range.lowerBound + file * perFile
                return try sandbox.file("script-\(file).nmea", SyntheticDrive.text(first..<first + perFile))
            }
        }

        static func arguments(_ sandbox: ReliabilitySandbox, journal: String? = nil, inputs: [String]) -> [String] {
            ["--journal", journal ?? sandbox.journal, "--device-id", "reliability", "--commit-interval", "0"] + inputs
        }

        /// After a crash of the script: the journal verifies and holds the history and a
        /// prefix of the script's epochs; a further run appends after them. Returns how many
        /// of the script's epochs survived.
        @discardableResult
        static func checkRecovery(_ sandbox: ReliabilitySandbox, journal: String? = nil, context: String,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
            let journal = journal ?? sandbox.journal
            let verify = try sandbox.verify(journal)
            #expect(verify.succeeded, "\(context): \(verify)", sourceLocation: sourceLocation)
            let (records, issues) = try ReliabilitySandbox.read(journal)
            #expect(issues.allSatisfy { $0.kind != .damage }, "\(context): \(issues)", sourceLocation: sourceLocation)
            let epochs = JournalInvariant.check(records, context: context, sourceLocation: sourceLocation)
            #expect(Array(epochs.prefix(history.count)) == Array(history), "\(context): the history", sourceLocation: sourceLocation)
            let survived = Array(epochs.dropFirst(history.count))
            #expect(survived == Array(range.prefix(survived.count)), "\(context): not a prefix of the script",
                    sourceLocation: sourceLocation)

            try sandbox.logEpochs(continuation, journal: journal)
            let (after, afterIssues) = try ReliabilitySandbox.read(journal)
            #expect(afterIssues.isEmpty, "\(context): after the next run: \(afterIssues)", sourceLocation: sourceLocation)
            let all = JournalInvariant.check(after, context: context + ", after the next run", sourceLocation: sourceLocation)
            #expect(Array(after.prefix(records.count)) == records, "\(context): the next run changed earlier records",
                    sourceLocation: sourceLocation)
            #expect(Array(all.dropFirst(records.count)) == Array(continuation), sourceLocation: sourceLocation)
            #expect(try sandbox.verify(journal).succeeded, sourceLocation: sourceLocation)
            let segments = ReliabilitySandbox.files(under: journal + "/segments")
            #expect(segments.allSatisfy { !$0.hasPrefix(".tmp-") }, "\(context): \(segments)", sourceLocation: sourceLocation)
            Torture.checkPermissions(journal, sourceLocation: sourceLocation)
            return survived.count
        }
    }

    /// Every named fault point the logger passes, at every time it passes it (N = 1, 2, ...
    /// until a run ends without reaching it).
    @Test(arguments: ["segment.after-write", "segment.after-rename", "append.after-write", "append.after-sync"])
    func killedAtEveryFaultPoint(point: String) throws {
        let base = try ReliabilitySandbox()
        let inputs = try Script.prepare(base)
        var crashes = 0
        var lastSurvived = 0
        for nth in 1...64 {
            let sandbox = try ReliabilitySandbox()
            try copyTree(base.journal, to: sandbox.journal)
            let run = try sandbox.log.run(Script.arguments(sandbox, inputs: inputs), environment: ["OVERLAND_FAULT_POINT": "\(point):\(nth)"])
            if run.succeeded {
                // Not reached an Nth time: the whole script is there.
                #expect(try Script.checkRecovery(sandbox, context: "\(point):\(nth) not reached") == Script.range.count)
                break
            }
            #expect(run.termination == .signaled(SIGKILL), "\(point):\(nth): \(run)")
            crashes += 1
            let survived = try Script.checkRecovery(sandbox, context: "\(point):\(nth)")
            // A later crash never keeps less; before its rename a new segment is not there.
            #expect(survived >= lastSurvived, "\(point):\(nth): \(survived) survived, \(lastSurvived) at the point before")
            if point == "segment.after-write" { #expect(survived == 0, "\(point):\(nth)") }
            lastSurvived = survived
        }
        #expect(crashes >= 1, "\(point) was never reached")
        Figures.record("crash: overland-log, named fault points", "kills at \(point) (every N)", crashes)
    }

    /// A bulk import commits 1 MiB at a time on a second thread and seals each 4 MiB
    /// segment in place: killed at the fault points that thread passes, the journal keeps a
    /// prefix of the import, verifies, and the next run carries on after it.
    @Test(arguments: [("append.after-write", 1), ("append.after-sync", 3), ("append.after-write", 2),
                      ("seal.after-write", 1), ("seal.after-sync", 1), ("segment.after-write", 2), ("segment.after-rename", 2)])
    func bulkImportKilledOnItsCommitThread(point: String, nth: Int) throws {
        let sandbox = try ReliabilitySandbox()
        let epochs = 0..<16_000 // over 4 MiB of records: one sealed segment, then another
        let input = try sandbox.file("bulk.nmea", SyntheticDrive.text(epochs))
        let run = try sandbox.log.run(["--journal", sandbox.journal, "--device-id", "reliability", input],
                                      environment: ["OVERLAND_FAULT_POINT": "\(point):\(nth)"])
        #expect(run.termination == .signaled(SIGKILL), "\(point):\(nth): \(run)")
        let verify = try sandbox.verify()
        #expect(verify.succeeded, "\(point):\(nth): \(verify)")
        let (records, issues) = try sandbox.records()
        #expect(issues.allSatisfy { $0.kind != .damage }, "\(point):\(nth): \(issues)")
        let survived = JournalInvariant.check(records, context: "\(point):\(nth)")
        #expect(survived == Array(epochs.prefix(survived.count)), "\(point):\(nth): not a prefix of the import")
        if point.hasPrefix("append") { #expect(!survived.isEmpty, "\(point):\(nth): earlier commits were lost") }
        // The import again, from where it stopped: everything, once.
        try sandbox.logEpochs(survived.count..<epochs.upperBound)
        let after = JournalInvariant.check(try sandbox.records().records, context: "\(point):\(nth), after the rerun")
        #expect(after == Array(epochs))
        #expect(try sandbox.verify().succeeded)
        Figures.record("crash: overland-log, named fault points", "kills of a bulk import on its commit thread", 1)
    }

    /// `overland journal seal` killed between writing the sealed copy and renaming it, and
    /// after the rename: the old file or the new one, the same records, and the logger
    /// carries on.
    @Test(arguments: ["seal.after-write", "seal.after-rename"])
    func sealKilledAtItsFaultPoints(point: String) throws {
        let sandbox = try ReliabilitySandbox()
        try sandbox.logEpochs(0..<150)
        let before = try sandbox.records().records
        let crashed = try sandbox.overland.run(["journal", "seal", "--journal", sandbox.journal],
                                               environment: ["OVERLAND_FAULT_POINT": point])
        #expect(crashed.termination == .signaled(SIGKILL), "\(crashed)")
        #expect(try sandbox.records().records == before)
        #expect(try sandbox.verify().succeeded)
        try sandbox.logEpochs(150..<170)
        let after = try sandbox.records().records
        #expect(Array(after.prefix(before.count)) == before)
        #expect(JournalInvariant.check(after, context: point) == Array(0..<170))
        #expect(ReliabilitySandbox.files(under: sandbox.journal + "/segments").allSatisfy { !$0.hasPrefix(".tmp-") })
        Figures.record("crash: overland journal seal, named fault points", "kills at \(point)", 1)
    }
}
