import TestSupport
import Foundation
import Testing
@testable import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

@Suite struct JournalRotationTests {
    /// Checks what every sealed segment must be: a gzip file that `gzip -t` passes, ending
    /// with a seal member that names the segment and counts its records.
    static func checkSealed(_ journal: Journal, _ name: SegmentName, records: Int) throws {
        let path = journal.path + "/segments/" + name.fileName
        #expect(try journal.isSealed(name), "\(name) is not sealed")
        let test = try gzipTest(path)
        #expect(test.status == 0, "gzip -t \(name): \(test.stderr)")
        let bytes = try Files.bytes(path)
        let spans = memberSpans(bytes)
        let seal = try #require(spans.last)
        #expect(seal.offset + seal.size == bytes.count)
        #expect(seal.kind == 2 && seal.size == 64)
        #expect(seal.firstSequence == name.firstSequence)
        #expect(Int(seal.recordCount) == records)
        #expect(spans.dropLast().allSatisfy { $0.kind == 1 })
        #expect(spans.first?.firstSequence == name.firstSequence)
    }

    @Test func rotatesBySize() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        var policy = JournalPolicy()
        policy.segmentMaxBytes = 1500
        let appender = try JournalAppender(journal: journal, policy: policy)
        var written: [String] = []
        var sealedFiles: [String: [UInt8]] = [:]
        for commitIndex in 0..<40 {
            let lines = (0..<5).map { recordLine("s", written.count + $0, pad: commitIndex % 7) }
            try commit(lines, to: appender)
            written += lines
            // A sealed segment never changes again.
            for (path, bytes) in sealedFiles {
                #expect(try Files.bytes(path) == bytes, "sealed \(path) changed after commit \(commitIndex)")
            }
            let names = try journal.segments()
            for name in names.dropLast() {
                let path = journal.path + "/segments/" + name.fileName
                if sealedFiles[path] == nil { sealedFiles[path] = try Files.bytes(path) }
            }
        }
        let names = try journal.segments()
        #expect(names.count >= 5, "1500-byte segments should have rotated often, got \(names.count)")
        #expect(try !journal.isSealed(try #require(names.last)), "the newest segment stays active")

        var zcatAll: [String] = []
        for (index, name) in names.enumerated() {
            let lines = try zcatLines(journal.path + "/segments/" + name.fileName)
            // The name is the sequence number of the first record inside.
            try #require(Int(name.firstSequence) < written.count, "\(name)")
            #expect(written[Int(name.firstSequence)] == lines.first)
            if index < names.count - 1 {
                try Self.checkSealed(journal, name, records: lines.count)
                #expect(Int(names[index + 1].firstSequence) == Int(name.firstSequence) + lines.count)
                // Rotation happens once a segment holds at least the limit, not before.
                #expect(lines.reduce(0) { $0 + $1.utf8.count + 1 } >= policy.segmentMaxBytes)
            }
            zcatAll += lines
        }
        #expect(zcatAll == written)
        #expect(try readAll(journal) == expected(written))
        #expect(try journal.endSequence() == UInt64(written.count))
    }

    @Test func rotatesByAge() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        let start: Int64 = 1_800_000_000
        try commit([recordLine("t", 0)], to: appender, wallClock: start)
        try commit([recordLine("t", 1)], to: appender, wallClock: start + 3599)
        #expect(try journal.segments().map(\.firstSequence) == [0])
        try commit([recordLine("t", 2)], to: appender, wallClock: start + 3600)
        #expect(try journal.segments().map(\.firstSequence) == [0, 2])
        try Self.checkSealed(journal, SegmentName(firstSequence: 0), records: 2)

        // The age survives a restart: it comes from the first member's MTIME.
        let restarted = try JournalAppender(journal: Journal(path: directory.journal))
        try commit([recordLine("t", 3)], to: restarted, wallClock: start + 3600 + 3599)
        #expect(try journal.segments().map(\.firstSequence) == [0, 2])
        try commit([recordLine("t", 4)], to: restarted, wallClock: start + 3600 + 3600)
        #expect(try journal.segments().map(\.firstSequence) == [0, 2, 4])

        // A clock that went back more than an hour also starts a new segment.
        try commit([recordLine("t", 5)], to: restarted, wallClock: start + 7200 - 3601)
        #expect(try journal.segments().map(\.firstSequence) == [0, 2, 4, 5])
        // Back by less than an hour: no rotation.
        try commit([recordLine("t", 6)], to: restarted, wallClock: start + 7200 - 3601 - 1000)
        #expect(try journal.segments().map(\.firstSequence) == [0, 2, 4, 5])

        #expect(try readAll(journal) == expected((0..<7).map { recordLine("t", $0) }))
        for name in try journal.segments().dropLast() {
            #expect(try gzipTest(journal.path + "/segments/" + name.fileName).status == 0)
        }
    }

    @Test func sealIfDueSealsWithoutStartingASegment() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        let start: Int64 = 1_800_000_000
        try commit([recordLine("d", 0)], to: appender, wallClock: start)
        try appender.sealIfDue(wallClock: start + 10)
        #expect(try !journal.isSealed(SegmentName(firstSequence: 0)))
        try commit([recordLine("d", 1)], to: appender, wallClock: start + 20)
        try appender.sealIfDue(wallClock: start + 3600)
        #expect(try journal.segments().map(\.firstSequence) == [0])
        try Self.checkSealed(journal, SegmentName(firstSequence: 0), records: 2)
        // The next commit starts a new segment at the next number.
        try commit([recordLine("d", 2)], to: appender, wallClock: start + 3601)
        #expect(try journal.segments().map(\.firstSequence) == [0, 2])
        // Records waiting when the segment is due go to the new segment: the due one is
        // sealed first.
        try appender.append(Array(recordLine("d", 3).utf8))
        try appender.sealIfDue(wallClock: start + 3601 + 3600)
        #expect(try journal.segments().map(\.firstSequence) == [0, 2, 3])
        try Self.checkSealed(journal, SegmentName(firstSequence: 2), records: 1)
        #expect(try readAll(journal) == expected((0..<4).map { recordLine("d", $0) }))
    }

    /// Sealing recompresses into members of at most `sealedMemberBytes`, and the sealed file
    /// reads back identically, from any point.
    @Test func sealedSegmentsReadBackIdentically() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        var policy = JournalPolicy()
        policy.sealedMemberBytes = 700
        let appender = try JournalAppender(journal: journal, policy: policy)
        var written: [String] = []
        for commitIndex in 0..<12 {
            let lines = (0..<(commitIndex % 4 + 1)).map { recordLine("r", written.count + $0, pad: 20) }
            try commit(lines, to: appender)
            written += lines
        }
        let before = try readAll(journal)
        try appender.sealActive()
        let name = SegmentName(firstSequence: 0)
        try Self.checkSealed(journal, name, records: written.count)
        let spans = memberSpans(try Files.bytes(journal.path + "/segments/" + name.fileName))
        #expect(spans.count > 2, "700-byte sealed members")
        #expect(try readAll(journal) == before)
        #expect(before == expected(written))
        for from in [0, 5, 13, UInt64(written.count - 1)] as [UInt64] {
            #expect(try readAll(journal, from: from) == Array(before.dropFirst(Int(from))))
        }
        // Sealing again is a no-op (there is no active segment).
        let bytes = try Files.bytes(journal.path + "/segments/" + name.fileName)
        try appender.sealActive()
        try JournalAppender(journal: Journal(path: directory.journal)).sealActive()
        #expect(try Files.bytes(journal.path + "/segments/" + name.fileName) == bytes)
    }
}
