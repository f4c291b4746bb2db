import TestSupport
import Foundation
import Testing
@testable import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// Damage inside a segment (bit flips, foreign members, gzip bombs) is skipped and reported
/// by readers and set aside by appenders; no damaged record is ever passed on
/// (journal-format.md sections 5 and 8).
@Suite struct JournalDamageTests {
    static let segmentName = "00000000000000000000.jsonl.gz"

    struct Base {
        let directory: TemporaryDirectory
        let written: [String]
        let spans: [MemberSpan]
        var segment: String { directory.journal + "/segments/" + JournalDamageTests.segmentName }
    }

    /// One active segment of five members of four records each.
    static func makeBase(writer: String = "a", sealedMemberBytes: Int? = nil, seal: Bool = false) throws -> Base {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        var policy = JournalPolicy()
        if let sealedMemberBytes { policy.sealedMemberBytes = sealedMemberBytes }
        let appender = try JournalAppender(journal: journal, policy: policy)
        var written: [String] = []
        for _ in 0..<5 {
            let lines = (0..<4).map { recordLine(writer, written.count + $0, pad: 9) }
            try commit(lines, to: appender)
            written += lines
        }
        if seal { try appender.sealActive() }
        let spans = memberSpans(try Files.bytes(directory.journal + "/segments/" + segmentName))
        return Base(directory: directory, written: written, spans: spans)
    }

    enum Place: String, CaseIterable, CustomTestStringConvertible {
        case magic, mtime, kind, memberSize, firstSequence, recordCount, journalID, headerCRC
        case deflateStart, deflateMiddle, dataCRC, isize, isizeHigh

        func offset(in span: MemberSpan) -> Int {
            switch self {
            case .magic: return span.offset + 1
            case .mtime: return span.offset + 5
            case .kind: return span.offset + 17
            case .memberSize: return span.offset + 21
            case .firstSequence: return span.offset + 24
            case .recordCount: return span.offset + 32
            case .journalID: return span.offset + 44
            case .headerCRC: return span.offset + 53
            case .deflateStart: return span.offset + 54
            case .deflateMiddle: return span.deflateRange.lowerBound + span.deflateRange.count / 2
            case .dataCRC: return span.offset + span.size - 7
            case .isize: return span.offset + span.size - 4
            case .isizeHigh: return span.offset + span.size - 1
            }
        }

        var testDescription: String { rawValue }
    }

    /// A reader never returns a line of the damaged member, returns every other record and
    /// reports the file; an appender sets the segment aside and keeps every intact record.
    @Test(arguments: Place.allCases)
    func bitFlipInAMiddleMember(place: Place) throws {
        let base = try Self.makeBase()
        try #require(base.spans.count == 5)
        let damaged = base.spans[2]
        try flipBit(base.segment, at: place.offset(in: damaged), bit: place == .deflateStart ? 0 : 3)
        let flippedBytes = try Files.bytes(base.segment)
        let lost = Set(Int(damaged.firstSequence)..<Int(damaged.firstSequence) + Int(damaged.recordCount))
        let intact = expected(base.written).filter { !lost.contains(Int($0.sequence)) }

        let journal = try Journal(path: base.directory.journal)
        let readIssues = IssueLog()
        let records = try readAll(journal, onIssue: readIssues.handler)
        #expect(records == intact)
        let damage = readIssues.of(.damage)
        #expect(!damage.isEmpty, "a flipped bit in the \(place) was not reported")
        #expect(damage.allSatisfy { $0.file == "segments/" + Self.segmentName })
        #expect(damage.contains { $0.offset == damaged.offset }, "\(damage)")
        #expect(readIssues.issues.count == damage.count)

        // The appender sets the segment aside: a copy of the damaged file, then the intact
        // records in a sealed segment.
        let openIssues = IssueLog()
        let appender = try JournalAppender(journal: journal, onIssue: openIssues.handler)
        let asides = openIssues.of(.setAside)
        #expect(asides.count == 1 && asides.first?.file == "segments/" + Self.segmentName, "\(openIssues.issues)")
        let kept = Files.list(base.directory.journal + "/damaged")
        #expect(kept.count == 1 && kept.first?.hasPrefix(Self.segmentName + "-") == true, "\(kept)")
        if let name = kept.first {
            #expect(try Files.bytes(base.directory.journal + "/damaged/" + name) == flippedBytes)
            #expect(asides.first?.reason == "damaged/" + name)
        }
        #expect(try journal.isSealed(SegmentName(firstSequence: 0)))
        #expect(try gzipTest(base.segment).status == 0)
        let afterIssues = IssueLog()
        #expect(try readAll(journal, onIssue: afterIssues.handler) == intact)
        #expect(afterIssues.issues.isEmpty, "the set-aside segment is clean: \(afterIssues.issues)")

        // Appending continues after the last number ever used.
        try commit([recordLine("after", 20)], to: appender)
        #expect(try readAll(journal) == intact + [ReadRecord(sequence: 20, line: recordLine("after", 20))])
        // A second open finds nothing left to repair.
        let again = IssueLog()
        _ = try JournalAppender(journal: Journal(path: base.directory.journal), onIssue: again.handler)
        #expect(again.issues.isEmpty, "\(again.issues)")
    }

    /// A sealed segment that is not the newest: readers skip and report the damaged member.
    @Test(arguments: [Place.mtime, .firstSequence, .deflateMiddle, .dataCRC])
    func bitFlipInASealedSegment(place: Place) throws {
        let base = try Self.makeBase(sealedMemberBytes: 200, seal: true)
        let journal = try Journal(path: base.directory.journal)
        let appender = try JournalAppender(journal: journal)
        try commit([recordLine("next", 20)], to: appender)
        let spans = memberSpans(try Files.bytes(base.segment))
        try #require(spans.count >= 4 && spans.last?.kind == 2)
        let damaged = spans[1]
        try flipBit(base.segment, at: place.offset(in: damaged), bit: 5)
        let lost = Set(Int(damaged.firstSequence)..<Int(damaged.firstSequence) + Int(damaged.recordCount))
        let intact = expected(base.written + [recordLine("next", 20)]).filter { !lost.contains(Int($0.sequence)) }

        let issues = IssueLog()
        #expect(try readAll(journal, onIssue: issues.handler) == intact)
        #expect(issues.of(.damage).contains { $0.file == "segments/" + Self.segmentName && $0.offset == damaged.offset },
                "\(issues.issues)")
        #expect(issues.issues.allSatisfy { $0.file == "segments/" + Self.segmentName })
        #expect(try gzipTest(base.segment).status != 0, "gzip -t must catch it too")
    }

    /// The newest segment is sealed and then damaged: opening an appender sets it aside,
    /// whether the flip hit a header or the compressed data.
    @Test(arguments: [Place.mtime, .deflateMiddle, .dataCRC, .isize])
    func bitFlipInTheNewestSealedSegment(place: Place) throws {
        let base = try Self.makeBase(sealedMemberBytes: 200, seal: true)
        let spans = memberSpans(try Files.bytes(base.segment))
        try #require(spans.count >= 2)
        let damaged = spans[1]
        try flipBit(base.segment, at: place.offset(in: damaged), bit: 2)
        let lost = Set(Int(damaged.firstSequence)..<Int(damaged.firstSequence) + Int(damaged.recordCount))
        let intact = expected(base.written).filter { !lost.contains(Int($0.sequence)) }

        let journal = try Journal(path: base.directory.journal)
        let readIssues = IssueLog()
        #expect(try readAll(journal, onIssue: readIssues.handler) == intact)
        #expect(!readIssues.of(.damage).isEmpty)

        let openIssues = IssueLog()
        let appender = try JournalAppender(journal: journal, onIssue: openIssues.handler)
        #expect(openIssues.of(.setAside).count == 1, "\(openIssues.issues)")
        let afterIssues = IssueLog()
        #expect(try readAll(journal, onIssue: afterIssues.handler) == intact)
        #expect(afterIssues.issues.isEmpty, "\(afterIssues.issues)")
        #expect(try gzipTest(base.segment).status == 0)
        try commit([recordLine("after", 20)], to: appender)
        #expect(try readAll(journal).last == ReadRecord(sequence: 20, line: recordLine("after", 20)))
    }

    /// A member copied from another journal (a stick mixed up) is damage, never data.
    @Test(arguments: [false, true])
    func splicedMemberFromAnotherJournal(replacing: Bool) throws {
        let a = try Self.makeBase(writer: "a")
        let b = try Self.makeBase(writer: "b")
        var bytes = try Files.bytes(a.segment)
        try #require(a.spans.count > 2 && b.spans.count > 2)
        let foreign = Array(try Files.bytes(b.segment)[b.spans[2].range])
        let target = a.spans[2]
        if replacing {
            // Same place, same sequence numbers: only the journal id tells them apart.
            bytes.replaceSubrange(target.range, with: foreign)
        } else {
            bytes.insert(contentsOf: foreign, at: target.offset)
        }
        try Files.write(bytes, to: a.segment)
        let lost: Set<Int> = replacing ? Set(8..<12) : []
        let intact = expected(a.written).filter { !lost.contains(Int($0.sequence)) }

        let journal = try Journal(path: a.directory.journal)
        let issues = IssueLog()
        let records = try readAll(journal, onIssue: issues.handler)
        #expect(records == intact)
        #expect(!records.contains { $0.line.contains("\"writer\":\"b\"") })
        let damage = issues.of(.damage)
        #expect(damage.count == 1 && damage.first?.offset == target.offset && damage.first?.length == foreign.count,
                "\(issues.issues)")
        #expect(damage.first?.reason.contains("another journal") == true)

        let openIssues = IssueLog()
        let appender = try JournalAppender(journal: journal, onIssue: openIssues.handler)
        #expect(openIssues.of(.setAside).count == 1)
        #expect(try readAll(journal) == intact)
        try commit([recordLine("a", 20)], to: appender)
        #expect(try readAll(journal).last == ReadRecord(sequence: 20, line: recordLine("a", 20)))
    }

    /// The same member written twice (a replayed write): the copy is out of sequence, so
    /// its records are returned once.
    @Test func duplicatedMemberIsReturnedOnce() throws {
        let base = try Self.makeBase()
        var bytes = try Files.bytes(base.segment)
        try #require(base.spans.count > 2)
        let copy = Array(bytes[base.spans[1].range])
        bytes.insert(contentsOf: copy, at: base.spans[2].offset)
        try Files.write(bytes, to: base.segment)
        let issues = IssueLog()
        #expect(try readAll(Journal(path: base.directory.journal), onIssue: issues.handler) == expected(base.written))
        #expect(issues.of(.damage).count == 1 && issues.of(.damage).first?.offset == base.spans[2].offset, "\(issues.issues)")
        #expect(issues.of(.damage).first?.reason.contains("sequence") == true)
    }

    static let badPayloads: [(String, String, UInt32)] = [
        ("an array", "{\"ok\":1}\n[1,2]\n", 2),
        ("a bare number", "{\"ok\":1}\n7\n", 2),
        ("an empty line", "{\"ok\":1}\n\n", 2),
        ("fewer lines than counted", "{\"ok\":1}\n{\"ok\":2}\n", 3),
        ("more lines than counted", "{\"ok\":1}\n{\"ok\":2}\n", 1),
        ("no final newline", "{\"ok\":1}\n{\"ok\":2}", 2),
        ("a line over 65,536 bytes", "{\"p\":\"" + String(repeating: "x", count: 65_530) + "\"}\n", 1),
        ("broken JSON", "{\"ok\":1}\n{\"ok\":\n", 2),
    ]

    /// Members whose checksums hold but whose lines are not records (a buggy or hostile
    /// writer): a reader checks every line before passing it on (section 3).
    @Test(arguments: badPayloads)
    func memberWithInvalidLinesIsSkipped(name: String, payload: String, count: UInt32) throws {
        let bytes = Array(payload.utf8)
        let deflated = bytes.withUnsafeBytes { Deflate.compress($0, level: 6) }
        let (base, intact) = try Self.segmentWithBomb(deflate: deflated, crc: crc32(bytes), isize: UInt32(bytes.count), count: count)
        let issues = IssueLog()
        let records = try readAll(Journal(path: base.directory.journal), onIssue: issues.handler)
        #expect(records == intact, "\(name)")
        #expect(!records.contains { $0.line.contains("\"ok\"") || $0.line.contains("\"p\"") })
        #expect(issues.of(.damage).count == 1, "\(name): \(issues.issues)")
    }

    /// Random byte overwrites anywhere in a segment of many members: whatever a reader
    /// returns is exactly what was written under that number, and it never crashes.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomOverwritesNeverYieldAWrongRecord(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        var written: [String] = []
        for commitIndex in 0..<30 {
            let lines = (0..<(commitIndex % 5 + 1)).map { recordLine("x", written.count + $0, pad: commitIndex) }
            try commit(lines, to: appender)
            written += lines
        }
        let segment = directory.journal + "/segments/" + Self.segmentName
        var bytes = try Files.bytes(segment)
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        func random(_ bound: Int) -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(bound))
        }
        for _ in 0..<(1 + random(6)) {
            let offset = random(bytes.count)
            for index in offset..<min(bytes.count, offset + 1 + random(4)) { bytes[index] = UInt8(truncatingIfNeeded: random(256)) }
        }
        try Files.write(bytes, to: segment)
        let issues = IssueLog()
        let records = try readAll(Journal(path: directory.journal), onIssue: issues.handler)
        let all = expected(written)
        for record in records {
            #expect(record.sequence < UInt64(all.count) && all[Int(record.sequence)] == record, "wrong record \(record)")
        }
        #expect(records.count < all.count || issues.issues.isEmpty)
        // Recovery keeps exactly what a reader could read.
        _ = try JournalAppender(journal: Journal(path: directory.journal))
        let after = try readAll(Journal(path: directory.journal))
        #expect(after == records)
    }

    /// Builds a segment [m0][bomb][m2] from a three-commit journal, the bomb standing in for
    /// m1 with the same sequence numbers and a valid header.
    static func segmentWithBomb(deflate: [UInt8], crc: UInt32, isize: UInt32, count: UInt32 = 4) throws -> (Base, [ReadRecord]) {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        var written: [String] = []
        for _ in 0..<3 {
            let lines = (0..<4).map { recordLine("g", written.count + $0) }
            try commit(lines, to: appender)
            written += lines
        }
        let segment = directory.journal + "/segments/" + segmentName
        var bytes = try Files.bytes(segment)
        let spans = memberSpans(bytes)
        try #require(spans.count > 1)
        let bomb = specMember(firstSequence: 4, recordCount: count, journalID: journal.id.bytes, deflate: deflate, crc: crc, isize: isize)
        bytes.replaceSubrange(spans[1].range, with: bomb)
        try Files.write(bytes, to: segment)
        let base = Base(directory: directory, written: written, spans: memberSpans(bytes))
        return (base, expected(written).filter { !(4..<8).contains($0.sequence) })
    }

    /// The bomb's member is skipped as damage and set aside on open; the intact records
    /// come out. Its memory is measured in a child process (HostileJournalTests.gzipBomb,
    /// each command's own peak resident set): this process's high-water mark is shared with
    /// every test running beside it.
    static func checkBombRefused(_ base: Base, intact: [ReadRecord]) throws {
        let journal = try Journal(path: base.directory.journal)
        let issues = IssueLog()
        #expect(try readAll(journal, onIssue: issues.handler) == intact)
        #expect(issues.of(.damage).count == 1, "\(issues.issues)")
        let openIssues = IssueLog()
        _ = try JournalAppender(journal: journal, onIssue: openIssues.handler)
        #expect(openIssues.of(.setAside).count == 1)
        #expect(try readAll(journal) == intact)
    }

    /// The header and ISIZE claim 48 bytes; the deflate data holds 64 MiB of zeros.
    @Test func gzipBombWithASmallISIZE() throws {
        let deflated = [UInt8](repeating: 0, count: 64 << 20).withUnsafeBytes { Deflate.compress($0, level: 9) }
        #expect(deflated.count < 2 << 20)
        let (base, intact) = try Self.segmentWithBomb(deflate: deflated, crc: 0, isize: 48)
        try Self.checkBombRefused(base, intact: intact)
    }

    /// Valid JSON lines over 1 MiB, honestly announced: still refused, as the limit says.
    @Test func memberOverOneMebibyteIsRefused() throws {
        let line = "{\"p\":\"" + String(repeating: "x", count: 60_000) + "\"}\n"
        let payload = Array(String(repeating: line, count: 20).utf8)
        #expect(payload.count > 1 << 20)
        let deflated = payload.withUnsafeBytes { Deflate.compress($0, level: 9) }
        let (base, intact) = try Self.segmentWithBomb(deflate: deflated, crc: crc32(payload), isize: UInt32(payload.count))
        try Self.checkBombRefused(base, intact: intact)
    }

    /// A header that claims a member larger than 2 MiB is refused before anything is inflated.
    @Test func memberSizeOverTheLimitIsRefused() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        try commit([recordLine("s", 0)], to: appender)
        let segment = directory.journal + "/segments/" + Self.segmentName
        // A real member followed by a header claiming 3 MiB, inside a file that is that long.
        var header = specMember(firstSequence: 1, recordCount: 1, journalID: journal.id.bytes, deflate: [0x03, 0x00], crc: 0, isize: 0)
        header.replaceSubrange(20..<24, with: [0x00, 0x00, 0x30, 0x00])
        header.replaceSubrange(52..<54, with: [UInt8(crc32(header[0..<52]) & 0xff), UInt8((crc32(header[0..<52]) >> 8) & 0xff)])
        // Then an intact member: without one after it, the bad header would be the newest
        // segment's torn tail (journal-format.md section 8), not damage.
        let after = Member.encode(kind: .records, payload: Array((recordLine("s", 1) + "\n").utf8), firstSequence: 1,
                                  recordCount: 1, journalID: journal.id, writtenAt: 0, level: 6)
        try Files.append(header + [UInt8](repeating: 0x55, count: 3 << 20) + after, to: segment)
        let issues = IssueLog()
        #expect(try readAll(Journal(path: directory.journal), onIssue: issues.handler) == expected([recordLine("s", 0), recordLine("s", 1)]))
        #expect(issues.of(.damage).count == 1, "\(issues.issues)")
        #expect(issues.of(.damage).first?.reason.contains("size") == true)
    }
}
