#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import OverlandJSON
import OverlandJournal
import OverlandMQTT
import OverlandProtocol
import OverlandRecorder
import OverlandSettings
import OverlandSync

/// `overland-sync`: posts the journal's unsent points to the server.
public struct SyncCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "overland-sync",
        abstract: "Upload a journal's unsent points to an Overland server.",
        discussion: """
            Reads each journal from its cursor, posts batches of batch_size points as \
            {"locations": [...]} and moves the cursor only when the server answers a 2xx \
            with {"result": "ok"} (any 2xx with consider_2xx_successful, and in the \
            owntracks mode). It repeats until nothing waits, an attempt fails, or \
            --max-time runs out. Made for cron or a systemd timer, every minute:

              * * * * *  overland-sync

            It honours send_interval (nothing is sent sooner after the last success, unless \
            --now) and, after failures, backs off (1 min doubling to 1 h, with jitter, \
            remembered across runs) without ever giving up. One run at a time per journal: \
            an overlapping run exits 0 at once. Quiet on success; one line on failure.

            Settings come from the flags, then OVERLAND_URL, OVERLAND_TOKEN, \
            OVERLAND_DEVICE_ID and OVERLAND_JOURNAL, then the settings file ('overland \
            config'), then the defaults. The token is never printed in full.

            Destinations ('overland destination'): the settings' endpoint is the \
            destination named default; each destination has its own cursor, state, \
            batches, backoff and send interval. A run sends to every destination at once \
            (--to NAME for some), each when it is due, and one that fails never holds the \
            others back. --url, --device-id and --ca-file apply to the default one; a \
            server's set is applied only from the default one.

            Exit status: 0 sent or nothing to send, 75 try later (network, time-out, 5xx, \
            not acknowledged), 77 refused (401 or 403), 78 configuration error (also a \
            redirect or a 404, 405 or 410: the endpoint must change), 74 the \
            journal or the sync state cannot be read or written, 65 the journal looks like \
            a copy, 64 usage. With several destinations, the worst status of them all, \
            in this order: 78 (and 64), 77, 74, 65, 75, 0, with one line per failing \
            destination starting with its name.
            """,
        version: OverlandVersion.current
    )

    @Option(name: .customLong("journal"), help: ArgumentHelp(
        "A journal to upload; repeat for several (each keeps its own cursor).",
        discussion: JournalOptions.defaultHelp,
        valueName: "dir"), completion: .directory)
    var journals: [String] = []

    @OptionGroup var settingsOptions: SettingsOptions

    @Option(help: ArgumentHelp("The default destination's URL (default: $OVERLAND_URL, else the settings' endpoint).", valueName: "url"))
    var url: String?

    @Option(name: .customLong("to"), help: ArgumentHelp(
        "Send to this destination only; repeat for several (default: every destination, each when it is due).",
        valueName: "name"), completion: Completions.destinationNames)
    var to: [String] = []

    @Option(name: .customLong("device-id"), help: "The device id (for the owntracks mode's topic and headers).")
    var deviceID: String?

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("A PEM file of certificate authorities to trust instead of the system's.", valueName: "file"),
            completion: .file())
    var caFile: String?

    @Option(name: .customLong("max-time"), help: ArgumentHelp("Stop sending after this many seconds (between batches).", valueName: "seconds"))
    var maxTime: Double?

    @Flag(help: "Send now: past the send interval and any backoff (the app's Send Now).")
    var now = false

    @Flag(name: .customLong("dry-run"), help: "Print the first request that would be sent (token redacted); change nothing.")
    var dryRun = false

    @Flag(help: "Keep running: sync, then wait for the send interval, again and again (for a service).")
    var watch = false

    @Flag(name: .shortAndLong, help: "Say what happened even on success (skipped runs, points sent).")
    var verbose = false

    @Flag(name: .customLong("accept-copy"), help: ArgumentHelp(
        "Upload a journal that looks like a copy (synced from elsewhere before, older than seen, or another device's).",
        discussion: "Only when the other copy will never be uploaded again: both would send the same points."))
    var acceptCopy = false

    public init() {}

    public func validate() throws {
        if let maxTime, !(maxTime > 0) { throw ValidationError("--max-time must be a positive number of seconds") }
        // Beyond a year the deadline's milliseconds would not fit: refused, not trapped on.
        if let maxTime, maxTime > 31_622_400 { throw ValidationError("--max-time \(maxTime): use at most 31622400 seconds (366 days)") }
        if dryRun && watch { throw ValidationError("--dry-run and --watch do not go together") }
    }

    public func run() async throws {
        let status = await runCatching()
        if status != .ok { throw ExitCode(status.rawValue) }
    }

    private func runCatching() async -> ExitStatus {
        do {
            return try await syncAndWatch()
        } catch {
            // A bad endpoint or CA file is the user's to fix, not a reason to try later.
            let failure = CommandFailure(reporting: error) ?? (error as? SyncError).map { CommandFailure($0.description, status: $0.exitStatus) }
                ?? CommandFailure("\(error)", status: .tryLater)
            Terminal.error("overland-sync: \(failure.message)")
            return failure.status
        }
    }

    /// One pass, and with `--watch` one after another, the shortest send interval apart.
    private func syncAndWatch() async throws -> ExitStatus {
        var status = try await syncOnce()
        if watch && MQTTSenders.shared.commandsRefused { return .tryLater }
        while watch {
            let settings = try settingsOptions.load()
            // The shortest send interval of the destinations; sending off: look again
            // a minute later, the settings may change.
            let intervals = try selectedDestinations(settings: settings).selected.compactMap(\.sendInterval.seconds)
            let interval = intervals.min() ?? 60
            // MQTT destinations keep their connection meanwhile and answer TOPIC/cmd.
            let commands = MQTTCommandLines(settingsPath: settingsOptions.path, verbose: verbose)
            try await MQTTSenders.shared.idle(for: .seconds(max(interval, 1)), onCommand: commands.report, onLost: commands.lost)
            status = try await syncOnce()
            // Commands can never arrive: say so (the pass did) and end, 75.
            if MQTTSenders.shared.commandsRefused { return .tryLater }
        }
        return status
    }

    /// One pass over every journal; the worst status wins.
    private func syncOnce() async throws -> ExitStatus {
        let settings = try settingsOptions.load()
        let destinations = try selectedDestinations(settings: settings)
        let paths = journals.isEmpty ? [settings.journalPath(flag: nil)] : journals
        var worst = ExitStatus.ok
        for path in paths {
            let status = try await sync(journalAt: path, destinations: destinations, settings: settings)
            if status.severity > worst.severity { worst = status }
        }
        return worst
    }

    /// The destinations this run sends to (`--to`, else every one configured) and every
    /// configured one (whose cursors retention keeps). `--url`, `--device-id` and
    /// `--ca-file` apply to the default destination.
    private func selectedDestinations(settings: Settings) throws -> (selected: [Destination], all: [Destination]) {
        var defaults = settings
        if let url { defaults.endpoint = url }
        if let deviceID { defaults.deviceID = deviceID }
        if let caFile { defaults.caFile = caFile }
        let all = try settingsOptions.destinations(settings: defaults)
        return (try Destination.selected(to, among: all), all)
    }

    /// One journal to the selected destinations (`DestinationsRun`), or `--dry-run`.
    private func sync(journalAt path: String, destinations: (selected: [Destination], all: [Destination]),
                      settings: Settings) async throws -> ExitStatus {
        let journal = try Journal(path: path)
        let pass = SyncPass(selected: destinations.selected, all: destinations.all,
                            senders: try makeSenders(settings: settings, journal: journal, path: path, count: destinations.selected.count))
        // A configuration error is the first thing to fix: said before the journal's origin.
        if let refusal = pass.refusal { throw CommandFailure(refusal, status: .configuration) }
        try checkOrigin(of: journal, path: path)
        let printer = IssuePrinter(tool: "overland-sync")
        if dryRun { return try printDryRun(pass, journal: journal, path: path, printer: printer) }
        let outcome = await pass.run(journal: journal, keepSentSeconds: Int64(settings.retentionDays) * 86_400, sendNow: now,
                                     onIssue: printer.handler, wallClock: SyncClock.now)
        Terminal.clearProgress()
        for warning in outcome.warnings { Terminal.error("overland-sync: \(path): \(warning)") }
        // Only a run that sent something marks where this journal is synced from: a run with
        // nothing to send (most cron runs) writes nothing more.
        if outcome.reports.contains(where: { $0.report.sentRecords > 0 }), let warning = JournalOrigin.record(journal: journal) {
            Terminal.error("overland-sync: \(path): \(warning)")
        }
        var worst = ExitStatus.ok
        for (destination, (_, report)) in zip(destinations.selected, outcome.reports) {
            let lines = SyncReportLines(label: pass.labelled ? destination.name : nil, journal: path, endpoint: destination.url, verbose: verbose,
                                        explains: verbose || Terminal.stderrIsTerminal, now: SyncClock.now(),
                                        destination: destination.name, hasToken: !(destination.token ?? "").isEmpty)
            lines.lines(report).forEach(Terminal.error)
            let status = report.exitStatus
            if status.severity > worst.severity { worst = status }
            let readBack = ReadBackStep.describe(report.readBack, tool: "overland-sync: " + (pass.labelled ? "\(destination.name): " : ""),
                                                 verbose: verbose, destination: destination)
            if readBack.severity > worst.severity { worst = readBack }
        }
        return worst
    }

    /// The senders with this run's options: progress on a terminal for one destination,
    /// a server's `set` applied to the settings file.
    private func makeSenders(settings: Settings, journal: Journal, path: String, count: Int) throws -> DestinationSenders {
        var senders = try DestinationSenders(settings: settings, journal: journal)
        senders.maxTime = maxTime
        senders.keepOpen = watch
        if count == 1 {
            senders.onProgress = { progress in
                Terminal.progress("\(path): \(Plural.count(progress.sentRecords, "point")) sent, \(progress.backlog) waiting")
            }
        }
        let applier = ServerSetApplier(settingsPath: settingsOptions.path, verbose: verbose)
        senders.onSet = { set, token in applier.apply(set, token: token) }
        return senders
    }

    /// Refuses a journal that looks like a copy (warnings when that cannot be told); a dry
    /// run refuses only what a real run refuses first, a move pending.
    private func checkOrigin(of journal: Journal, path: String) throws {
        if !dryRun {
            for warning in try JournalOrigin.check(journal: journal, acceptCopy: acceptCopy) {
                Terminal.error("overland-sync: \(path): \(warning)")
            }
        } else if let intent = try journal.pendingMove() {
            throw JournalOriginError.movePending(intent)
        }
    }

    /// `--dry-run`: the first request each destination would be sent (`SyncPass.dryRun`).
    private func printDryRun(_ pass: SyncPass, journal: Journal, path: String, printer: IssuePrinter) throws -> ExitStatus {
        var worst = ExitStatus.ok
        try pass.dryRun(journal: journal, path: path, onIssue: printer.handler) { line in
            switch line {
            case .line(let text): Terminal.line(text)
            case .text(let text): Terminal.output(text)
            case .refused(let text):
                Terminal.error("overland-sync: \(text)")
                worst = .configuration
            }
        }
        return worst
    }
}

extension SyncError {
    var exitStatus: ExitStatus {
        switch self {
        case .configuration: .configuration
        case .storage: .ioError
        }
    }
}

extension ExitStatus {
    /// Which of two statuses a run over several journals reports.
    var severity: Int {
        switch self {
        case .ok: return 0
        case .tryLater: return 1
        case .dataError, .noInput: return 2
        case .ioError, .cannotCreate: return 3
        case .noPermission, .protocolError: return 4
        case .configuration, .usage: return 5
        }
    }
}
