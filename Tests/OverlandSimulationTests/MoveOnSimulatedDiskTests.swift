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
}
