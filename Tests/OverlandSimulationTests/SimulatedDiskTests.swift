import OverlandJournal
import OverlandSimulation
import Testing

/// The simulated disk's model of a power cut (docs/reliability.md): what is fsynced
/// survives, what is not may be lost or torn at pages, entries need a directory fsync.
@Suite struct SimulatedDiskTests {
    /// A file written, fsynced, with its directory fsynced: every crash image holds it whole.
    @Test func syncedFileAndEntrySurviveEveryCut() throws {
        for seed in UInt64(0)..<64 {
            let disk = SimulatedDisk()
            try disk.makeDirectory("/d")
            try disk.syncDirectory("/")
            try disk.replaceAtomically("/d/f", with: Array(repeating: 7, count: 10_000))
            var random = SeededRandom(seed: seed)
            let image = disk.cutPowerNow(using: &random)
            #expect(try image.readFile("/d/f", limit: 1 << 20) == Array(repeating: 7, count: 10_000))
        }
    }

    /// Appended bytes never fsynced: across seeds, the file is found whole, without them,
    /// and torn (some pages new, some old or zeros); never anything but those pages.
    @Test func unsyncedAppendIsDroppedOrTornAtPages() throws {
        var whole = false, dropped = false, torn = false
        for seed in UInt64(0)..<200 {
            let disk = SimulatedDisk()
            let fd = try disk.createExclusive("/f")
            try disk.writeAll(fd, Array(repeating: 1, count: 4096), path: "/f")
            try disk.sync(fd, path: "/f")
            try disk.syncDirectory("/")
            try disk.writeAll(fd, Array(repeating: 2, count: 3 * 4096), path: "/f")
            var random = SeededRandom(seed: seed)
            let bytes = try disk.cutPowerNow(using: &random).readFile("/f", limit: 1 << 20)
            #expect(bytes.count % 4096 == 0 && bytes.count >= 4096)
            #expect(bytes.prefix(4096).allSatisfy { $0 == 1 })
            let pages = stride(from: 4096, to: bytes.count, by: 4096).map { bytes[$0] }
            for (index, page) in pages.enumerated() {
                #expect(bytes[(4096 * (index + 1))..<(4096 * (index + 2))].allSatisfy { $0 == page }, "torn inside a page")
            }
            if bytes.count == 4096 { dropped = true }
            if pages.count == 3 && pages.allSatisfy({ $0 == 2 }) { whole = true }
            if pages.contains(0) || (pages.contains(2) && pages.count < 3) { torn = true }
        }
        #expect(whole && dropped && torn)
    }

    /// A rename not followed by a directory fsync may be undone; after the fsync, never.
    @Test func renameNeedsDirectoryFsync() throws {
        var undone = false
        for seed in UInt64(0)..<64 {
            let disk = SimulatedDisk()
            let fd = try disk.createExclusive("/a")
            try disk.writeAll(fd, [1, 2, 3], path: "/a")
            try disk.sync(fd, path: "/a")
            try disk.syncDirectory("/")
            try disk.rename("/a", "/b")
            var random = SeededRandom(seed: seed)
            let image = disk.cutPowerNow(using: &random)
            if image.kind("/a") == .file { undone = true; #expect(image.kind("/b") == .missing) }
            else { #expect(try image.readFile("/b", limit: 16) == [1, 2, 3]) }

            let synced = SimulatedDisk()
            let other = try synced.createExclusive("/a")
            try synced.sync(other, path: "/a")
            try synced.rename("/a", "/b")
            try synced.syncDirectory("/")
            var again = SeededRandom(seed: seed)
            #expect(synced.cutPowerNow(using: &again).kind("/b") == .file)
        }
        #expect(undone)
    }

    /// A disk that drops directory fsyncs loses a synced rename in some image.
    @Test func lyingDiskDropsDirectoryFsyncs() throws {
        var lost = false
        for seed in UInt64(0)..<64 {
            let disk = SimulatedDisk(ignores: .dirFsync)
            try disk.replaceAtomically("/f", with: [9])
            var random = SeededRandom(seed: seed)
            if disk.cutPowerNow(using: &random).kind("/f") == .missing { lost = true }
        }
        #expect(lost)
    }

    /// After the cut every call fails and changes nothing; the planned cut comes exactly
    /// before the numbered change.
    @Test func plannedCutStopsEveryChange() throws {
        let disk = SimulatedDisk()
        disk.cutPower(beforeChange: 3)
        _ = try disk.createExclusive("/a")
        try disk.makeDirectory("/d") // two changes: the directory, then its parent's fsync
        #expect(throws: JournalError.self) { try disk.makeDirectory("/e") }
        #expect(disk.isDead)
        #expect(throws: JournalError.self) { try disk.rename("/a", "/b") }
        var random = SeededRandom(seed: 1)
        let image = disk.crashImage(using: &random)
        #expect(image.kind("/e") == .missing && image.kind("/b") == .missing)
    }

    /// The same seed gives the same crash image.
    @Test func sameSeedSameImage() throws {
        func image(_ seed: UInt64) throws -> [UInt8] {
            let disk = SimulatedDisk()
            let fd = try disk.createExclusive("/f")
            try disk.writeAll(fd, (0..<40_000).map { UInt8(truncatingIfNeeded: $0 / 4096 + 1) }, path: "/f")
            var random = SeededRandom(seed: seed)
            return (try? disk.cutPowerNow(using: &random).readFile("/f", limit: 1 << 20)) ?? []
        }
        for seed in UInt64(0)..<32 { #expect(try image(seed) == image(seed)) }
    }
}
