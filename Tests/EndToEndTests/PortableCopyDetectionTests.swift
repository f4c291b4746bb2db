import Foundation
import Testing
import OverlandJournal
import OverlandSync

#if canImport(Glibc)
import Glibc
#endif

/// Copies made by hand keep their journal id: the checks a sync runs first
/// (`JournalOrigin.check`, journal-format.md section 13) refuse the dangerous cases they
/// can see from one machine, and `acceptCopy` overrides them.
@Suite struct PortableCopyDetectionTests {
    struct Setup {
        let sandbox: MoveSandbox
        var registry: String { sandbox.directory.appending("state/overland/journals.json") }

        init() throws {
            sandbox = try MoveSandbox(prefix: "overland-copies")
            try MoveRecords.makeSource(at: sandbox.source, sealed: 2, perSegment: 10, active: 3, cursor: 5, machine: "machine-a")
        }

        /// Checks as the machine `machine` (a hashed machine id) would.
        func check(_ path: String, machine: String? = "machine-a", acceptCopy: Bool = false) throws {
            try JournalOrigin.check(try Journal(path: path), registry: registry, machine: machine, acceptCopy: acceptCopy)
        }

        func copy(to name: String) throws -> String {
            let destination = sandbox.directory.appending(name)
            try FileManager.default.copyItem(atPath: sandbox.source, toPath: destination)
            return destination
        }
    }

    @Test func theSameJournalFromASecondPathIsRefused() throws {
        let setup = try Setup()
        try setup.check(setup.sandbox.source)
        try setup.check(setup.sandbox.source) // again from the same place: fine
        let copy = try setup.copy(to: "copy")
        #expect {
            try setup.check(copy)
        } throws: { error in
            guard case JournalOriginError.secondPath(_, let registered, _) = error else { return false }
            return registered == FileManager.default.resolvingSymlinks(setup.sandbox.source)
                && "\(error)".contains("--accept-copy")
        }
        // The user says the copy is the one from now on: the original is refused instead.
        try setup.check(copy, acceptCopy: true)
        #expect(throws: JournalOriginError.self) { try setup.check(setup.sandbox.source) }
    }

    @Test func aJournalMovedOrRemountedElsewhereIsFollowed() throws {
        let setup = try Setup()
        try setup.check(setup.sandbox.source)
        let moved = setup.sandbox.directory.appending("remounted")
        try FileManager.default.moveItem(atPath: setup.sandbox.source, toPath: moved)
        try setup.check(moved)
        // A symbolic link to the same directory is the same journal.
        let link = setup.sandbox.directory.appending("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: moved)
        try setup.check(link)
    }

    @Test func anOlderCopyIsRefusedEvenWhenTheOriginalIsGone() throws {
        let setup = try Setup()
        let backup = try setup.copy(to: "backup")
        let journal = try Journal(path: setup.sandbox.source)
        try setup.check(setup.sandbox.source)
        try journal.advanceCursor(to: 20) // a sync sent 15 more
        try JournalOrigin.record(journal, registry: setup.registry)
        try FileManager.default.removeItem(atPath: setup.sandbox.source)
        try FileManager.default.moveItem(atPath: backup, toPath: setup.sandbox.source) // the backup put back
        #expect {
            try setup.check(setup.sandbox.source)
        } throws: { error in
            guard case JournalOriginError.olderCopy(_, 20, 5, _) = error else { return false }
            return true
        }
        try setup.check(setup.sandbox.source, acceptCopy: true)
    }

    @Test func aJournalOfAnotherMachineNotMadeByMoveIsRefused() throws {
        let setup = try Setup()
        #expect {
            try setup.check(setup.sandbox.source, machine: "machine-b")
        } throws: { error in
            guard case JournalOriginError.foreignMachine(_, "van") = error else { return false }
            return "\(error)".contains("another machine") && "\(error)".contains("--accept-copy")
        }
        // Once accepted, it is this machine's journal from then on.
        try setup.check(setup.sandbox.source, machine: "machine-b", acceptCopy: true)
        try setup.check(setup.sandbox.source, machine: "machine-b")
        // A journal made by move carries another machine's points by design.
        #expect(try setup.sandbox.move().succeeded)
        try setup.check(setup.sandbox.target, machine: "machine-c")
        #expect(try Journal(path: setup.sandbox.target).movedFrom()?.map(\.description) == [try Journal(path: setup.sandbox.source).id.description])
    }

    /// Device ids are labels, not machines: a journal made on this machine for any device
    /// id is this machine's, and one whose manifest names no machine (made before it was
    /// recorded, or on a machine without an id) is not refused on that ground.
    @Test func deviceIDsPlayNoPartAndAnUnknownMachineIsNotRefused() throws {
        let setup = try Setup()
        let other = setup.sandbox.directory.appending("other-device")
        try MoveRecords.makeSource(at: other, sealed: 1, perSegment: 5, active: 1, cursor: 0, deviceID: "desk", machine: "machine-a")
        try setup.check(other)
        let unknown = setup.sandbox.directory.appending("no-machine")
        try MoveRecords.makeSource(at: unknown, sealed: 1, perSegment: 5, active: 1, cursor: 0, deviceID: "desk")
        try setup.check(unknown, machine: "machine-b")
        // Nor is any journal when this machine has no id.
        let elsewhere = setup.sandbox.directory.appending("elsewhere")
        try MoveRecords.makeSource(at: elsewhere, sealed: 1, perSegment: 5, active: 1, cursor: 0, machine: "machine-b")
        try setup.check(elsewhere, machine: nil)
    }

    @Test func aPendingMoveIsRefusedWhatever() throws {
        let setup = try Setup()
        #expect(try setup.sandbox.move(fault: "move.after-copy:1").termination == .signaled(SIGKILL))
        for accept in [false, true] {
            #expect {
                try setup.check(setup.sandbox.source, acceptCopy: accept)
            } throws: { error in
                guard case JournalOriginError.movePending = error else { return false }
                return "\(error)".contains("overland journal move --to")
            }
        }
    }

    @Test func aDamagedRegistryOnlyForgets() throws {
        let setup = try Setup()
        try FileManager.default.createDirectory(atPath: setup.sandbox.directory.appending("state/overland"), withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: setup.registry))
        try setup.check(setup.sandbox.source)
        let text = try String(contentsOfFile: setup.registry, encoding: .utf8)
        #expect(text.contains(try Journal(path: setup.sandbox.source).id.description))
        #expect(text.contains(FileManager.default.resolvingSymlinks(setup.sandbox.source)))
        var info = stat()
        #expect(lstat(setup.registry, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test func segmentFilesCopiedIntoAnotherJournalAreNeverSent() throws {
        // Copying segment files by hand between journals does nothing: every member carries
        // its journal's id, so the other journal's readers skip them as damage.
        let setup = try Setup()
        #expect(try setup.sandbox.move().succeeded)
        let other = setup.sandbox.directory.appending("other")
        try MoveRecords.makeSource(at: other, sealed: 1, perSegment: 3, active: 0, cursor: 0)
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: other + "/segments").sorted().first)
        try FileManager.default.copyItem(atPath: other + "/segments/" + segment,
                                         toPath: setup.sandbox.target + "/segments/00000000000000009000.jsonl.gz")
        let view = try #require(try JournalView.read(setup.sandbox.target))
        #expect(view.records.count == 15) // the moved records alone
        #expect(!view.issues.isEmpty)
        let verify = try setup.sandbox.overland(["journal", "verify", "--journal", setup.sandbox.target])
        #expect(verify.exitStatus == 65 && verify.stderrText.contains("another journal"), "\(verify)")
    }
}

extension FileManager {
    func resolvingSymlinks(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(decoding: UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)), as: UTF8.self)
    }
}
