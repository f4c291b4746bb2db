import TestSupport
import Testing
@testable import OverlandJournal

/// `Journal.unsentLeftBehind`: a move that took nothing while unsent records stay.
@Suite struct MoveLeftBehindTests {
    @Test func onlyAMoveThatTookNothingLeavesRecordsBehind() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        try commit((0..<3).map { recordLine("m", $0) }, to: appender)
        var report = JournalMoveReport(targetID: journal.id, targetPath: directory.appending("target"))
        #expect(try journal.unsentLeftBehind(by: report, sealFirst: false) == 3)
        #expect(try journal.unsentLeftBehind(by: report, sealFirst: true) == 0)
        report.resumed = true
        #expect(try journal.unsentLeftBehind(by: report, sealFirst: false) == 0)
        report.resumed = false
        report.segments = 1
        #expect(try journal.unsentLeftBehind(by: report, sealFirst: false) == 0)
    }

    @Test func nothingUnsentIsNothingLeftBehind() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        let report = JournalMoveReport(targetID: journal.id, targetPath: directory.appending("target"))
        #expect(try journal.unsentLeftBehind(by: report, sealFirst: false) == 0)
    }
}
