import TestSupport
import Foundation
import Testing
@testable import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// Commits on a second thread (a bulk import), and the in-place seal of segments whose
/// members are all large.
@Suite struct JournalBackgroundCommitTests {
    /// A policy whose members count as large from 2 KiB on, so a few records make a bulk import.
    static func bulkPolicy(segmentMaxBytes: Int = 16 << 10) -> JournalPolicy {
        var policy = JournalPolicy()
        policy.commitBytes = 4 << 10
        policy.sealedMemberBytes = 4 << 10
        policy.segmentMaxBytes = segmentMaxBytes
        return policy
    }

    @Test func backgroundCommitsKeepEveryRecordInOrder() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal, policy: Self.bulkPolicy())
        var written: [String] = []
        for number in 0..<2_000 {
            let line = recordLine("bulk", number, pad: number % 13)
            try appender.append(Array(line.utf8))
            written.append(line)
            if appender.commitIsDue() { try appender.commitInBackground() }
        }
        #expect(appender.finishBackgroundCommit() == nil)
        try appender.commit()
        #expect(try readAll(journal) == expected(written))
        let names = try journal.segments()
        #expect(names.count > 5, "16 KiB segments should have rotated, got \(names.count)")
        for name in names.dropLast() {
            let lines = try zcatLines(journal.path + "/segments/" + name.fileName)
            try JournalRotationTests.checkSealed(journal, name, records: lines.count)
        }
        #expect(try journal.verify().damage == 0)
    }

    @Test func aFailedBackgroundCommitGivesItsRecordsBack() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal, policy: Self.bulkPolicy())
        let first = (0..<40).map { recordLine("first", $0) }
        try commit(first, to: appender)
        // Take the segments directory away: the next commit cannot even list it.
        let segments = directory.journal + "/segments"
        let hidden = directory.journal + "/segments-away"
        #expect(rename(segments, hidden) == 0)
        let second = (0..<40).map { recordLine("second", $0) }
        for line in second { try appender.append(Array(line.utf8)) }
        try appender.commitInBackground()
        #expect(appender.pendingRecords == 0, "the records went to the background commit")
        let third = (0..<3).map { recordLine("third", $0) }
        for line in third { try appender.append(Array(line.utf8)) }
        #expect(throws: JournalError.self) { try appender.commitInBackground() }
        #expect(appender.pendingRecords == second.count + third.count, "the failed commit's records wait again, first")
        #expect(rename(hidden, segments) == 0)
        try appender.commit()
        #expect(try readAll(journal) == expected(first + second + third))
    }

    @Test func aFailureJoinedByAPolicyChangeIsStillReported() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal, policy: Self.bulkPolicy())
        try commit((0..<5).map { recordLine("first", $0) }, to: appender)
        let segments = directory.journal + "/segments"
        #expect(rename(segments, segments + "-away") == 0)
        let lines = (0..<40).map { recordLine("second", $0) }
        for line in lines { try appender.append(Array(line.utf8)) }
        try appender.commitInBackground()
        appender.policy.commitInterval = 1 // waits for the commit, which fails
        #expect(appender.pendingRecords == lines.count)
        #expect(appender.finishBackgroundCommit() != nil, "the failure is reported once")
        #expect(appender.finishBackgroundCommit() == nil)
        #expect(rename(segments + "-away", segments) == 0)
        try appender.commit()
        #expect(try readAll(journal).count == 5 + lines.count)
    }

    @Test func aLargeMemberSegmentIsSealedInPlace() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal, policy: Self.bulkPolicy(segmentMaxBytes: 1 << 20))
        var written: [String] = []
        for commitIndex in 0..<3 {
            let lines = (0..<60).map { recordLine("c\(commitIndex)", $0, pad: 20) }
            try commit(lines, to: appender)
            written += lines
        }
        let name = try #require(try journal.segments().first)
        let path = journal.path + "/segments/" + name.fileName
        let before = try Files.bytes(path)
        var info = stat()
        #expect(stat(path, &info) == 0)
        let inode = info.st_ino
        try appender.sealActive()
        try JournalRotationTests.checkSealed(journal, name, records: written.count)
        let after = try Files.bytes(path)
        #expect(Array(after.prefix(before.count)) == before, "the members are kept byte for byte")
        #expect(after.count == before.count + 64, "only the seal member is added")
        #expect(stat(path, &info) == 0)
        #expect(info.st_ino == inode, "sealed in place, not rewritten")
        #expect(try readAll(journal) == expected(written))
        // A later commit starts a new segment after the sealed one.
        try commit([recordLine("later", 0)], to: appender)
        #expect(try journal.segments().count == 2)
        #expect(try readAll(journal).count == written.count + 1)
    }

    @Test func smallMembersAreRecompressedWhenSealed() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal, policy: Self.bulkPolicy(segmentMaxBytes: 1 << 20))
        var written: [String] = []
        for commitIndex in 0..<30 {
            let lines = (0..<3).map { recordLine("c\(commitIndex)", $0) }
            try commit(lines, to: appender)
            written += lines
        }
        let name = try #require(try journal.segments().first)
        try appender.sealActive()
        try JournalRotationTests.checkSealed(journal, name, records: written.count)
        let spans = memberSpans(try Files.bytes(journal.path + "/segments/" + name.fileName))
        #expect(spans.count < 30, "30 small commits become a few members, got \(spans.count)")
        #expect(try readAll(journal) == expected(written))
    }
}
