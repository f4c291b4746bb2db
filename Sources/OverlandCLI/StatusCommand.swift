import ArgumentParser
import OverlandJournal
import OverlandSettings
import OverlandStatus

/// `overland status`: the tracker screen.
public struct StatusCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the last point, the queue, the last upload and the active trip.",
        discussion: """
            The tracker screen of the app, for a terminal: age, position, accuracy and \
            altitude of the last point; its speed and motion; points queued; when a batch \
            was last sent; the server's last error or its name for the place; the send \
            interval; the active trip; the journal's size. The token is never shown in \
            full. It answers at once however large the backlog: nothing is read in \
            proportion to it.

            On a machine where nothing has been logged yet (no journal at the default \
            place), it says so and how to start, and exits 0. A journal named by \
            --journal, OVERLAND_JOURNAL or the settings that does not exist is an error \
            (exit 66).

            Examples:
              overland status
              overland status --json | jq .queued
            """
    )

    @OptionGroup var journalOptions: JournalOptions
    @Flag(help: "Print one JSON object for scripts.") var json = false

    public init() {}

    public func run() throws {
        try reportingFailures("overland status") {
            // A mistake in the settings file is shown, not refused: the logger runs on
            // over it (`SettingsError.statusText`), and this is where the user looks.
            let (settings, settingsProblems) = try journalOptions.settingsOptions.loadTolerating()
            let path = journalOptions.path(with: settings)
            // First use: nothing logged yet at the default place. A journal the user named is not guessed at.
            let firstUse = journalOptions.journal == nil && settings.journal == nil && PrivateFile.kind(path) == .missing
            let status = try Status.read(journalPath: path, firstUse: firstUse,
                                         destinations: try journalOptions.settingsOptions.destinations(settings: settings),
                                         settings: settings, settingsProblems: settingsProblems,
                                         trackingOff: TrackingChange.notice(for: settings, settingsPath: journalOptions.settingsOptions.path),
                                         packagedJournal: firstUse ? Paths.packagedJournalHint(besides: path) : nil, now: SyncClock.now())
            Terminal.output(json ? status.json() : status.page())
        }
    }
}
