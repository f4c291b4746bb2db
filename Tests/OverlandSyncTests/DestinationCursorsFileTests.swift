import TestSupport
import Testing
import OverlandJournal
import OverlandSettings
import OverlandSync

/// `DestinationCursors.add` and `remove`: destinations.json and the cursor change together.
@Suite("DestinationCursors add and remove")
struct DestinationCursorsFileTests {
    static let traccar = Destination(name: "traccar", url: "http://127.0.0.1:5055", wireProtocol: .traccar)

    @Test func addRecordsTheDestinationAndPlacesItsCursorAtTheEnd() throws {
        let fixture = try JournalFixture(points: 3)
        let destinations = fixture.directory + "/conf/destinations.json"
        let start = try DestinationCursors.add(Self.traccar, destinationsPath: destinations, journalPath: fixture.journal.path,
                                               fromStart: false, defaultConfigured: true, origin: { _, _ in [] })
        #expect(start.journalExists)
        #expect(start.next == start.end && start.end > start.first)
        #expect(try DestinationsFile.load(path: destinations) == [Self.traccar])
        let cursor = try #require(CursorName("traccar"))
        #expect(try fixture.journal.cursorNames().contains(cursor))

        // Added meanwhile by another command: refused, the file as it was.
        let again = #expect(throws: DestinationCursorError.self) {
            try DestinationCursors.add(Self.traccar, destinationsPath: destinations, journalPath: fixture.journal.path,
                                       fromStart: true, defaultConfigured: true, origin: { _, _ in [] })
        }
        #expect(again?.description == "destination 'traccar' exists")
        #expect(try DestinationsFile.load(path: destinations) == [Self.traccar])
    }

    @Test func addWithoutAJournalRecordsTheDestinationAlone() throws {
        let directory = try TemporaryDirectory()
        let destinations = directory.appending("destinations.json")
        let start = try DestinationCursors.add(Self.traccar, destinationsPath: destinations, journalPath: directory.appending("none"),
                                               fromStart: false, defaultConfigured: false, origin: { _, _ in [] })
        #expect(!start.journalExists)
        #expect(try DestinationsFile.load(path: destinations) == [Self.traccar])
    }

    @Test func removeDeletesTheDestinationThenItsCursor() throws {
        let fixture = try JournalFixture(points: 2)
        let destinations = fixture.directory + "/destinations.json"
        _ = try DestinationCursors.add(Self.traccar, destinationsPath: destinations, journalPath: fixture.journal.path,
                                       fromStart: true, defaultConfigured: true, origin: { _, _ in [] })
        var asked = 0
        let removed = try DestinationCursors.remove("traccar", destinationsPath: destinations, journalPath: fixture.journal.path,
                                                    keepSeconds: 0) {
            asked += 1
            #expect((try? DestinationsFile.load(path: destinations)) == [])
            return ["default"]
        }
        #expect(removed.configured && removed.released)
        #expect(asked == 1)
        #expect(try !fixture.journal.cursorNames().contains(try #require(CursorName("traccar"))))

        // A second time there is nothing left to remove: the command says no such destination.
        let none = try DestinationCursors.remove("traccar", destinationsPath: destinations, journalPath: fixture.journal.path,
                                                 keepSeconds: 0) { ["default"] }
        #expect(!none.configured && !none.released)
    }
}
