import TestSupport
import Foundation
import Testing
@testable import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// Several appenders on one journal (the logger and `overland trip stop`): each must see
/// what the others wrote, sealed or cut before it commits (journal-format.md section 6).
/// Two `Journal` objects in one process hold separate lock descriptions, so `flock`
/// serialises them as it would two processes.
@Suite struct JournalConcurrencyTests {
    @Test func interleavedAppendersShareTheNumbering() throws {
        let directory = try TemporaryDirectory()
        var policy = JournalPolicy()
        policy.segmentMaxBytes = 600
        let a = try JournalAppender(journal: Journal(path: directory.journal, create: true), policy: policy)
        let b = try JournalAppender(journal: Journal(path: directory.journal), policy: policy)
        var written: [String] = []
        for round in 0..<30 {
            let appender = round % 3 == 0 ? b : a
            let lines = (0..<(round % 4 + 1)).map { recordLine(appender === a ? "a" : "b", written.count + $0, pad: round) }
            try commit(lines, to: appender)
            written += lines
            if round % 10 == 9 { try (round % 20 == 9 ? a : b).sealActive() }
        }
        let journal = try Journal(path: directory.journal)
        let issues = IssueLog()
        #expect(try readAll(journal, onIssue: issues.handler) == expected(written))
        #expect(issues.issues.isEmpty, "\(issues.issues)")
        for name in try journal.segments().dropLast() {
            #expect(try journal.isSealed(name))
        }
    }

    /// Appender A knows the active segment by its size. Appender B seals it, and the sealed
    /// file happens to have exactly that size: A must still notice that the file changed and
    /// must not append after the seal.
    @Test func appenderNoticesASealOfTheSameSize() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let a = try JournalAppender(journal: journal)
        var written: [String] = []
        for _ in 0..<3 {
            let lines = (0..<4).map { recordLine("a", written.count + $0) }
            try commit(lines, to: a)
            written += lines
        }
        let segment = directory.journal + "/segments/00000000000000000000.jsonl.gz"
        let sizeSeenByA = Files.size(segment)

        // Find a record for B whose sealed segment is exactly as long as what A saw: one
        // level-9 member of every line, then the 64-byte seal member.
        var chosen: String?
        for length in 0..<4000 {
            let line = noisyRecordLine(written.count, bytes: length, seed: 7)
            let payload = Array((written + [line]).map { $0 + "\n" }.joined().utf8)
            let deflated = payload.withUnsafeBytes { Deflate.compress($0, level: JournalPolicy().sealLevel) }
            if 54 + deflated.count + 8 + 64 == sizeSeenByA {
                chosen = line
                break
            }
        }
        let line = try #require(chosen, "no record gives a sealed segment of \(sizeSeenByA) bytes")

        let b = try JournalAppender(journal: Journal(path: directory.journal))
        try commit([line], to: b)
        written.append(line)
        try b.sealActive()
        #expect(Files.size(segment) == sizeSeenByA, "the setup needs a sealed file of the same size")
        let sealedBytes = try Files.bytes(segment)
        #expect(try journal.isSealed(SegmentName(firstSequence: 0)))

        let last = recordLine("a", written.count)
        try commit([last], to: a)
        written.append(last)

        #expect(try Files.bytes(segment) == sealedBytes, "A appended to a sealed segment")
        let issues = IssueLog()
        #expect(try readAll(journal, onIssue: issues.handler) == expected(written))
        #expect(issues.issues.isEmpty, "\(issues.issues)")
        #expect(try journal.segments().map(\.firstSequence) == [0, UInt64(written.count - 1)])
        // And a later recovery keeps every record.
        _ = try JournalAppender(journal: Journal(path: directory.journal))
        #expect(try readAll(journal) == expected(written))
    }

    /// An appender that finds a torn tail left by another appender's crash cuts it before
    /// writing, under the lock, without losing the other's committed records.
    @Test func appenderCutsATailLeftByAnotherAppender() throws {
        let directory = try TemporaryDirectory()
        let a = try JournalAppender(journal: Journal(path: directory.journal, create: true))
        let b = try JournalAppender(journal: Journal(path: directory.journal))
        try commit([recordLine("a", 0), recordLine("a", 1)], to: a)
        try commit([recordLine("b", 2)], to: b)
        let segment = directory.journal + "/segments/00000000000000000000.jsonl.gz"
        let boundary = Files.size(segment)
        // B crashes in the middle of its next write.
        try commit([recordLine("b", 3), recordLine("b", 4)], to: b)
        let full = Files.size(segment)
        try Files.truncate(segment, to: boundary + (full - boundary) / 2)

        // A, which last saw the file before B's writes, commits next.
        try commit([recordLine("a", 3)], to: a)
        #expect(Files.list(directory.journal + "/damaged").count == 1, "the cut bytes are kept")
        #expect(try readAll(Journal(path: directory.journal)) == expected([recordLine("a", 0), recordLine("a", 1), recordLine("b", 2), recordLine("a", 3)]))
    }
}
