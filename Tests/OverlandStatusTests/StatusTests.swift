import OverlandJournal
import OverlandSettings
import OverlandStatus
import TestSupport
import Testing

/// `overland status` gathered and shown by the library: first use without a journal, and
/// a journal with a destination whose url and token are never shown whole.
@Suite struct StatusTests {
    @Test func firstUseSaysHowToStartAndOpensNoJournal() throws {
        let directory = try TemporaryDirectory(prefix: "status")
        let path = directory.appending("journal")
        let status = try Status.read(journalPath: path, firstUse: true, destinations: [], settings: Settings(), settingsProblems: [],
                                     trackingOff: nil, packagedJournal: nil, now: 1_800_000_000)
        let page = status.page()
        #expect(page.hasPrefix("Nothing has been logged yet (no journal at \(path)).\n"))
        #expect(page.contains("\njournal     \(path): not created yet (overland-log creates it)\n"))
        #expect(PrivateFile.kind(path) == .missing, "nothing is created")
        #expect(status.json().contains(#""journal":"\#(path)""#))
    }

    @Test func aJournalsEndpointIsShownRedactedAndTrackingOffComesFirst() throws {
        let directory = try TemporaryDirectory(prefix: "status")
        let path = directory.appending("journal")
        _ = try Journal(path: path, create: true)
        var settings = Settings()
        settings.endpoint = "https://user:pw@gps.example/in?secret=1"
        settings.token = "s3cret-token"
        let status = try Status.read(journalPath: path, firstUse: false, destinations: [], settings: settings, settingsProblems: [],
                                     trackingOff: "tracking is off", packagedJournal: nil, now: 1_800_000_000)
        let page = status.page()
        #expect(page.hasPrefix("Logging is OFF: tracking is off.\n\n"))
        #expect(page.contains("last point  none yet\n"))
        #expect(!page.contains("pw@") && !page.contains("s3cret-token"))
        #expect(!status.json().contains("s3cret-token"))
    }
}
