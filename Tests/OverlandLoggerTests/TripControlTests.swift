import OverlandJournal
@testable import OverlandLogger
import OverlandRecorder
import OverlandSettings
import TestSupport
import Testing

/// Starting and stopping a trip through the library, the one way `overland trip` and the
/// automatic stop both take: under the trip's lock, the record written once.
@Suite struct TripControlTests {
    @Test func aTripStartsOnceAndStopsWithOneRecord() throws {
        let directory = try TemporaryDirectory(prefix: "trip-control")
        let journal = try Journal(path: directory.appending("journal"), create: true)
        let started = try Trip.start(mode: "bicycle", in: journal, now: 1_800_000_000)
        guard case .started(let trip) = started else { Issue.record("not started: \(started)"); return }
        #expect(try Trip.start(mode: "car", in: journal, now: 1_800_000_060) == .alreadyRunning(trip))

        var appenders = 0
        let stopped = try TripStopper.stop(in: journal, settings: Settings(), automatically: false, now: 1_800_000_600) {
            appenders += 1
            return try JournalAppender(journal: journal)
        }
        let (ended, record) = try #require(stopped)
        #expect(ended == trip)
        #expect(record.summary.duration == 600)
        #expect(appenders == 1)
        #expect(try journal.endSequence() == 1, "the trip's record")
        #expect(try Trip.active(in: journal) == nil)
        #expect(try TripStopper.stop(in: journal, settings: Settings(), automatically: false) { try JournalAppender(journal: journal) } == nil)
    }
}
