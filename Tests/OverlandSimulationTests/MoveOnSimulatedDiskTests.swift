import OverlandJournal
import OverlandSimulation
import Testing

/// `journal move` runs on whatever file system its journal uses (the simulated disk here):
/// the target is created, opened and read back through the same seam.
@Suite struct MoveOnSimulatedDiskTests {
    /// Before the fix the move opened the target it had just created on the simulated disk
    /// with the host's file system (`Journal(path:)` without `fileSystem:`), and failed:
    /// no such directory.
    @Test func moveOpensTheTargetThroughTheSourcesFileSystem() throws {
        let disk = SimulatedDisk()
        let journal = try Journal(path: "/data/journal", create: true, deviceID: "sim", fileSystem: disk)
        let appender = try JournalAppender(journal: journal)
        for id in 1...30 { try appender.append(Array(#"{"i":\#(id)}"#.utf8)) }
        _ = try appender.commit()
        try appender.sealActive()
        try disk.makeDirectory("/stick")
        let report = try journal.move(to: "/stick/overland", now: 1_800_000_000)
        #expect(report.targetCreated)
        #expect(report.records == 30)
        let target = try Journal(path: "/stick/overland", fileSystem: disk)
        #expect(try target.endSequence() == 30)
        #expect(try target.verify().damaged.isEmpty)
        #expect(try journal.cursor() == 30)
    }

    /// Issue 26, seed 709559427: a sync cut by a power cut left a reader ahead in its
    /// progress record only (not fsynced) and behind in its cursor file. The move passed
    /// the cursors by the progress record, so it skipped that reader's cursor file, the
    /// floor stayed below the moved segment, and the source file was deleted all the same:
    /// the next run of the pending move could not open it. Now the cursor files decide, and
    /// the floor is at the segment's end before the source file goes.
    @Test func movePassesACursorAheadOnlyInItsProgressRecord() throws {
        let disk = SimulatedDisk()
        let journal = try Journal(path: "/data/journal", create: true, deviceID: "sim", fileSystem: disk)
        let appender = try JournalAppender(journal: journal)
        for id in 1...30 { try appender.append(Array(#"{"i":\#(id)}"#.utf8)) }
        _ = try appender.commit()
        try appender.sealActive()
        let home = try #require(CursorName("home"))
        do {
            let lock = try #require(try journal.tryLockCursors())
            defer { withExtendedLifetime(lock) {} }
            for name in ["default", "home", "work"] { try journal.advanceCursor(for: try #require(CursorName(name)), to: 0) }
            try journal.advanceCursor(for: home, to: 30, durably: false)
        }
        #expect(try journal.readDurableCursor(for: home) == .valid(0))
        #expect(try journal.cursor(for: home) == 30)
        try disk.makeDirectory("/stick")
        let report = try journal.move(to: "/stick/overland", now: 1_800_000_000)
        #expect(report.records == 30)
        #expect(try journal.readDurableCursor(for: home) == .valid(30))
        #expect(try journal.cursor() == 30)
        #expect(try journal.pendingMove() == nil)
    }
}
