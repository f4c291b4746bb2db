import Foundation
import Testing
import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// A journal on a FAT stick: moved there, unmounted, mounted again, read, verified and
/// moved into again. The stick is a real FAT file system (mkfs.vfat) mounted through
/// fusefat where the container has /dev/fuse (no install can give a container that device);
/// elsewhere, a plain directory checked for what FAT refuses (names, links, sizes), and
/// copied through a FAT image with mtools. A missing tool (fusefat, mkfs.vfat, mcopy) fails.
@Suite struct PortableFATTests {
    @Test func aJournalMovedToAFATStickReadsBackAfterARemount() throws {
        let sandbox = try MoveSandbox(prefix: "overland-fat")
        let lines = try MoveRecords.makeSource(at: sandbox.source, cursor: 27)
        try #require(lines.count > 27)
        let unsent = Array(lines[27...])
        guard var stick = MountedFileSystem.fat(image: sandbox.directory.appending("stick.img"), at: sandbox.directory.appending("stick"),
                                                bytes: 8 << 20) else {
            try plainDirectoryFallback(sandbox, lines: lines)
            return
        }
        let moved = try sandbox.move()
        #expect(moved.succeeded, "\(moved)")
        checkFATCompatible(sandbox.target)

        // Pulled out and plugged in again (the image is all that stays).
        stick = try #require(stick.remount(), "the FAT image does not mount again")
        MoveInvariant.checkComplete(unsent: unsent, stayed: Array(lines.suffix(5)), source: try JournalView.read(sandbox.source),
                                    target: try JournalView.read(sandbox.target), context: "after a remount")
        let verify = try sandbox.overland(["journal", "verify", "--journal", sandbox.target])
        #expect(verify.succeeded, "\(verify)")
        for segment in try FileManager.default.contentsOfDirectory(atPath: sandbox.target + "/segments") {
            let test = try SystemTool.run("gzip", ["-t", sandbox.target + "/segments/" + segment])
            #expect(test.succeeded, "gzip -t \(segment): \(String(describing: test))")
        }

        // The logger goes on; the next move adds to the same journal on the stick.
        let journal = try Journal(path: sandbox.source)
        let appender = try JournalAppender(journal: journal)
        let more = (200..<230).map { MoveRecords.line($0) }
        for line in more { try appender.append(Array(line.utf8)) }
        try appender.sealActive()
        let second = try sandbox.move()
        #expect(second.succeeded && second.stdoutText.contains("moved 1 segment, 35 records"), "\(second)")
        let target = try #require(try JournalView.read(sandbox.target))
        #expect(target.unsent == Array(lines[27...]) + more)
        #expect(zip(target.records, target.records.dropFirst()).allSatisfy { $0.sequence + 1 == $1.sequence })
        withExtendedLifetime(stick) {}
    }

    @Test func aFullFATStickStopsTheMoveCleanly() throws {
        let sandbox = try MoveSandbox(prefix: "overland-fat")
        let lines = try MoveRecords.makeSource(at: sandbox.source, sealed: 8, perSegment: 20, cursor: 27, pad: 1500)
        try #require(lines.count > 27)
        guard let stick = MountedFileSystem.fat(image: sandbox.directory.appending("stick.img"), at: sandbox.directory.appending("stick"),
                                                bytes: 128 << 10) else {
            // Kept: no /dev/fuse in this container (a device no package can add), so no
            // FAT file system can be mounted to fill; a missing fusefat has already failed.
            try #require(access("/dev/fuse", R_OK | W_OK) != 0, "fusefat did not mount a FAT image")
            return
        }
        let full = try sandbox.move()
        full.expectExit(74)
        let source = try #require(try JournalView.read(sandbox.source))
        let target = try JournalView.read(sandbox.target)
        #expect(!source.movePending)
        MoveInvariant.check(unsent: Array(lines[27...]), source: source, target: target, context: "FAT stick full")
        #expect(source.unsent.count < lines.count - 27, "nothing fitted on a 128 KiB stick")
        withExtendedLifetime(stick) {}
    }

    /// No /dev/fuse here: a plain directory, held to FAT's rules, and copied through a FAT
    /// image by mtools (a failed test when mtools or dosfstools is missing).
    private func plainDirectoryFallback(_ sandbox: MoveSandbox, lines: [String]) throws {
        let moved = try sandbox.move()
        #expect(moved.succeeded, "\(moved)")
        checkFATCompatible(sandbox.target)
        let image = sandbox.directory.appending("stick.img")
        _ = FileManager.default.createFile(atPath: image, contents: nil)
        #expect(truncate(image, 8 << 20) == 0)
        #expect(try SystemTool.run("mkfs.vfat", [image]).succeeded == true)
        #expect(try SystemTool.run("mcopy", ["-s", "-i", image, sandbox.target, "::overland"]).succeeded == true)
        let back = sandbox.directory.appending("back")
        try FileManager.default.createDirectory(atPath: back, withIntermediateDirectories: true)
        #expect(try SystemTool.run("mcopy", ["-s", "-i", image, "::overland", back]).succeeded == true)
        MoveInvariant.checkComplete(unsent: Array(lines[27...]), stayed: Array(lines.suffix(5)), source: try JournalView.read(sandbox.source),
                                    target: try JournalView.read(back + "/overland"), context: "through a FAT image")
    }
}
