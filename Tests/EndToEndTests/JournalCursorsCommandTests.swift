import Foundation
import Testing
import OverlandJournal

/// `overland journal verify` and `stats` on a journal with several readers
/// (journal-format.md sections 9 and 14): each cursor's validity and backlog, each reader's
/// sent count.
@Suite struct JournalCursorsCommandTests {
    /// Six sealed segments of 20 records and an active one of 5 (125 records); the default
    /// reader at 27, `traccar` at 100, `home` at 10: the floor is 10.
    static func makeJournal(_ sandbox: MoveSandbox) throws -> Journal {
        try MoveRecords.makeSource(at: sandbox.source, cursor: 27)
        let journal = try Journal(path: sandbox.source)
        try journal.advanceCursor(for: try #require(CursorName("traccar")), to: 100)
        try journal.advanceCursor(for: try #require(CursorName("home")), to: 10)
        return journal
    }

    @Test func verifyListsEachCursorWithItsBacklog() throws {
        let sandbox = try MoveSandbox()
        _ = try Self.makeJournal(sandbox)
        let json = try sandbox.overland(["journal", "verify", "--journal", sandbox.source, "--json"])
        #expect(json.succeeded, "\(json)")
        #expect(json.stdoutText == "{\"segments\": 7, \"records\": 125, \"damaged\": [], \"cursors\": {"
            + "\"cursor.json\": {\"next\": 10, \"unsent\": 115}, \"default\": {\"next\": 27, \"unsent\": 98}, "
            + "\"home\": {\"next\": 10, \"unsent\": 115}, \"traccar\": {\"next\": 100, \"unsent\": 25}}, \"tail\": null}\n")
        let text = try sandbox.overland(["journal", "verify", "--journal", sandbox.source])
        #expect(text.succeeded, "\(text)")
        #expect(text.stdoutLines.contains("cursor.json (floor): next 10, 115 unsent"), "\(text.stdoutText)")
        #expect(text.stdoutLines.contains("cursor traccar: next 100, 25 unsent"), "\(text.stdoutText)")
        #expect(text.stdoutLines.contains("cursor default: next 27, 98 unsent"), "\(text.stdoutText)")
    }

    @Test func verifyRefusesEachBadCursorAndReportsStrayFiles() throws {
        let sandbox = try MoveSandbox()
        _ = try Self.makeJournal(sandbox)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: sandbox.source + "/cursors/home.json"))
        try Data("{}".utf8).write(to: URL(fileURLWithPath: sandbox.source + "/cursors/Notes.json"))
        let other = try MoveSandbox()
        let foreign = try Journal(path: other.source, create: true)
        try Data("{\"journal_id\":\"\(foreign.id)\",\"next\":1,\"name\":\"traccar\"}\n".utf8)
            .write(to: URL(fileURLWithPath: sandbox.source + "/cursors/traccar.json"))
        let result = try sandbox.overland(["journal", "verify", "--journal", sandbox.source])
        result.expectExit(65)
        #expect(result.stderrText.contains("cursors/home.json"), "\(result.stderrText)")
        #expect(result.stderrText.contains("cursors/traccar.json") && result.stderrText.contains(foreign.id.description),
                "\(result.stderrText)")
        #expect(result.stderrText.contains("cursors/Notes.json"), "a stray file is reported: \(result.stderrText)")
        #expect(result.stdoutLines.contains("cursor home: refused (cursor-invalid)"), "\(result.stdoutText)")
        #expect(result.stdoutLines.contains("cursor traccar: refused (cursor-foreign)"), "\(result.stdoutText)")
        let json = try sandbox.overland(["journal", "verify", "--journal", sandbox.source, "--json"])
        #expect(json.exitStatus == 65)
        #expect(json.stdoutText.contains("\"home\": {\"error\": \"cursor-invalid\"}, \"traccar\": {\"error\": \"cursor-foreign\"}"),
                "\(json.stdoutText)")
    }

    @Test func statsShowsWhatEachReaderSent() throws {
        let sandbox = try MoveSandbox()
        _ = try Self.makeJournal(sandbox)
        let json = try sandbox.overland(["journal", "stats", "--journal", sandbox.source, "--json"])
        #expect(json.succeeded, "\(json)")
        #expect(json.stdoutText.contains("\"sent\":10,"), "sent by every reader: \(json.stdoutText)")
        #expect(json.stdoutText.contains("\"readers\":{\"default\":{\"cursor\":27,\"sent\":27,\"unsent\":98,\"passed_when_added\":0},"
            + "\"home\":{\"cursor\":10,\"sent\":10,\"unsent\":115,\"passed_when_added\":0},"
            + "\"traccar\":{\"cursor\":100,\"sent\":100,\"unsent\":25,\"passed_when_added\":0}}"),
                "\(json.stdoutText)")
        let text = try sandbox.overland(["journal", "stats", "--journal", sandbox.source])
        #expect(text.stdoutLines.contains("  traccar: 100 sent, 25 unsent (cursor 100)"), "\(text.stdoutText)")
        // One reader: no readers key, as before.
        let single = try MoveSandbox()
        try MoveRecords.makeSource(at: single.source, cursor: 27)
        let plain = try single.overland(["journal", "stats", "--journal", single.source, "--json"])
        #expect(plain.succeeded && !plain.stdoutText.contains("readers"), "\(plain.stdoutText)")
    }
}
