import TestSupport
import Foundation
import Testing
@testable import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// The cursor, the backlog and retention (journal-format.md sections 8 and 9).
@Suite struct JournalCursorTests {
    @Test func missingCursorIsZeroAndAdvancesDurably() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        #expect(try journal.cursor() == 0)
        #expect(!Files.exists(directory.journal + "/cursor.json"))
        try journal.advanceCursor(to: 5597)
        #expect(try journal.cursor() == 5597)
        #expect(try Journal(path: directory.journal).cursor() == 5597)

        let text = String(decoding: try Files.bytes(directory.journal + "/cursor.json"), as: UTF8.self)
        #expect(text == "{\"journal_id\":\"\(journal.id)\",\"next\":5597}\n")
        #expect(try #require(Files.mode(directory.journal + "/cursor.json")) == (S_IFREG, 0o600))
        #expect(!Files.list(directory.journal).contains { $0.hasPrefix(".tmp-") })

        try journal.advanceCursor(to: 0)
        #expect(try journal.cursor() == 0)
    }

    /// `next` is read as exact digits (section 9): 2^53 is the largest cursor, and 2^53 + 1,
    /// which a double would round to 2^53, is refused like any other malformed value.
    @Test(arguments: [("9007199254740992", true), ("0", true), ("9007199254740993", false), ("2.0", false),
                      ("2e0", false), ("-1", false), ("02", false), ("\"2\"", false), ("18446744073709551616", false)])
    func cursorNextIsExactDigits(text: String, valid: Bool) throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        try Files.write(Array("{\"journal_id\":\"\(journal.id)\",\"next\":\(text)}\n".utf8), to: directory.journal + "/cursor.json")
        switch try journal.readCursor() {
        case .valid(let next): #expect(valid && String(next) == text, "\(text) read as \(next)")
        case .refused(let code, _): #expect(!valid && code == "cursor-invalid", "\(text): \(code)")
        }
    }

    @Test func cursorOfAnotherJournalIsRefused() throws {
        let a = try TemporaryDirectory()
        let b = try TemporaryDirectory()
        let journalA = try Journal(path: a.journal, create: true)
        let journalB = try Journal(path: b.journal, create: true)
        try journalB.advanceCursor(to: 10)
        try FileManager.default.copyItem(atPath: b.journal + "/cursor.json", toPath: a.journal + "/cursor.json")
        let error = try #require(throws: JournalError.self) { try journalA.cursor() }
        guard case .untrusted(let path, let reason) = error else {
            Issue.record("expected untrusted, got \(error)")
            return
        }
        #expect(path.hasSuffix("cursor.json"))
        #expect(reason.contains(journalB.id.description), "the message names the other journal: \(reason)")
        #expect(throws: JournalError.self) { try journalA.backlog() }
    }

    static let garbageCursors: [String] = [
        "",
        "garbage",
        "{}",
        "[1]",
        "{\"next\":3}",
        "{\"journal_id\":\"ID\"}",
        "{\"journal_id\":\"ID\",\"next\":-1}",
        "{\"journal_id\":\"ID\",\"next\":1.5}",
        "{\"journal_id\":\"ID\",\"next\":\"7\"}",
        "{\"journal_id\":\"ID\",\"next\":1e300}",
        "{\"journal_id\":\"not-hex\",\"next\":1}",
        "{\"journal_id\":\"ID\",\"next\":3",
    ]

    @Test(arguments: garbageCursors)
    func garbageCursorIsRefusedWithAClearMessage(text: String) throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        try Files.write(Array(text.replacingOccurrences(of: "ID", with: journal.id.description).utf8),
                        to: directory.journal + "/cursor.json")
        let error = try #require(throws: JournalError.self) { try journal.cursor() }
        guard case .untrusted(let path, let reason) = error else {
            Issue.record("expected untrusted, got \(error)")
            return
        }
        #expect(path == directory.journal + "/cursor.json")
        #expect(reason.contains("cursor"), "\(reason)")
        #expect(error.description.contains("cursor.json"))
        // An appender does not write past a cursor it cannot read.
        let appender = try JournalAppender(journal: journal)
        try appender.append(Array(recordLine("x", 0).utf8))
        #expect(throws: JournalError.self) { try appender.commit() }
    }

    @Test func backlogIsEndMinusCursor() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        #expect(try journal.backlog() == 0)
        let appender = try JournalAppender(journal: journal)
        try commit((0..<10).map { recordLine("b", $0) }, to: appender)
        try appender.sealActive()
        try commit((10..<25).map { recordLine("b", $0) }, to: appender)
        #expect(try journal.endSequence() == 25)
        #expect(try journal.backlog() == 25)
        try journal.advanceCursor(to: 7)
        #expect(try journal.backlog() == 18)
        try journal.advanceCursor(to: 25)
        #expect(try journal.backlog() == 0)
        try journal.advanceCursor(to: 40)
        #expect(try journal.backlog() == 0)
    }

    /// Power loss can bring the journal back shorter than the cursor: the next commit then
    /// starts at the cursor, so that a sent number is never used for another record.
    @Test(arguments: [false, true])
    func commitStartsAtACursorPastTheEnd(emptyJournal: Bool) throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        var before: [String] = []
        if !emptyJournal {
            before = (0..<10).map { recordLine("c", $0) }
            try commit(before, to: appender)
        }
        // The appender was opened before the cursor moved: the guard works at commit time.
        try journal.advanceCursor(to: 50)
        let after = (0..<3).map { recordLine("after", $0) }
        try commit(after, to: appender)
        #expect(try readAll(journal) == expected(before) + expected(after, from: 50))
        #expect(try journal.endSequence() == 53)
        #expect(try journal.backlog() == 3)
        if emptyJournal {
            #expect(try journal.segments().map(\.firstSequence) == [50])
        }
        // A fresh appender continues after 52, not at the cursor.
        let second = try JournalAppender(journal: Journal(path: directory.journal))
        try commit([recordLine("later", 0)], to: second)
        #expect(try readAll(journal, from: 50).map(\.sequence) == [50, 51, 52, 53])
        // And the gap survives sealing.
        try second.sealActive()
        #expect(try readAll(journal) == expected(before) + expected(after + [recordLine("later", 0)], from: 50))
    }

    /// Journal with segments [0,10) [10,20) [20,30) sealed and [30,35) active.
    static func makeSegmented(_ directory: TemporaryDirectory) throws -> Journal {
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        for first in stride(from: 0, to: 30, by: 10) {
            try commit((first..<first + 10).map { recordLine("r", $0) }, to: appender)
            try appender.sealActive()
        }
        try commit((30..<35).map { recordLine("r", $0) }, to: appender)
        return journal
    }

    static let retentionCases: [(UInt64, [UInt64])] = [
        (0, []),
        (9, []),
        (10, [0]),
        (19, [0]),
        (20, [0, 10]),
        (30, [0, 10, 20]),
        (35, [0, 10, 20]),
        (1000, [0, 10, 20]), // never the newest
    ]

    @Test(arguments: retentionCases)
    func removeSentSegmentsDeletesOnlySentSealedSegments(cursor: UInt64, removed: [UInt64]) throws {
        let directory = try TemporaryDirectory()
        let journal = try Self.makeSegmented(directory)
        try journal.advanceCursor(to: cursor)
        let result = try journal.removeSentSegments()
        #expect(result.map(\.firstSequence) == removed)
        let remaining = [0, 10, 20, 30].filter { !removed.contains($0) } as [UInt64]
        #expect(try journal.segments().map(\.firstSequence) == remaining)
        // What is left still reads from the cursor, and the numbering carries on.
        let from = min(cursor, 35)
        #expect(try readAll(journal, from: from) == expected((Int(from)..<35).map { recordLine("r", $0) }, from: from))
        // The journal's end: the next number, past a cursor beyond the records (section 6).
        #expect(try journal.endSequence() == max(35, cursor))
        let appender = try JournalAppender(journal: journal)
        try commit([recordLine("r", 35)], to: appender)
        #expect(try readAll(journal, from: 35).map(\.sequence) == [max(35, cursor)])
    }

    @Test func removeSentSegmentsHonoursKeepSeconds() throws {
        let directory = try TemporaryDirectory()
        let journal = try Self.makeSegmented(directory)
        try journal.advanceCursor(to: 30)
        let path = directory.journal + "/segments/00000000000000000000.jsonl.gz"
        var info = stat()
        #expect(lstat(path, &info) == 0)
        let modified = Int64(info.st_mtim.tv_sec)
        #expect(try journal.removeSentSegments(keepSeconds: 3600, now: modified + 3599).isEmpty)
        #expect(try journal.segments().count == 4)
        #expect(try journal.removeSentSegments(keepSeconds: 3600, now: modified + 3601).map(\.firstSequence) == [0, 10, 20])
    }

    /// A segment left unsealed (a crash before recovery) is not deleted, even when sent.
    @Test func removeSentSegmentsKeepsUnsealedSegments() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        try commit((0..<10).map { recordLine("u", $0) }, to: appender)
        let first = directory.journal + "/segments/00000000000000000000.jsonl.gz"
        let unsealed = try Files.bytes(first)
        try appender.sealActive()
        try commit((10..<15).map { recordLine("u", $0) }, to: appender)
        try appender.sealActive()
        try commit((15..<20).map { recordLine("u", $0) }, to: appender)
        try Files.write(unsealed, to: first)
        #expect(try !journal.isSealed(SegmentName(firstSequence: 0)))
        try journal.advanceCursor(to: 20)
        #expect(try journal.removeSentSegments().map(\.firstSequence) == [10])
        #expect(Files.exists(first))
    }
}
