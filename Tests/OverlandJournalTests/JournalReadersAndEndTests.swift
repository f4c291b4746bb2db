import TestSupport
import Foundation
import Testing
@testable import OverlandJournal

/// The journal's end (section 6), the readers that count (section 9) and the places a move
/// carries (section 12), part by part.
@Suite struct JournalReadersAndEndUnitTests {
    static func name(_ text: String) throws -> CursorName { try #require(CursorName(text)) }

    /// Two sealed segments of 10 records and an active one of 5.
    static func journal(_ directory: TemporaryDirectory) throws -> Journal {
        let journal = try Journal(path: directory.journal, create: true)
        let appender = try JournalAppender(journal: journal)
        for segment in 0..<3 {
            _ = try commit((0..<(segment == 2 ? 5 : 10)).map { "{\"n\":\(segment * 10 + $0)}" }, to: appender)
            if segment < 2 { try appender.sealActive() }
        }
        return journal
    }

    @Test func theEndIsTheHighestCursorOnceTheSegmentsAreGone() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.journal, create: true)
        #expect(try journal.endSequence() == 0)
        try journal.advanceCursor(to: 2048)
        #expect(try journal.endSequence() == 2048, "no segment: the cursor keeps the numbering")
        try journal.advanceCursor(for: try Self.name("b"), to: 4096)
        #expect(try journal.endSequence() == 4096)
        _ = try commit(["{\"n\":1}"], to: try JournalAppender(journal: journal))
        #expect(try journal.endSequence() == 4097)
        #expect(try journal.backlog(for: try Self.name("b")) == 1)
    }

    @Test func unsentCountsEveryNamedReaderWithOrWithoutACursorFile() throws {
        let directory = try TemporaryDirectory()
        let journal = try Self.journal(directory)
        try journal.advanceCursor(to: 25)
        let err = try Self.name("err")
        #expect(try journal.cursor() == 25, "the floor knows only the cursor files")
        #expect(try journal.unsentFrom(readers: [.default, err]) == 0, "err never wrote a cursor")
        #expect(try journal.unsentFrom(readers: [.default]) == 25)
        #expect(try journal.unsentFrom(readers: []) == 25, "no reader named: the floor")
        let stats = try journal.statistics(readers: [.default, err])
        #expect(stats.sentRecords == 0 && stats.unsentRecords == 25 && stats.readers.map(\.name) == [.default, err])
        #expect(try journal.statistics().sentRecords == 25)
    }

    /// A cursor file of a reader that is not configured holds nothing back when the caller
    /// names every reader there is; the floor still rules otherwise.
    @Test func retentionByTheReadersThereAre() throws {
        let directory = try TemporaryDirectory()
        let journal = try Self.journal(directory)
        let home = try Self.name("home")
        try journal.advanceCursor(for: home, to: 25)
        #expect(try journal.cursorNames() == [.default, home] && journal.cursor() == 0, "default copied at 0")
        #expect(try journal.removeSentSegments(readers: [home]).isEmpty)
        #expect(try journal.removeSentSegments(readers: [], onlyReaders: true).isEmpty, "no reader named: the floor")
        #expect(try journal.removeSentSegments(readers: [home], onlyReaders: true).count == 2)
        #expect(try journal.segments().map(\.firstSequence) == [20])
    }

    @Test func carriedPlacesJoinAndApplyToTheirReceiverAlone() throws {
        let directory = try TemporaryDirectory()
        let journal = try Self.journal(directory)
        let a = "00000000000000aa", b = "00000000000000bb"
        try journal.addCarriedPlaces([CarriedPlace(receiver: a, range: 0..<10)])
        try journal.addCarriedPlaces([CarriedPlace(receiver: a, range: 10..<18), CarriedPlace(receiver: b, range: 0..<4)])
        #expect(journal.carriedPlaces() == [CarriedPlace(receiver: a, range: 0..<18), CarriedPlace(receiver: b, range: 0..<4)])
        #expect(journal.carriedPlace(receiver: a, from: 0) == 18)
        #expect(journal.carriedPlace(receiver: a, from: 12) == 18)
        #expect(journal.carriedPlace(receiver: a, from: 18) == 18)
        #expect(journal.carriedPlace(receiver: b, from: 0) == 4)
        #expect(journal.carriedPlace(receiver: "00000000000000cc", from: 0) == 0)
        // Another journal's file, or one not as written, carries nothing.
        let path = journal.statePath(of: Journal.carriedStateName)
        for text in ["{\"version\":1,\"journal_id\":\"\(JournalID.random())\",\"places\":[{\"receiver\":\"\(a)\",\"from\":0,\"next\":9}]}\n",
                     "{\"version\":1,\"journal_id\":\"\(journal.id)\",\"places\":[{\"receiver\":\"\(a)\",\"from\":9,\"next\":9}]}\n",
                     "{\"version\":1,\"journal_id\":\"\(journal.id)\",\"places\":[{\"receiver\":\"AA\",\"from\":0,\"next\":9}]}\n",
                     "{\"version\":2,\"journal_id\":\"\(journal.id)\",\"places\":[]}\n", "not json"] {
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            #expect(journal.carriedPlace(receiver: a, from: 0) == 0, "\(text)")
        }
    }
}
