import TestSupport
import Foundation
import Testing
@testable import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// A journal may come from an untrusted USB stick: names that are not segments are ignored,
/// and nothing follows a link or blocks on a special file (journal-format.md sections 2, 4).
@Suite struct JournalHostileFilesTests {
    static let hostileNames = [
        "..x",
        "123.jsonl.gz",
        "00000000000000000000.jsonl.gz.bak",
        "0000000000000000000a.jsonl.gz",
        "00000000000000000001.JSONL.GZ",
        "99999999999999999999.jsonl.gz", // 20 digits, but past UInt64
        "000000000000000000001.jsonl.gz", // 21 digits
        " 0000000000000000001.jsonl.gz",
        "00000000000000000002.jsonl",
        "-0000000000000000002.jsonl.gz",
    ]

    @Test func hostileNamesAreIgnoredAndReported() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        let lines = (0..<5).map { recordLine("h", $0) }
        try commit(lines, to: appender)
        let real = directory.journal + "/segments/00000000000000000000.jsonl.gz"
        // Each decoy holds a valid segment of this journal with other records: only the name
        // keeps it out.
        let decoy = try TemporaryDirectory()
        let decoyJournal = decoy.path + "/journal"
        try Files.copyTree(directory.journal, to: decoyJournal)
        let decoyAppender = try JournalAppender(journal: Journal(path: decoyJournal))
        try commit([recordLine("decoy", 5)], to: decoyAppender)
        let decoyBytes = try Files.bytes(decoyJournal + "/segments/00000000000000000000.jsonl.gz")
        for name in Self.hostileNames {
            try Files.write(decoyBytes, to: directory.journal + "/segments/" + name)
        }
        try Files.write(decoyBytes, to: directory.journal + "/segments/.tmp-00000000000000000003.jsonl.gz")

        let issues = IssueLog()
        #expect(try readAll(journal, onIssue: issues.handler) == expected(lines))
        let reported = Set(issues.of(.unexpectedFile).map(\.file))
        #expect(reported == Set(Self.hostileNames.map { "segments/" + $0 }))
        #expect(issues.issues.count == Self.hostileNames.count, "temporary files are ignored silently: \(issues.issues)")
        #expect(try journal.segments().map(\.firstSequence) == [0])
        #expect(try journal.endSequence() == 5)

        // An appender reports them as well, leaves them alone, and deletes the temporary file.
        let openIssues = IssueLog()
        let second = try JournalAppender(journal: journal, onIssue: openIssues.handler)
        #expect(Set(openIssues.of(.unexpectedFile).map(\.file)) == reported)
        try commit([recordLine("h", 5)], to: second)
        for name in Self.hostileNames {
            #expect(try Files.bytes(directory.journal + "/segments/" + name) == decoyBytes, "\(name) was touched")
        }
        #expect(!Files.exists(directory.journal + "/segments/.tmp-00000000000000000003.jsonl.gz"))
        #expect(try readAll(journal) == expected(lines + [recordLine("h", 5)]))
        #expect(Files.size(real) > 0)
    }

    /// A symlink named like a segment is refused, not followed: the reader throws
    /// `untrusted` (the spec says such a link MUST be refused, like a manifest link), and
    /// the file it points to is never read or changed.
    @Test(arguments: [false, true])
    func segmentSymlinkIsRefused(newest: Bool) throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        try commit((0..<3).map { recordLine("l", $0) }, to: appender)
        try appender.sealActive()
        try commit((3..<6).map { recordLine("l", $0) }, to: appender)

        // The target: a segment with records this journal never had.
        let outside = directory.path + "/outside.jsonl.gz"
        try Files.copyTree(directory.journal + "/segments/00000000000000000003.jsonl.gz", to: outside)
        let outsideBytes = try Files.bytes(outside)
        let linkName = newest ? "00000000000000000100.jsonl.gz" : "00000000000000000000.jsonl.gz"
        let link = directory.journal + "/segments/" + linkName
        if !newest { try FileManager.default.removeItem(atPath: link) }
        try Files.symlink(outside, at: link)

        let readError = try #require(throws: JournalError.self) { try readAll(Journal(path: directory.journal)) }
        #expect(Self.isUntrusted(readError), "expected untrusted, got \(readError)")
        #expect(readError.description.contains(linkName))
        let openError = try #require(throws: JournalError.self) { try JournalAppender(journal: Journal(path: directory.journal)) }
        #expect(Self.isUntrusted(openError), "expected untrusted, got \(openError)")
        #expect(try Files.bytes(outside) == outsideBytes)
        #expect(Files.mode(link)?.type == S_IFLNK, "the link itself is left for a person to look at")
    }

    static func isUntrusted(_ error: any Error) -> Bool {
        if case .untrusted = error as? JournalError { return true }
        return false
    }

    /// Runs `body` on a thread and waits at most `seconds` for it: a FIFO must not hang.
    static func finishes(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        return done.wait(timeout: .now() + seconds) == .success
    }

    @Test func fifoNamedLikeASegmentDoesNotHang() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        try commit([recordLine("f", 0)], to: appender)
        let fifo = directory.journal + "/segments/00000000000000000009.jsonl.gz"
        #expect(mkfifo(fifo, 0o600) == 0)
        let path = directory.journal
        let outcome = ResultBox<String>()
        // A hang guard, not a deadline: a reader that blocks on the FIFO never finishes.
        let finished = Self.finishes(within: 600) {
            do {
                _ = try readAll(Journal(path: path))
                outcome.add("read")
            } catch { outcome.add(Self.isUntrusted(error) ? "untrusted" : "other: \(error)") }
            do {
                _ = try JournalAppender(journal: Journal(path: path))
                outcome.add("opened")
            } catch { outcome.add(Self.isUntrusted(error) ? "untrusted" : "other: \(error)") }
        }
        #expect(finished, "reading a journal with a FIFO hung")
        #expect(outcome.values == ["untrusted", "untrusted"])
        if !finished {
            // Unblock the stuck thread so the test process can go on.
            let fd = open(fifo, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
        }
    }

    @Test func directoryNamedLikeASegmentIsRefused() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        try commit([recordLine("d", 0)], to: JournalAppender(journal: journal))
        try FileManager.default.createDirectory(atPath: directory.journal + "/segments/00000000000000000007.jsonl.gz",
                                                withIntermediateDirectories: false)
        let error = try #require(throws: JournalError.self) { try readAll(journal) }
        #expect(Self.isUntrusted(error), "\(error)")
    }

    @Test func cursorSymlinkIsRefused() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        try journal.advanceCursor(to: 3)
        let outside = directory.path + "/cursor.json"
        try FileManager.default.moveItem(atPath: directory.journal + "/cursor.json", toPath: outside)
        try Files.symlink(outside, at: directory.journal + "/cursor.json")
        let error = try #require(throws: JournalError.self) { try journal.cursor() }
        #expect(Self.isUntrusted(error), "\(error)")
        // Moving the cursor is refused too (journal-format.md section 2: refused before
        // anything is written; issue 21): the link is neither written through nor replaced.
        let before = try Files.bytes(outside)
        let refused = try #require(throws: JournalError.self) { try journal.advanceCursor(to: 4) }
        #expect(Self.isUntrusted(refused), "\(refused)")
        #expect(try Files.bytes(outside) == before)
        #expect(POSIXFileSystem().kind(directory.journal + "/cursor.json") == .symlink)
    }
}
