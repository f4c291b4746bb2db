import TestSupport
import Foundation
import Testing
@testable import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

@Suite struct JournalAppendReadTests {
    /// Records that exercise the byte-exact path: escapes, non-ASCII, numbers, nesting.
    static let variedLines: [String] = [
        #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.030581,37.331800]},"properties":{"timestamp":"2026-11-21T05:17:12Z","speed":4.5}}"#,
        #"{"a":"\u00e9\n\"quoted\"","b":[1,2.5e-3,-0],"c":null,"d":true}"#,
        #"{"name":"Zürich → Genève 😀"}"#,
        "{}",
        #"{ "spaced" : [ 1 , 2 ] }"#,
    ]

    @Test func appendCommitReadRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        var written: [String] = []
        #expect(try journal.endSequence() == 0)
        #expect(try journal.lastRecord() == nil)
        #expect(try readAll(journal).isEmpty)

        for (commitIndex, size) in [1, 5, 2, 17].enumerated() {
            let lines = (0..<size).map { recordLine("c\(commitIndex)", $0) }
            #expect(try commit(lines, to: appender) == size)
            written += lines
            #expect(try journal.endSequence() == UInt64(written.count))
        }
        try commit(Self.variedLines, to: appender)
        written += Self.variedLines

        let issues = IssueLog()
        let records = try readAll(journal, onIssue: issues.handler)
        #expect(records == expected(written))
        #expect(issues.issues.isEmpty)
        let last = try #require(try journal.lastRecord())
        #expect(last.sequence == UInt64(written.count - 1))
        #expect(String(decoding: last.line, as: UTF8.self) == written.last)
        // A second journal object (another process) reads the same.
        #expect(try readAll(Journal(path: directory.journal)) == expected(written))
        // A new appender continues the numbering.
        let second = try JournalAppender(journal: Journal(path: directory.journal))
        try commit([recordLine("later", 0)], to: second)
        #expect(try readAll(journal).last == ReadRecord(sequence: UInt64(written.count), line: recordLine("later", 0)))
    }

    @Test func uncommittedRecordsAreNotReadable() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        try appender.append(Array(recordLine("a", 0).utf8))
        #expect(appender.pendingRecords == 1)
        #expect(try readAll(journal).isEmpty)
        #expect(try journal.segments().isEmpty, "nothing is written before a commit")
        #expect(try appender.commit() == 1)
        #expect(try appender.commit() == 0, "an empty commit writes nothing")
        #expect(appender.pendingRecords == 0)
        #expect(try readAll(journal).count == 1)
        #expect(Files.list(directory.journal + "/segments") == ["00000000000000000000.jsonl.gz"])
    }

    @Test func commitIsDueByIntervalAndBytes() throws {
        let directory = try TemporaryDirectory()
        var policy = JournalPolicy()
        policy.commitInterval = 5
        policy.commitBytes = 1000
        let appender = try JournalAppender(journal: Journal(path: directory.journal, create: true), policy: policy)
        #expect(!appender.commitIsDue(now: 100))
        #expect(appender.secondsUntilCommit(now: 100) == nil)
        try appender.append(Array(recordLine("a", 0).utf8), now: 100)
        #expect(!appender.commitIsDue(now: 104.9))
        #expect(appender.commitIsDue(now: 105))
        #expect(appender.secondsUntilCommit(now: 102) == 3)
        try appender.commit()
        #expect(!appender.commitIsDue(now: 1000))
        try appender.append(Array(recordLine("b", 0, pad: 1200).utf8), now: 200)
        #expect(appender.commitIsDue(now: 200), "1000 bytes waiting make a commit due at once")
    }

    @Test func aBulkImportCommitsByItsOwnSize() throws {
        let directory = try TemporaryDirectory()
        var policy = JournalPolicy()
        policy.commitBytes = 1000
        policy.bulkCommitBytes = 3000
        let appender = try JournalAppender(journal: Journal(path: directory.journal, create: true), policy: policy)
        try appender.append(Array(recordLine("a", 0, pad: 1200).utf8), now: 100)
        #expect(appender.commitIsDue(now: 100))
        #expect(!appender.commitIsDue(now: 100, bulk: true), "1200 of 3000 bytes: a bulk import reads on")
        #expect(appender.commitIsDue(now: 105, bulk: true), "the interval holds for a bulk import too")
        try appender.append(Array(recordLine("b", 0, pad: 2000).utf8), now: 100)
        #expect(appender.commitIsDue(now: 100, bulk: true))
    }

    static let middleStarts: [UInt64] = [0, 1, 6, 7, 8, 19, 20, 21, 33, 34, 35, 500]

    /// Reading from a cursor inside the first, a middle and the last segment, and at and past
    /// the end.
    @Test(arguments: middleStarts)
    func readFromTheMiddle(from: UInt64) throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        var written: [String] = []
        // Segments: [0, 20) sealed, [20, 35) active; commits of 7 records.
        for index in 0..<35 {
            written.append(recordLine("m", index))
            try appender.append(Array(try #require(written.last).utf8))
            if written.count % 7 == 0 || written.count == 20 { try appender.commit() }
            if written.count == 20 { try appender.sealActive() }
        }
        try appender.commit()
        #expect(try journal.segments().map(\.firstSequence) == [0, 20])

        let records = try readAll(journal, from: from)
        let all = expected(written)
        #expect(records == Array(all.dropFirst(Int(min(from, UInt64(all.count))))))
    }

    @Test func segmentsAreGzipFilesThatZcatReads() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        var written: [String] = []
        for commitIndex in 0..<6 {
            let lines = (0..<(commitIndex + 1)).map { recordLine("z", written.count + $0, pad: commitIndex * 3) }
            try commit(lines, to: appender)
            written += lines
        }
        try commit(Self.variedLines, to: appender)
        written += Self.variedLines

        let segment = try #require(try segmentPaths(journal).first)
        // Active segment, after the appender's commits.
        let test = try gzipTest(segment)
        #expect(test.status == 0, "gzip -t: \(test.stderr)")
        let lines = try zcatLines(segment)
        #expect(lines == written)
        for line in lines { #expect(isJSONObject(line), "not a JSON object: \(line)") }

        // And once sealed.
        try appender.sealActive()
        #expect(try journal.isSealed(try #require(try journal.segments().first)))
        #expect(try gzipTest(segment).status == 0)
        #expect(try zcatLines(segment) == written)
    }

    /// Every member is laid out as section 5 says, byte for byte.
    @Test func membersFollowTheSpecifiedLayout() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        try commit((0..<3).map { recordLine("h", $0) }, to: appender, wallClock: 1_700_000_000)
        try commit((3..<8).map { recordLine("h", $0) }, to: appender, wallClock: 1_700_000_005)

        let path = try #require(try segmentPaths(journal).first)
        let bytes = try Files.bytes(path)
        let spans = memberSpans(bytes)
        try #require(spans.count == 2)
        #expect(spans.last.map { $0.offset + $0.size } == bytes.count, "members cover the file")
        for (index, span) in spans.enumerated() {
            try #require(span.offset + 54 <= bytes.count)
            let header = Array(bytes[span.offset..<(span.offset + 54)])
            #expect(Array(header[0..<4]) == [0x1f, 0x8b, 0x08, 0x06])
            #expect(le(header, 4, as: UInt32.self) == [1_700_000_000, 1_700_000_005][index])
            #expect(header[8] == 0 && header[9] == 255)
            #expect(le(header, 10, as: UInt16.self) == 40)
            #expect(header[12] == 0x4f && header[13] == 0x4a && le(header, 14, as: UInt16.self) == 36)
            #expect(header[16] == 1 && header[17] == 1 && header[18] == 0 && header[19] == 0)
            #expect(span.firstSequence == [0, 3][index])
            #expect(span.recordCount == [3, 5][index])
            #expect(Array(header[36..<52]) == journal.id.bytes)
            #expect(le(header, 52, as: UInt16.self) == UInt16(truncatingIfNeeded: crc32(header[0..<52])))
            // The trailer: CRC-32 and ISIZE of the lines.
            let lines = (Int(span.firstSequence)..<Int(span.firstSequence) + Int(span.recordCount))
                .map { recordLine("h", $0) + "\n" }.joined()
            #expect(le(bytes, span.offset + span.size - 8, as: UInt32.self) == crc32(Array(lines.utf8)))
            #expect(le(bytes, span.offset + span.size - 4, as: UInt32.self) == UInt32(lines.utf8.count))
        }

        // The seal member: kind 2, empty deflate, first = the segment's name, count = records.
        try appender.sealActive()
        let sealed = try Files.bytes(path)
        let seal = try #require(memberSpans(sealed).last)
        #expect(seal.kind == 2)
        #expect(seal.size == 64)
        #expect(seal.firstSequence == 0 && seal.recordCount == 8)
        #expect(Array(sealed[seal.deflateRange]) == [0x03, 0x00])
        #expect(Array(sealed[(seal.offset + 56)...]) == [0, 0, 0, 0, 0, 0, 0, 0])
    }

    /// A member built from the spec alone (not by the library) is read back: the format
    /// document is enough to write a journal.
    @Test func readsAMemberBuiltFromTheSpec() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let lines = [recordLine("spec", 0), recordLine("spec", 1)]
        let payload = Array(lines.map { $0 + "\n" }.joined().utf8)
        let deflated = payload.withUnsafeBytes { Deflate.compress($0, level: 1) }
        let member = specMember(firstSequence: 0, recordCount: 2, journalID: journal.id.bytes, deflate: deflated,
                                crc: crc32(payload), isize: UInt32(payload.count))
        try Files.write(member, to: directory.journal + "/segments/00000000000000000000.jsonl.gz")
        #expect(try readAll(journal) == expected(lines))
        #expect(try gzipTest(directory.journal + "/segments/00000000000000000000.jsonl.gz").status == 0)
    }

    /// After a failed write an appender rewrites the same numbers into a new segment: where
    /// two segments overlap, the later one wins, for readers and for recovery (section 4).
    @Test func laterSegmentTakesPrecedence() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        let early = (0..<5).map { recordLine("old", $0) }
        try commit(early, to: appender)
        // A copy of the journal at this point writes x5..x7 into a new segment named 5.
        let copy = try TemporaryDirectory()
        try Files.copyTree(directory.journal, to: copy.journal)
        let other = try JournalAppender(journal: Journal(path: copy.journal))
        try other.sealActive()
        let rewritten = (5..<8).map { recordLine("new", $0) }
        try commit(rewritten, to: other)
        // The original goes on to 0..<10 in segment 0, then gets the overlapping segment.
        try commit((5..<10).map { recordLine("old", $0) }, to: appender)
        try FileManager.default.copyItem(atPath: copy.journal + "/segments/00000000000000000005.jsonl.gz",
                                         toPath: directory.journal + "/segments/00000000000000000005.jsonl.gz")

        let issues = IssueLog()
        #expect(try readAll(Journal(path: directory.journal), onIssue: issues.handler) == expected(early + rewritten))
        #expect(issues.issues.isEmpty, "\(issues.issues)")
        #expect(try readAll(Journal(path: directory.journal), from: 6) == expected(Array(rewritten.dropFirst()), from: 6))
        #expect(try Journal(path: directory.journal).endSequence() == 8)

        // Recovery seals segment 0 with only the records below 5, and appends after 7.
        let recovered = try JournalAppender(journal: Journal(path: directory.journal))
        #expect(try zcatLines(directory.journal + "/segments/00000000000000000000.jsonl.gz") == early)
        try commit([recordLine("next", 8)], to: recovered)
        #expect(try readAll(Journal(path: directory.journal)) == expected(early + rewritten + [recordLine("next", 8)]))
    }

    static let invalidRecords: [(String, [UInt8])] = [
        ("empty", []),
        ("newline inside", Array("{\"a\":\n1}".utf8)),
        ("trailing newline", Array("{\"a\":1}\n".utf8)),
        ("CR LF ending", Array("{\"a\":1}\r\n".utf8)),
        ("array", Array("[1,2]".utf8)),
        ("string", Array("\"text\"".utf8)),
        ("number", Array("42".utf8)),
        ("two objects", Array("{}{}".utf8)),
        ("truncated object", Array("{\"a\":".utf8)),
        ("invalid UTF-8", [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
        ("65,537 bytes", Array(("{\"p\":\"" + String(repeating: "x", count: 65_537 - 8) + "\"}").utf8)),
    ]

    @Test(arguments: invalidRecords)
    func invalidRecordsAreRefused(name: String, line: [UInt8]) throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        try appender.append(Array(recordLine("ok", 0).utf8))
        let error = try #require(throws: JournalError.self, "\(name) was accepted") { try appender.append(line) }
        guard case .invalidRecord = error else {
            Issue.record("expected invalidRecord, got \(error)")
            return
        }
        #expect(appender.pendingRecords == 1, "a refused record leaves nothing waiting")
        try appender.append(Array(recordLine("ok", 1).utf8))
        try appender.commit()
        #expect(try readAll(journal) == expected([recordLine("ok", 0), recordLine("ok", 1)]))
    }

    @Test func aRecordOfExactlyTheLimitIsAccepted() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        let line = "{\"p\":\"" + String(repeating: "x", count: 65_536 - 8) + "\"}"
        #expect(line.utf8.count == 65_536)
        try commit([line, recordLine("after", 0)], to: appender)
        #expect(try readAll(journal) == expected([line, recordLine("after", 0)]))
        #expect(try zcatLines(try #require(try segmentPaths(journal).first)) == [line, recordLine("after", 0)])
    }

    /// A large commit becomes several members, each within the readers' limits.
    @Test func aLargeCommitIsSplitIntoMembers() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        var policy = JournalPolicy()
        policy.commitBytes = .max
        let appender = try JournalAppender(journal: journal, policy: policy)
        let lines = (0..<60).map { noisyRecordLine($0, bytes: 20_000) }
        try commit(lines, to: appender)
        let bytes = try Files.bytes(try #require(try segmentPaths(journal).first))
        let spans = memberSpans(bytes)
        #expect(spans.count > 1)
        for span in spans {
            #expect(span.size <= 2 << 20)
            #expect(le(bytes, span.offset + span.size - 4, as: UInt32.self) <= 256 << 10)
            // About equal sizes: no small last member for sealing to recompress.
            #expect(le(bytes, span.offset + span.size - 4, as: UInt32.self) >= 200 << 10)
        }
        #expect(try readAll(journal) == expected(lines))
    }
}
