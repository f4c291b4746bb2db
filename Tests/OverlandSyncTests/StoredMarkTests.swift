import Foundation
import OverlandJournal
import OverlandProtocol
import Testing

@testable import OverlandSync

/// The stored mark (`SyncState.storedThrough`) and retention: a segment goes only when
/// every verifying destination has it stored, not only acknowledged.
@Suite struct StoredMarkTests {
    /// A journal of 30 points in three sealed segments of 10 and an active one, every
    /// point acknowledged by `default`.
    private func journal(_ directory: String) throws -> Journal {
        let journal = try Journal(path: directory + "/journal", create: true, deviceID: "van")
        let appender = try JournalAppender(journal: journal)
        for index in 0..<30 {
            try appender.append(JournalFixture.point(index).jsonLine())
            if index % 10 == 9 { try appender.sealActive() }
        }
        try appender.commit()
        try CursorWrites.advance(journal, .default, to: 30)
        return journal
    }

    @Test func retentionKeepsWhatIsAcknowledgedButNotKnownStored() throws {
        let directory = NSTemporaryDirectory() + "overland-stored-mark-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let journal = try journal(directory)
        var state = SyncState()
        state.storedThrough = 5
        try state.save(in: journal, as: SyncState.fileName)
        #expect(StoredMarks.floor(journal, [.default]) == 5)
        #expect(try journal.removeSentSegments(readers: [.default], holdingFrom: StoredMarks.floor(journal, [.default])).isEmpty)
        state.storedThrough = 20
        try state.save(in: journal, as: SyncState.fileName)
        #expect(try journal.removeSentSegments(readers: [.default], holdingFrom: StoredMarks.floor(journal, [.default])).count == 2)
        // Verify turned off: the mark is forgotten and holds nothing back.
        try StoredMarks.forget(journal, .default)
        #expect(StoredMarks.floor(journal, [.default]) == nil)
        #expect(try SyncState.load(journal: journal).storedThrough == nil)
    }

    @Test func theStateFileKeepsMarkResendsAndRefusals() throws {
        var state = SyncState()
        state.storedThrough = 807
        state.resends = [810: 1, 812: 2]
        state.refusedRecords = 14
        state.lastRefusal = "Compass did not store 14 points"
        let parsed = try #require(SyncState(parsing: state.encoded))
        #expect(parsed == state)
        // An older file has none of them; a hostile one is bounded and checked.
        #expect(SyncState(parsing: Array(#"{"version":1}"#.utf8))?.storedThrough == nil)
        let hostile = SyncState(parsing: Array(#"{"stored_through":-1,"resends":[[1,99],["x",1],[2],[3,1]],"refused_records":1e300}"#.utf8))
        #expect(hostile?.storedThrough == nil && hostile?.resends == [3: 1] && hostile?.refusedRecords == 0)
    }
}
