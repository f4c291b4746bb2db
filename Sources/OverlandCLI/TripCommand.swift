import ArgumentParser
import OverlandLogger
import OverlandJSON
import OverlandJournal
import OverlandProtocol
import OverlandRecorder
import OverlandSettings

/// `overland trip`: start, stop and show trips.
public struct TripCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "trip",
        abstract: "Start, stop or show a trip.",
        discussion: """
            While a trip runs, overland-log stamps each point of a fix from the trip's start on \
            with trip_id (the trip's start time; an old capture imported meanwhile is not the \
            trip's) and applies the trip settings (trip.* in 'overland config list'), and \
            overland-sync sends the trip object with every request. Stopping writes a trip \
            record (mode, start, end, duration, distance, start and end locations) into the \
            journal, safely while overland-log keeps appending. A trip holds the points whose \
            times fall inside it: from its start to its stop (to now while it runs). The trip survives reboots: \
            it lives in the journal's state/trip.json.

            Examples:
              overland trip start --mode bicycle
              overland trip
              overland trip stop
            """,
        subcommands: [Show.self, Start.self, Stop.self],
        defaultSubcommand: Show.self
    )

    public init() {}

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the active trip: mode, duration, distance, points.")

        @OptionGroup var journalOptions: JournalOptions
        @Flag(help: "Print one JSON object (null when no trip runs).") var json = false

        func run() throws {
            try reportingFailures("overland trip") {
                let journal = try journalOptions.open()
                guard let trip = try Trip.active(in: journal) else {
                    if json { Terminal.line("null") } else { Terminal.line("no trip") }
                    return
                }
                let now = Journal.currentTime()
                let summary = try TripSummary.compute(for: trip, through: now, in: journal)
                Terminal.output(json ? trip.json(summary, now: now) : trip.line(summary, now: now) + "\n")
            }
        }
    }

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start a trip.")

        @OptionGroup var journalOptions: JournalOptions
        @Option(help: ArgumentHelp("The trip mode: \(Trip.modes.joined(separator: ", ")) (default: the last one used).", valueName: "mode"),
                completion: Completions.tripModes)
        var mode: String?

        func validate() throws {
            if let mode, !Trip.modes.contains(mode) {
                throw ValidationError("unknown trip mode '\(mode)' (allowed: \(Trip.modes.joined(separator: ", ")))")
            }
        }

        func run() throws {
            try reportingFailures("overland trip start") {
                let settings = try journalOptions.settings()
                // Only the default journal is created here (`TripStarter`).
                let (mode, outcome) = try TripStarter.start(mode: mode, journalPath: journalOptions.path(with: settings),
                                                            create: journalOptions.journal == nil && settings.journal == nil, settings: settings,
                                                            settingsPath: journalOptions.settingsOptions.path, now: Journal.currentTime())
                switch outcome {
                case .started(let trip): Terminal.line("\(mode) trip started at \(trip.id)")
                case .alreadyRunning(let running):
                    throw CommandFailure("a \(running.mode) trip is already running since \(running.id); stop it first", status: .usage)
                }
            }
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the active trip and write its record into the journal.")

        @OptionGroup var journalOptions: JournalOptions

        func run() throws {
            try reportingFailures("overland trip stop") {
                let settings = try journalOptions.settings()
                let journal = try journalOptions.open()
                let stopped = try TripStopper.stop(in: journal, settings: settings, automatically: false) {
                    try JournalAppender(journal: journal, onIssue: IssuePrinter(tool: "overland trip stop").handler)
                }
                guard let (trip, record) = stopped else { throw CommandFailure("no trip is running", status: .usage) }
                Terminal.line("\(trip.mode) trip stopped: \(Format.duration(record.summary.duration)), "
                              + "\(Format.distance(record.summary.distance)), \(Plural.count(record.summary.points, "point"))")
            }
        }
    }
}
