import OverlandJournal
import OverlandLogger
import OverlandRecorder
import OverlandSettings
import TestSupport
import Testing

/// `TripStarter.start`: `overland trip start`'s journal, trip and default mode.
@Suite struct TripStarterTests {
    @Test func aTripStartedBecomesTheDefaultModeOnce() throws {
        let directory = try TemporaryDirectory(prefix: "trip-starter")
        let settingsPath = directory.appending("settings.json")
        let journalPath = directory.appending("journal")
        let first = try TripStarter.start(mode: "bicycle", journalPath: journalPath, create: true, settings: Settings(),
                                          settingsPath: settingsPath, now: 1_800_000_000)
        guard case .started(let trip) = first.outcome else { Issue.record("not started: \(first.outcome)"); return }
        #expect(first.mode == "bicycle" && trip.mode == "bicycle")
        let saved = try SettingsFile.load(path: settingsPath)
        #expect(saved.tripMode == .bicycle)

        // Running already: nothing changes, the settings' mode included.
        let second = try TripStarter.start(mode: "car", journalPath: journalPath, create: true, settings: saved,
                                           settingsPath: settingsPath, now: 1_800_000_060)
        #expect(second.outcome == .alreadyRunning(trip))
        #expect(try SettingsFile.load(path: settingsPath).tripMode == .bicycle)
    }

    @Test func withoutAModeTheSettingsOneStarts() throws {
        let directory = try TemporaryDirectory(prefix: "trip-starter")
        var settings = Settings()
        settings.tripMode = .train
        let started = try TripStarter.start(mode: nil, journalPath: directory.appending("journal"), create: true, settings: settings,
                                            settingsPath: directory.appending("settings.json"), now: 1_800_000_000)
        #expect(started.mode == "train")
        // The mode was the default already: the settings file is not written.
        #expect(PrivateFile.kind(directory.appending("settings.json")) == .missing)
    }

    @Test func aNamedJournalThatIsMissingIsNotCreated() throws {
        let directory = try TemporaryDirectory(prefix: "trip-starter")
        #expect(throws: JournalError.self) {
            try TripStarter.start(mode: "car", journalPath: directory.appending("typo"), create: false, settings: Settings(),
                                  settingsPath: directory.appending("settings.json"), now: 1_800_000_000)
        }
        #expect(PrivateFile.kind(directory.appending("typo")) == .missing)
    }
}
