import TestSupport
import Foundation
import Testing
@testable import OverlandJournal

/// Progress records (`state/progress-NAME`, journal-format.md section 9, issue 25): a
/// reader's place between two durable writes of its cursor file.
@Suite struct JournalProgressTests {
    static func name(_ text: String) throws -> CursorName { try #require(CursorName(text)) }

    static func progressPath(_ directory: TemporaryDirectory, _ name: String = "default") -> String {
        directory.journal + "/state/progress-" + name
    }

    static func inode(_ path: String) throws -> UInt64 {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64)
    }

    /// The bytes of section 9, field by field: what the Python reader and the vectors build.
    @Test func theRecordsBytesAreTheDocumentedOnes() throws {
        let id = try #require(JournalID(hex: "6f7665726c616e642d766563746f7221"))
        let record = ProgressRecord(journalID: id, name: try Self.name("home"), base: 0x0102, next: 1 << 53)
        let bytes = record.encoded
        try #require(bytes.count == 76)
        #expect(Array(bytes[0..<8]) == Array("olprog1\n".utf8))
        #expect(Array(bytes[8..<24]) == id.bytes)
        #expect(Array(bytes[24..<32]) == [0x02, 0x01, 0, 0, 0, 0, 0, 0])
        #expect(Array(bytes[32..<40]) == [0, 0, 0, 0, 0, 0, 0x20, 0])
        #expect(Array(bytes[40..<44]) == Array("home".utf8) && bytes[44..<72].allSatisfy { $0 == 0 })
        #expect(le(bytes, 72, as: UInt32.self) == crc32(bytes[0..<72]))
        #expect(ProgressRecord(decoding: bytes) == record)
    }

    @Test func aTornZeroShortOrLongRecordDoesNotDecode() throws {
        let id = try #require(JournalID(hex: "6f7665726c616e642d766563746f7221"))
        let bytes = ProgressRecord(journalID: id, name: .default, base: 5, next: 9).encoded
        for index in [0, 9, 25, 33, 41, 60, 72, 75] {
            var torn = bytes
            torn[index] ^= 0x10
            #expect(ProgressRecord(decoding: torn) == nil, "byte \(index) flipped")
        }
        #expect(ProgressRecord(decoding: [UInt8](repeating: 0, count: 76)) == nil)
        #expect(ProgressRecord(decoding: Array(bytes.prefix(40))) == nil)
        #expect(ProgressRecord(decoding: bytes + [0]) == nil)
    }

    /// An acknowledgement moved with `durably: false` goes to the progress record alone,
    /// overwritten in place (the same file, no rename); the cursor file stays until
    /// `syncCursor`, which writes it and settles the record.
    @Test func movesGoToTheProgressRecordInPlaceUntilSynced() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        try journal.advanceCursor(for: .default, to: 10)
        let cursorFile = directory.journal + "/cursor.json"
        let cursorBefore = try Files.bytes(cursorFile)
        try journal.advanceCursor(for: .default, to: 20, durably: false)
        let inode = try Self.inode(Self.progressPath(directory))
        try journal.advanceCursor(for: .default, to: 30, durably: false)
        #expect(try Self.inode(Self.progressPath(directory)) == inode, "overwritten in place, not replaced")
        #expect(try Files.bytes(cursorFile) == cursorBefore, "the cursor file waits for the durable point")
        #expect(try journal.cursor(for: .default) == 30)
        #expect(try journal.readDurableCursor(for: .default) == .valid(10))
        #expect(try journal.readProgress(for: .default) == .valid(30))
        #expect(try journal.cursor() == 10, "cursor.json as the file says")

        try journal.syncCursor(for: .default)
        #expect(try journal.readDurableCursor(for: .default) == .valid(30))
        let settled = try #require(ProgressRecord(decoding: try Files.bytes(Self.progressPath(directory))))
        #expect(settled.base == 30 && settled.next == 30)
        #expect(try Self.inode(Self.progressPath(directory)) == inode)
        #expect(try #require(Files.mode(Self.progressPath(directory))).permissions == 0o600)
    }

    /// A record that is torn, zeros, another journal's or reader's, or written over another
    /// cursor value is ignored: the reader is at its cursor file, nothing is refused.
    @Test(arguments: ["torn", "zeros", "foreign", "other-reader", "stale", "behind"])
    func anUnusableRecordFallsBackToTheCursorFile(kind: String) throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        try journal.advanceCursor(for: .default, to: 10)
        try journal.advanceCursor(for: .default, to: 25, durably: false)
        let path = Self.progressPath(directory)
        var bytes = try Files.bytes(path)
        let foreign = try #require(JournalID(hex: "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5"))
        let code: String
        switch kind {
        case "torn": bytes[33] ^= 1; code = "progress-torn"
        case "zeros": bytes = [UInt8](repeating: 0, count: 76); code = "progress-torn"
        case "foreign": bytes = ProgressRecord(journalID: foreign, name: .default, base: 10, next: 25).encoded; code = "progress-foreign"
        case "other-reader": bytes = ProgressRecord(journalID: journal.id, name: try Self.name("home"), base: 10, next: 25).encoded; code = "progress-foreign"
        case "stale": bytes = ProgressRecord(journalID: journal.id, name: .default, base: 9, next: 25).encoded; code = "progress-stale"
        default: bytes = ProgressRecord(journalID: journal.id, name: .default, base: 10, next: 5).encoded; code = "progress-invalid"
        }
        try Files.write(bytes, to: path)
        #expect(try journal.cursor(for: .default) == 10)
        #expect(try journal.readProgress(for: .default) == .ignored(code: code))
        // The next acknowledgement writes a whole record again and is taken.
        try journal.advanceCursor(for: .default, to: 26, durably: false)
        #expect(try journal.cursor(for: .default) == 26)
    }

    /// Lowering a cursor (a reader sending again) settles its progress record first: a
    /// higher record never stays beside the lowered cursor file (after a power cut it would
    /// skip what the reader is to send again). A lowering asked with `durably: false` is
    /// written durably all the same.
    @Test func loweringSettlesTheProgressRecord() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let home = try Self.name("home")
        try journal.advanceCursor(for: home, to: 10)
        try journal.advanceCursor(for: home, to: 50, durably: false)
        try journal.advanceCursor(for: home, to: 20, durably: false)
        #expect(try journal.readDurableCursor(for: home) == .valid(20))
        var record = try #require(ProgressRecord(decoding: try Files.bytes(Self.progressPath(directory, "home"))))
        #expect(record.base == 20 && record.next == 20)
        // Back to the cursor file's value by a durable write: the record agrees, it says nothing higher.
        try journal.advanceCursor(for: home, to: 60, durably: false)
        try journal.advanceCursor(for: home, to: 20)
        record = try #require(ProgressRecord(decoding: try Files.bytes(Self.progressPath(directory, "home"))))
        #expect(record.base == 20 && record.next == 20)
        #expect(try journal.cursor(for: home) == 20)
    }

    /// A reader's first cursor is written to its cursor file, durably, even when asked
    /// with `durably: false`: a progress record continues a cursor file that exists.
    @Test func aFirstCursorIsAFile() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        try journal.advanceCursor(for: .default, to: 7, durably: false)
        #expect(Files.exists(directory.journal + "/cursor.json"))
        #expect(!Files.exists(Self.progressPath(directory)))
        let home = try Self.name("home")
        try journal.advanceCursor(for: home, to: 3, durably: false)
        #expect(Files.exists(directory.journal + "/cursors/home.json"))
        #expect(try journal.cursor(for: home) == 3 && journal.cursor(for: .default) == 7 && journal.cursor() == 3)
    }

    /// Retention and the floor go by the cursor files: a progress record ahead releases
    /// nothing until the cursor file is written there.
    @Test func retentionAndTheFloorGoByCursorFiles() throws {
        let directory = try TemporaryDirectory()
        let journal = try JournalCursorTests.makeSegmented(directory)
        let home = try Self.name("home")
        try journal.advanceCursor(for: .default, to: 0)
        try journal.advanceCursor(for: home, to: 0)
        try journal.advanceCursor(for: .default, to: 20, durably: false)
        try journal.advanceCursor(for: home, to: 20, durably: false)
        #expect(try journal.cursor() == 0)
        #expect(try journal.removeSentSegments(readers: [.default, home]).isEmpty)
        try journal.syncCursor(for: .default)
        try journal.syncCursor(for: home)
        #expect(try journal.cursor() == 20)
        #expect(try journal.removeSentSegments(readers: [.default, home]).map(\.firstSequence) == [0, 10])
    }

    /// An appender numbers new records after a progress record past the journal's end
    /// (what a power cut that kept the record and lost records leaves), as after a cursor.
    @Test func anAppenderContinuesAfterAProgressRecord() throws {
        let directory = try TemporaryDirectory()
        do {
            let journal = try Journal(path: directory.journal, create: true)
            try journal.advanceCursor(for: .default, to: 0)
            try journal.advanceCursor(for: .default, to: 40, durably: false)
        }
        let journal = try Journal(path: directory.journal)
        let appender = try JournalAppender(journal: journal)
        try appender.append(Array(recordLine("p", 1).utf8), now: 0)
        _ = try appender.commit()
        #expect(try journal.endSequence() == 41)
    }

    /// Removing a reader removes its progress record: a reader added again later under the
    /// same name does not take up the old place.
    @Test func removingAReaderRemovesItsProgressRecord() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let home = try Self.name("home")
        try journal.advanceCursor(for: home, to: 0)
        try journal.advanceCursor(for: home, to: 9, durably: false)
        try journal.removeCursor(for: home)
        #expect(!Files.exists(Self.progressPath(directory, "home")))
        #expect(try journal.cursor(for: home) == 0)
    }
}
