import OverlandJournal
import OverlandSimulation
import Testing

/// The appender after a failure it survives, on the simulated disk (the real code, a
/// scripted fault, then a power cut): what a commit reported durable survives.
@Suite struct AppenderFaultTests {
    /// A new segment renamed into place whose directory fsync failed: the next commit must
    /// not append to it (its name may never reach the disk) but write a new segment, whose
    /// directory fsync makes both names durable. Before the fix the next commit appended to
    /// it and returned, and a power cut took the segment, committed records and all
    /// (journal-sim seed 98 of issue 36: "point 1 was committed, is gone").
    @Test func commitAfterAFailedDirectoryFsyncSurvivesAPowerCut() throws {
        for seed in UInt64(0)..<16 {
            let disk = SimulatedDisk()
            let journal = try Journal(path: "/j", create: true, fileSystem: disk)
            let appender = try JournalAppender(journal: journal)
            try appender.append(Array(#"{"n":1}"#.utf8))
            // The first commit writes a new segment: create, write, fsync, rename, then the
            // directory's fsync, which fails.
            disk.injectFault(SimulatedDisk.Fault(kind: .eio, at: disk.changes + 4))
            #expect(throws: JournalError.self) { try appender.commit() }
            #expect(disk.faultsFired == 1)
            try appender.append(Array(#"{"n":2}"#.utf8))
            #expect(try appender.commit() == 2, "the failed commit's record is written again with the new one")
            var random = SeededRandom(seed: seed)
            let image = disk.cutPowerNow(using: &random)
            let recovered = try Journal(path: "/j", fileSystem: image)
            let reader = try recovered.records(from: 0)
            var lines: [String] = []
            while let record = try reader.next() { lines.append(String(decoding: record.line, as: UTF8.self)) }
            #expect(lines.contains(#"{"n":2}"#), "seed \(seed): \(lines)")
            #expect(lines.filter { $0 == #"{"n":1}"# }.count >= 1, "seed \(seed): \(lines)")
        }
    }
}
