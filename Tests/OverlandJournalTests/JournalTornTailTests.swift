import TestSupport
import Foundation
import Testing
@testable import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// A crash (or power loss) cuts the last write anywhere: every byte offset of the last
/// commit must read back as the earlier commits, and the next appender must cut the tail
/// and carry on (journal-format.md section 8).
@Suite struct JournalTornTailTests {
    struct Base {
        let directory: TemporaryDirectory
        let committed: [String]
        let last: [String]
        let sizeBefore: Int
        let fullSize: Int
        let segmentName = "00000000000000000000.jsonl.gz"
    }

    /// Four commits; remembers the segment's size before the last one.
    static func makeBase(commits: [Int] = [3, 2, 4, 2]) throws -> Base {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        var committed: [String] = []
        for (index, size) in commits.dropLast().enumerated() {
            let lines = (0..<size).map { recordLine("c\(index)", committed.count + $0) }
            try commit(lines, to: appender)
            committed += lines
        }
        let segment = directory.journal + "/segments/00000000000000000000.jsonl.gz"
        let sizeBefore = Files.size(segment)
        let last = (0..<(try #require(commits.last))).map { recordLine("last", committed.count + $0) }
        try commit(last, to: appender)
        return Base(directory: directory, committed: committed, last: last, sizeBefore: sizeBefore,
                    fullSize: Files.size(segment))
    }

    @Test func tornTailAtEveryByteOfTheLastCommit() throws {
        let base = try Self.makeBase()
        #expect(base.fullSize > base.sizeBefore + 54)
        for cut in base.sizeBefore...base.fullSize {
            let variant = try TemporaryDirectory()
            let path = variant.path + "/journal"
            try Files.copyTree(base.directory.journal, to: path)
            let segment = path + "/segments/" + base.segmentName
            try Files.truncate(segment, to: cut)
            let survivors = cut == base.fullSize ? base.committed + base.last : base.committed

            // A reader returns exactly the earlier commits and reports nothing: an unfinished
            // write at the end of the active segment is not damage.
            let readIssues = IssueLog()
            let journal = try Journal(path: path)
            #expect(try readAll(journal, onIssue: readIssues.handler) == expected(survivors), "cut at \(cut)")
            #expect(readIssues.issues.isEmpty, "cut at \(cut): \(readIssues.issues)")
            #expect(try journal.endSequence() == UInt64(survivors.count), "cut at \(cut)")
            #expect(Files.size(segment) == cut, "a reader never repairs")

            // An appender cuts back to the last commit boundary, keeping the cut bytes.
            let openIssues = IssueLog()
            let appender = try JournalAppender(journal: journal, onIssue: openIssues.handler)
            let boundary = cut == base.fullSize ? base.fullSize : base.sizeBefore
            #expect(Files.size(segment) == boundary, "cut at \(cut)")
            let repairs = openIssues.of(.tornTailRepaired)
            if cut == boundary {
                #expect(openIssues.issues.isEmpty, "cut at \(cut): nothing to repair, got \(openIssues.issues)")
                #expect(!Files.exists(path + "/damaged") || Files.list(path + "/damaged").isEmpty)
            } else {
                #expect(openIssues.issues.count == 1 && repairs.count == 1, "cut at \(cut): \(openIssues.issues)")
                if let repair = repairs.first {
                    #expect(repair.file == "segments/" + base.segmentName)
                    #expect(repair.offset == base.sizeBefore && repair.length == cut - base.sizeBefore)
                }
                // The cut bytes are kept in damaged/ (they are not all zeros).
                let kept = Files.list(path + "/damaged")
                #expect(kept.count == 1 && kept.first?.hasPrefix(base.segmentName + ".tail-\(base.sizeBefore)-") == true, "\(kept)")
                if let name = kept.first {
                    let original = try Files.bytes(base.directory.journal + "/segments/" + base.segmentName)
                    #expect(try Files.bytes(path + "/damaged/" + name) == Array(original[base.sizeBefore..<cut]))
                }
            }

            // Appending carries on with the right sequence numbers.
            let next = recordLine("after", survivors.count)
            try commit([next], to: appender)
            #expect(try readAll(journal) == expected(survivors + [next]), "cut at \(cut)")
            if cut % 16 == 0 || cut == base.sizeBefore + 1 {
                #expect(try gzipTest(segment).status == 0, "cut at \(cut)")
            }
        }
    }

    /// A tear inside the only member of the newest segment (possible when a file system
    /// loses the data of a new file): no record is readable, the appender removes the file
    /// and the next commit starts again at the segment's first number.
    @Test func tornTailInTheOnlyMember() throws {
        let base = try Self.makeBase(commits: [3])
        #expect(base.sizeBefore == -1)
        for cut in [0, 1, 2, 10, 53, 54, 55, base.fullSize / 2, base.fullSize - 8, base.fullSize - 1] {
            let variant = try TemporaryDirectory()
            let path = variant.path + "/journal"
            try Files.copyTree(base.directory.journal, to: path)
            let segment = path + "/segments/" + base.segmentName
            try Files.truncate(segment, to: cut)
            let journal = try Journal(path: path)
            let readIssues = IssueLog()
            #expect(try readAll(journal, onIssue: readIssues.handler).isEmpty)
            #expect(readIssues.issues.isEmpty, "cut at \(cut): \(readIssues.issues)")

            let openIssues = IssueLog()
            let appender = try JournalAppender(journal: journal, onIssue: openIssues.handler)
            #expect(openIssues.of(.tornTailRepaired).count == (cut == 0 ? 0 : 1), "cut at \(cut): \(openIssues.issues)")
            #expect(openIssues.of(.damage).isEmpty && openIssues.of(.setAside).isEmpty)
            try commit([recordLine("again", 0)], to: appender)
            #expect(try readAll(journal) == expected([recordLine("again", 0)]), "cut at \(cut)")
            #expect(try gzipTest(segment).status == 0)
        }
    }

    /// Zeros after the last commit (a FAT file system allocated the space, the data never
    /// came): not reported by readers, cut by the next appender, not kept in damaged/.
    @Test(arguments: [1, 53, 54, 4096])
    func zeroFilledTail(zeros: Int) throws {
        let base = try Self.makeBase()
        let path = base.directory.journal
        let segment = path + "/segments/" + base.segmentName
        try Files.append([UInt8](repeating: 0, count: zeros), to: segment)
        let all = base.committed + base.last

        let journal = try Journal(path: path)
        let readIssues = IssueLog()
        #expect(try readAll(journal, onIssue: readIssues.handler) == expected(all))
        #expect(readIssues.issues.isEmpty, "\(readIssues.issues)")
        #expect(try journal.endSequence() == UInt64(all.count))

        let openIssues = IssueLog()
        let appender = try JournalAppender(journal: journal, onIssue: openIssues.handler)
        #expect(Files.size(segment) == base.fullSize)
        #expect(openIssues.of(.tornTailRepaired).count == 1, "\(openIssues.issues)")
        #expect(openIssues.issues.count == 1)
        #expect(openIssues.of(.tornTailRepaired).first.map { ($0.offset, $0.length) }! == (base.fullSize, zeros))
        #expect(Files.list(path + "/damaged").isEmpty, "zeros are not kept")

        try commit([recordLine("after", all.count)], to: appender)
        #expect(try readAll(journal) == expected(all + [recordLine("after", all.count)]))
        #expect(try gzipTest(segment).status == 0)
    }

    /// A write torn inside the last member with the rest of the allocated space left as
    /// zeros (what FAT leaves after power loss): the earlier commits survive and the next
    /// appender keeps every intact record and carries on.
    @Test(arguments: [10, 54, 70])
    func tornWriteFollowedByZeros(keep: Int) throws {
        let base = try Self.makeBase()
        let path = base.directory.journal
        let segment = path + "/segments/" + base.segmentName
        try Files.truncate(segment, to: base.sizeBefore + keep)
        try Files.append([UInt8](repeating: 0, count: 4096), to: segment)

        let journal = try Journal(path: path)
        let readIssues = IssueLog()
        #expect(try readAll(journal, onIssue: readIssues.handler) == expected(base.committed))

        let openIssues = IssueLog()
        let appender = try JournalAppender(journal: journal, onIssue: openIssues.handler)
        #expect(openIssues.of(.tornTailRepaired).count == 1, "\(openIssues.issues)")
        #expect(openIssues.of(.setAside).isEmpty, "a torn tail is cut, not a reason to set the segment aside")
        #expect(Files.size(segment) == base.sizeBefore)
        try commit([recordLine("after", base.committed.count)], to: appender)
        #expect(try readAll(journal) == expected(base.committed + [recordLine("after", base.committed.count)]))
        #expect(try journal.segments().count == 1, "the segment stays active")
    }

    /// The torn tail is everything after the newest unsealed segment's last intact member
    /// (journal-format.md section 8), whatever it holds: here garbage, then a complete member
    /// whose data a crash left as zeros. Readers do not report it; the appender cuts it (a
    /// copy in damaged/) and does not set the segment aside.
    @Test func damageAfterTheLastIntactMemberIsTheTornTail() throws {
        let base = try Self.makeBase()
        let path = base.directory.journal
        let segment = path + "/segments/" + base.segmentName
        let journal = try Journal(path: path)
        let torn = Member.encode(kind: .records, payload: Array((recordLine("torn", 99) + "\n").utf8), firstSequence: 11,
                                 recordCount: 1, journalID: journal.id, writtenAt: 0, level: 6)
        try Files.append(Array("garbage".utf8) + torn.prefix(Member.headerSize)
                         + [UInt8](repeating: 0, count: torn.count - Member.headerSize), to: segment)
        let all = expected(base.committed + base.last)
        let readIssues = IssueLog()
        #expect(try readAll(journal, onIssue: readIssues.handler) == all)
        #expect(readIssues.issues.isEmpty, "\(readIssues.issues)")
        let verified = try journal.verify()
        #expect(verified.damaged.isEmpty && verified.tail?.offset == base.fullSize, "\(verified)")

        let openIssues = IssueLog()
        let appender = try JournalAppender(journal: journal, onIssue: openIssues.handler)
        #expect(openIssues.of(.setAside).isEmpty, "\(openIssues.issues)")
        #expect(openIssues.of(.tornTailRepaired).count == 1, "\(openIssues.issues)")
        #expect(Files.size(segment) == base.fullSize)
        #expect(Files.list(path + "/damaged").contains { $0.hasPrefix(base.segmentName + ".tail-\(base.fullSize)-") })
        try commit([recordLine("next", 11)], to: appender)
        #expect(try readAll(journal) == all + expected([recordLine("next", 11)], from: 11))
    }
}
