import TestSupport
import Foundation
import Testing
@testable import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// Named cursors, the floor and retention over several readers (journal-format.md section 9).
@Suite struct JournalNamedCursorTests {
    static func name(_ text: String) throws -> CursorName { try #require(CursorName(text)) }

    static func text(_ path: String) throws -> String { String(decoding: try Files.bytes(path), as: UTF8.self) }

    @Test(arguments: [("default", true), ("a", true), ("0", true), ("home-assistant", true), ("trac_car2", true),
                      (String(repeating: "x", count: 32), true), (String(repeating: "x", count: 33), false), ("", false),
                      ("-a", false), ("_a", false), ("A", false), ("a.b", false), ("a/b", false), (".a", false),
                      ("a b", false), ("é", false), ("..", false)])
    func namesAreFATSafeWords(text: String, valid: Bool) {
        #expect((CursorName(text) != nil) == valid, "\(text)")
        if valid { #expect(CursorName(text)?.text == text && CursorName(text)?.description == text) }
    }

    @Test func namesSortAndDefaultIsDefault() throws {
        #expect(CursorName.default.text == "default")
        #expect(try [Self.name("b"), Self.name("a"), .default].sorted().map(\.text) == ["a", "b", "default"])
    }

    /// One reader: `cursor.json` stays its cursor, byte for byte as before, and `cursors/` never appears.
    @Test func theDefaultReaderAloneWritesCursorJSON() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        #expect(try journal.cursor(for: .default) == 0)
        try journal.advanceCursor(for: .default, to: 12)
        try journal.advanceCursor(to: 15)
        #expect(try Self.text(directory.journal + "/cursor.json") == "{\"journal_id\":\"\(journal.id)\",\"next\":15}\n")
        #expect(!Files.exists(directory.journal + "/cursors"))
        #expect(try journal.cursor() == 15 && journal.cursor(for: .default) == 15)
        #expect(try journal.cursorNames().isEmpty)
    }

    /// A second reader keeps the default reader's place in `cursors/default.json`, and
    /// `cursor.json` becomes the lowest of them.
    @Test func aSecondReaderTurnsCursorJSONIntoTheFloor() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        try journal.advanceCursor(to: 40)
        let traccar = try Self.name("traccar")
        #expect(try journal.cursor(for: traccar) == 0, "a reader without a cursor has sent nothing")
        try journal.advanceCursor(for: traccar, to: 10)
        #expect(try journal.cursorNames() == [.default, traccar])
        #expect(try journal.cursor(for: .default) == 40)
        #expect(try journal.cursor(for: traccar) == 10)
        #expect(try journal.cursor() == 10)
        #expect(try Self.text(directory.journal + "/cursors/traccar.json")
            == "{\"journal_id\":\"\(journal.id)\",\"next\":10,\"name\":\"traccar\"}\n")
        #expect(try Self.text(directory.journal + "/cursors/default.json")
            == "{\"journal_id\":\"\(journal.id)\",\"next\":40,\"name\":\"default\"}\n")
        #expect(try #require(Files.mode(directory.journal + "/cursors")) == (S_IFDIR, 0o700))
        #expect(try #require(Files.mode(directory.journal + "/cursors/traccar.json")) == (S_IFREG, 0o600))
        #expect(!Files.list(directory.journal + "/cursors").contains { $0.hasPrefix(".tmp-") })

        try journal.advanceCursor(for: traccar, to: 55)
        #expect(try journal.cursor() == 40)
        try journal.advanceCursor(to: 60)
        #expect(try journal.cursor() == 55)
        #expect(try journal.cursor(for: .default) == 60)
        // Moved back (a reader sends again), a cursor takes the floor down with it.
        try journal.advanceCursor(for: traccar, to: 5)
        #expect(try journal.cursor() == 5)
        // Reopened, everything reads the same.
        let reopened = try Journal(path: directory.journal)
        #expect(try reopened.cursor(for: .default) == 60 && reopened.cursor(for: traccar) == 5 && reopened.cursor() == 5)
    }

    @Test func theFirstNamedReaderOfAJournalNeverSyncedKeepsTheDefaultAtZero() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let a = try Self.name("a")
        try journal.advanceCursor(for: a, to: 30)
        #expect(try journal.cursor(for: .default) == 0)
        #expect(try journal.cursor() == 0)
        #expect(try journal.cursorNames() == [a, .default])
    }

    @Test func removingAReaderReleasesWhatItHeld() throws {
        let directory = try TemporaryDirectory()
        let journal = try Self.segmented(directory)
        let slow = try Self.name("slow")
        try journal.advanceCursor(to: 30)
        try journal.advanceCursor(for: slow, to: 0)
        #expect(try journal.cursor() == 0)
        #expect(try journal.removeSentSegments().isEmpty)
        try journal.removeCursor(for: slow)
        #expect(!Files.exists(directory.journal + "/cursors/slow.json"))
        #expect(try journal.cursorNames() == [.default])
        #expect(try journal.cursor() == 30)
        #expect(try journal.cursor(for: slow) == 0)
        #expect(try journal.removeSentSegments().map(\.firstSequence) == [0, 10, 20])
        // Removing a cursor that is not there is fine.
        try journal.removeCursor(for: slow)
    }

    /// Retention passes neither the floor nor any reader the caller names (missing: 0).
    @Test func retentionWaitsForEveryNamedReader() throws {
        let directory = try TemporaryDirectory()
        let journal = try Self.segmented(directory)
        let a = try Self.name("a")
        let b = try Self.name("b")
        try journal.advanceCursor(to: 35)
        try journal.advanceCursor(for: a, to: 25)
        #expect(try journal.cursor() == 25)
        // `b` has no cursor yet: it has sent nothing, and nothing goes while it is named.
        #expect(try journal.removeSentSegments(readers: [.default, a, b]).isEmpty)
        try journal.advanceCursor(for: b, to: 12)
        #expect(try journal.cursor() == 12)
        #expect(try journal.removeSentSegments(readers: [.default, a, b]).map(\.firstSequence) == [0])
        try journal.advanceCursor(for: b, to: 35)
        #expect(try journal.removeSentSegments(readers: [.default, a, b]).map(\.firstSequence) == [10])
        #expect(try journal.segments().map(\.firstSequence) == [20, 30])
    }

    @Test func backlogIsPerReader() throws {
        let directory = try TemporaryDirectory()
        let journal = try Self.segmented(directory)
        let a = try Self.name("a")
        try journal.advanceCursor(to: 30)
        try journal.advanceCursor(for: a, to: 10)
        #expect(try journal.backlog(for: .default) == 5)
        #expect(try journal.backlog(for: a) == 25)
        #expect(try journal.backlog(for: Self.name("never")) == 35)
        #expect(try journal.backlog() == 25)
    }

    /// A reader's cursor past the end (a power loss after it sent) makes the appender
    /// number new records after it, as `cursor.json` always did, though the floor is lower.
    @Test func theAppenderContinuesAfterTheHighestCursor() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        try commit((0..<10).map { recordLine("h", $0) }, to: appender)
        try journal.advanceCursor(to: 5)
        try journal.advanceCursor(for: Self.name("fast"), to: 50)
        #expect(try journal.cursor() == 5)
        try commit([recordLine("after", 0)], to: appender)
        #expect(try readAll(journal, from: 10).map(\.sequence) == [50])
    }

    @Test func badNamedCursorsAreRefusedWithTheirCodes() throws {
        let directory = try TemporaryDirectory()
        let other = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let foreign = try Journal(path: other.journal, create: true)
        let a = try Self.name("a")
        try journal.advanceCursor(for: a, to: 3)
        let file = directory.journal + "/cursors/a.json"
        func code() throws -> String? {
            if case .refused(let code, _) = try journal.readCursor(for: a) { return code }
            return nil
        }
        try Files.write(Array("{\"journal_id\":\"\(journal.id)\",\"next\":3,\"name\":\"b\"}\n".utf8), to: file)
        #expect(try code() == "cursor-invalid")
        try Files.write(Array("{\"journal_id\":\"\(journal.id)\",\"next\":3}\n".utf8), to: file)
        #expect(try code() == "cursor-invalid")
        try Files.write(Array("{\"journal_id\":\"\(journal.id)\",\"next\":3,\"name\":7}\n".utf8), to: file)
        #expect(try code() == "cursor-invalid")
        try Files.write(Array("{\"journal_id\":\"\(foreign.id)\",\"next\":3,\"name\":\"a\"}\n".utf8), to: file)
        #expect(try code() == "cursor-foreign")
        let error = try #require(throws: JournalError.self) { try journal.cursor(for: a) }
        #expect(error.description.contains("cursors/a.json") && error.description.contains(foreign.id.description))
        try FileManager.default.removeItem(atPath: file)
        try Files.symlink(directory.journal + "/cursor.json", at: file)
        #expect(try code() == "cursor-not-file")
    }

    /// A refused named cursor never lets the floor rise (its place is unknown), and the
    /// other readers go on.
    @Test func aRefusedNamedCursorHoldsTheFloorWhereItIs() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let a = try Self.name("a")
        let b = try Self.name("b")
        try journal.advanceCursor(for: a, to: 10)
        try journal.advanceCursor(for: b, to: 10)
        try journal.advanceCursor(to: 10)
        #expect(try journal.cursor() == 10)
        try Files.write(Array("garbage".utf8), to: directory.journal + "/cursors/a.json")
        try journal.advanceCursor(for: b, to: 30)
        try journal.advanceCursor(to: 30)
        #expect(try journal.cursor() == 10)
        #expect(throws: JournalError.self) { try journal.cursor(for: a) }
        try journal.advanceCursor(for: a, to: 20)
        #expect(try journal.cursor() == 20)
    }

    @Test func filesThatAreNotCursorsAreNotReaders() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        try journal.advanceCursor(for: Self.name("a"), to: 4)
        for stray in ["Upper.json", ".tmp-a.json", "notes.txt", "-x.json"] {
            try Files.write(Array("{}".utf8), to: directory.journal + "/cursors/" + stray)
        }
        #expect(try journal.cursorNames() == [Self.name("a"), .default])
        try journal.advanceCursor(for: Self.name("a"), to: 6)
        #expect(try journal.cursor() == 0)
    }

    @Test func strayFilesAreReportedAndALinkedCursorsDirectoryIsRefused() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        try journal.advanceCursor(for: Self.name("a"), to: 1)
        try Files.write(Array("{}".utf8), to: directory.journal + "/cursors/Upper.json")
        let issues = IssueLog()
        #expect(try journal.cursorNames(onIssue: issues.handler) == [Self.name("a"), .default])
        #expect(issues.of(.unexpectedFile).map(\.file) == ["cursors/Upper.json"])

        let elsewhere = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: elsewhere.path + "/cursors", withIntermediateDirectories: false)
        try FileManager.default.removeItem(atPath: directory.journal + "/cursors")
        try Files.symlink(elsewhere.path + "/cursors", at: directory.journal + "/cursors")
        let error = try #require(throws: JournalError.self) { try Journal(path: directory.journal) }
        #expect(error.description.contains("cursors") && error.description.contains("symbolic link"), "\(error)")
    }

    @Test func statisticsCountWhatEachReaderSent() throws {
        let directory = try TemporaryDirectory()
        let journal = try Self.segmented(directory)
        try journal.advanceCursor(to: 12)
        try journal.advanceCursor(for: Self.name("a"), to: 30)
        let stats = try journal.statistics()
        #expect(stats.cursor == 12 && stats.sentRecords == 12)
        #expect(stats.readers.map(\.name.text) == ["a", "default"])
        #expect(stats.readers.map(\.sentRecords) == [30, 12])
        #expect(stats.readers.map(\.cursor) == [30, 12])
    }

    @Test func aCursorPastTheLimitIsRefusedBeforeAnyWrite() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        #expect(throws: JournalError.self) { try journal.advanceCursor(for: Self.name("a"), to: SequenceNumber.limit + 1) }
        #expect(!Files.exists(directory.journal + "/cursors"))
    }

    @Test func theCursorLockIsExclusive() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let held = try #require(try journal.tryLockCursors())
        #expect(Files.exists(directory.journal + "/state/sync.lock"))
        // flock is per open file: a second open in this process contends like another process.
        #expect(try journal.tryLockCursors() == nil)
        withExtendedLifetime(held) {}
    }

    /// Segments [0,10) [10,20) [20,30) sealed and [30,35) active.
    static func segmented(_ directory: TemporaryDirectory) throws -> Journal {
        try JournalCursorTests.makeSegmented(directory)
    }
}
