import OverlandJournal
import OverlandSimulation
import Testing

/// The explorer's workload on the simulated disk: the regression seeds of the bugs it
/// found, and that the bug they found is fixed at the place it was.
@Suite struct ExplorerTests {
    /// Seeds that failed before directories were made durable (`FileSystem.makeDirectory`
    /// fsyncs the parent of a directory it creates): seed 2 lost the whole journal (its
    /// directories never reached the disk), seed 1 its named cursors (`cursors/`), the floor
    /// then standing above them.
    /// Seed 207 failed when the sync's paced cursor writes left out the temporary file's
    /// fsync as well as the directory's: a power cut kept the rename of `cursor.json` and
    /// lost its content (a cursor of zeros, the journal refused).
    /// Seed 213 (issue 36, second round): a time index saved over a commit whose segment's
    /// directory fsync had failed; a power cut took the segment back, the index was refused
    /// (past the journal's end) but left on disk, and once new records reached its `through`
    /// it was trusted again, missing their seconds.
    @Test(arguments: [UInt64(1), 2, 5, 6, 7, 8, 207, 213])
    func regressionSeed(_ seed: UInt64) async {
        let outcome = await Explorer().run(seed: seed)
        #expect(outcome.violation == nil, "\(outcome.violation.map { "\($0)" } ?? "")")
        #expect(outcome.crashStates > 0)
    }

    /// A seed that failed once cursors were written with `durably: false` (the durability
    /// pacing): the temporary file was renamed over the cursor without its fsync, and a power
    /// cut left `cursors/work.json` empty, refused by every later run.
    @Test func cursorReplacedWithoutDirectoryFsyncIsNeverEmpty() async {
        let outcome = await Explorer().run(seed: 1096)
        #expect(outcome.violation == nil, "\(outcome.violation.map { "\($0)" } ?? "")")
    }

    /// A seed that failed with the cursor durability pacing: a named cursor advanced without
    /// its fsyncs raised the floor at once; a power cut kept the floor's rename and undid the
    /// cursor's (another directory), the floor above the cursor. The floor now rises only
    /// once the cursor is durable.
    @Test func floorNeverAboveACursorAfterACut() async {
        let outcome = await Explorer().run(seed: 5791)
        #expect(outcome.violation == nil, "\(outcome.violation.map { "\($0)" } ?? "")")
    }

    /// A journal created and committed to, then a power cut that keeps only what was
    /// fsynced: the journal is there with its records (before the fix: gone).
    @Test func newJournalSurvivesAPowerCut() throws {
        for seed in UInt64(0)..<24 {
            let disk = SimulatedDisk()
            let journal = try Journal(path: "/a/b/journal", create: true, fileSystem: disk)
            let appender = try JournalAppender(journal: journal)
            try appender.append(Array(#"{"n":1}"#.utf8))
            _ = try appender.commit()
            let lock = try #require(try journal.tryLockCursors())
            try journal.advanceCursor(for: CursorName("home")!, to: 1)
            withExtendedLifetime(lock) {}
            var random = SeededRandom(seed: seed)
            let image = disk.cutPowerNow(using: &random)
            let recovered = try Journal(path: "/a/b/journal", fileSystem: image)
            #expect(try recovered.endSequence() == 1)
            #expect(try recovered.cursor(for: CursorName("home")!) == 1)
        }
    }

    /// The explorer finds what a lying disk does within 200 seeds, and its shrunk trace
    /// still fails the same way.
    @Test(arguments: [SimulatedDisk.Ignores.fsync, .dirFsync])
    func lyingDiskIsFound(_ lie: SimulatedDisk.Ignores) async throws {
        let explorer = Explorer(ignores: lie)
        var failing: Explorer.Outcome?
        for seed in UInt64(1)...200 {
            let outcome = await explorer.run(seed: seed)
            if outcome.violation != nil { failing = outcome; break }
        }
        let outcome = try #require(failing)
        let violation = try #require(outcome.violation)
        let shrunk = try #require(await explorer.shrink(outcome.steps))
        #expect(shrunk.steps.count <= outcome.steps.count)
        #expect(shrunk.violation.kind == violation.kind)
        #expect(await explorer.replay(shrunk.steps) == shrunk.violation, "a trace replays exactly")
    }
}
