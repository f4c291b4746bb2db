import OverlandSync
import Testing

/// What `overland-sync` says of one destination's report, written by the library (the
/// command prints the lines and chooses the exit status).
@Suite struct SyncReportLinesTests {
    static let now: Int64 = 1_800_000_000

    static func lines(verbose: Bool = false, explains: Bool = false, label: String? = nil, hasToken: Bool = true) -> SyncReportLines {
        SyncReportLines(label: label, journal: "/j", endpoint: "https://user:pw@gps.example/in?token=abc", verbose: verbose,
                        explains: explains, now: now, destination: label ?? "default", hasToken: hasToken)
    }

    @Test func aRunThatWasNotDueIsExplainedOnlyToSomeoneWaiting() {
        let report = SyncReport(outcome: .notDue(nextSend: Self.now + 240))
        #expect(Self.lines(explains: false).lines(report).isEmpty)
        #expect(Self.lines(explains: true).lines(report) == [
            "overland-sync: /j: not due: the send interval has not passed since the last delivery; "
                + "next attempt at 2027-01-15T08:04:00Z (in 4 min); --now sends anyway",
        ])
    }

    @Test func aDeliveryIsSaidOnlyWhenVerboseWithTheUrlRedacted() throws {
        var report = SyncReport(outcome: .delivered)
        report.sentRecords = 3
        report.batches = 1
        report.backlog = 2
        #expect(Self.lines().lines(report).isEmpty)
        let said = Self.lines(verbose: true, label: "home").lines(report)
        let line = try #require(said.first)
        #expect(said.count == 1)
        #expect(line.hasPrefix("overland-sync: home: /j: 3 points sent to https://"))
        #expect(line.hasSuffix(" in 1 request; 2 waiting"))
        #expect(!line.contains("pw") && !line.contains("abc"))
    }

    @Test func aRefusalWithoutATokenSaysHowToSetOne() {
        let report = SyncReport(outcome: .refused(status: 401))
        let said = Self.lines(label: "home", hasToken: false).lines(report)
        #expect(said.count == 1)
        #expect(said.first?.hasSuffix("asks for credentials (HTTP 401) and no token is set: set one with "
                                      + "'overland destination set home token --stdin'") == true)
    }

    @Test func theDestinationChangedNoteIsKeptForARunThatFailed() {
        var delivered = SyncReport(outcome: .delivered)
        delivered.warnings = [SyncReport.destinationChangedNote]
        #expect(Self.lines().lines(delivered).isEmpty)
        var failed = SyncReport(outcome: .retryLater, message: "HTTP 503")
        failed.warnings = [SyncReport.destinationChangedNote]
        let said = Self.lines().lines(failed)
        #expect(said.count == 2)
        #expect(said.first == "overland-sync: /j: " + SyncReport.destinationChangedNote)
    }
}
