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
        discussion: "Default: $OVERLAND_JOURNAL, else the settings' journal, else ~/.local/share/overland/journal.",
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
            var status = try await syncOnce()
            if watch && MQTTConnections.shared.commandsRefused { return .tryLater }
            while watch {
                let settings = try settingsOptions.load()
                // The shortest send interval of the destinations; sending off: look again
                // a minute later, the settings may change.
                let intervals = try selectedDestinations(settings: settings).selected.compactMap(\.sendInterval.seconds)
                let interval = intervals.min() ?? 60
                // MQTT destinations keep their connection meanwhile and answer TOPIC/cmd.
                try await MQTTConnections.shared.idle(for: .seconds(max(interval, 1)), settingsPath: settingsOptions.path,
                                                      verbose: verbose)
                status = try await syncOnce()
                // Commands can never arrive: say so (the pass did) and end, 75.
                if MQTTConnections.shared.commandsRefused { return .tryLater }
            }
            return status
        } catch let failure as CommandFailure {
            Terminal.error("overland-sync: \(failure.message)")
            return failure.status
        } catch let error as JournalError {
            Terminal.error("overland-sync: \(error)")
            return error.exitStatus
        } catch let error as SettingsError {
            Terminal.error("overland-sync: \(error.commandFailure.message)")
            return error.commandFailure.status
        } catch let error as SyncError {
            // A bad endpoint or CA file is the user's to fix, not a reason to try later.
            Terminal.error("overland-sync: \(error.description)")
            switch error {
            case .configuration: return .configuration
            case .storage: return .ioError
            }
        } catch {
            Terminal.error("overland-sync: \(error)")
            return .tryLater
        }
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
        guard !all.isEmpty else {
            throw CommandFailure("no endpoint: set one with 'overland config set endpoint URL' or OVERLAND_URL "
                                 + "(or add a destination: 'overland destination add NAME URL')", status: .configuration)
        }
        guard !to.isEmpty else { return (all, all) }
        var selected: [Destination] = []
        for name in to where !selected.contains(where: { $0.name == name }) {
            guard let destination = all.first(where: { $0.name == name }) else {
                throw CommandFailure("no destination '\(name)' (configured: \(all.map(\.name).joined(separator: ", ")))", status: .usage)
            }
            selected.append(destination)
        }
        return (selected, all)
    }

    private func sync(journalAt path: String, destinations: (selected: [Destination], all: [Destination]),
                      settings: Settings) async throws -> ExitStatus {
        let journal = try Journal(path: path)
        let trip = try Trip.active(in: journal)
        let tripProgress: [UInt8]? = try trip.map { (trip: Trip) throws -> [UInt8] in
            let summary = try TripSummary.compute(for: trip, through: Journal.currentTime(), in: journal)
            return TripProgress(mode: trip.mode, start: trip.start, distance: summary.distance,
                                startLocation: summary.startLocation, currentLocation: summary.latestLocation).json()
        }
        // Each destination's configuration, or why it cannot work. Checked before anything
        // reaches the HTTP client (a port past 65535 would trap there), and before the
        // journal's origin: a configuration error is the first thing to fix.
        var jobs: [DestinationJob] = []
        for destination in destinations.selected {
            let configuration = syncConfiguration(for: destination, settings: settings, duringTrip: trip != nil, trip: tripProgress)
            var job = DestinationJob(destination: destination, configuration: configuration)
            if MQTTSync.isMQTT(destination) {
                let mqtt = MQTTSync.destination(destination, settings: settings, maxTime: maxTime)
                job.mqtt = mqtt
                do { _ = try mqtt.validate() } catch { job.refusal = error.description }
            } else {
                do { try configuration.validate() } catch { job.refusal = error.description }
            }
            jobs.append(job)
        }
        let labelled = destinations.all.count > 1 || destinations.selected.first?.isDefault == false
        if let refused = jobs.first(where: { $0.refusal != nil }), jobs.allSatisfy({ $0.refusal != nil }), !labelled {
            throw CommandFailure(refused.refusal!, status: .configuration)
        }
        if !dryRun {
            for warning in try JournalOrigin.check(journal: journal, acceptCopy: acceptCopy) {
                Terminal.error("overland-sync: \(path): \(warning)")
            }
        } else if let intent = try journal.pendingMove() {
            // What a real run refuses (the origin check above), a dry run refuses too.
            throw CommandFailure(JournalOriginError.movePending(intent).description, status: .dataError)
        }
        let printer = IssuePrinter(tool: "overland-sync")
        if dryRun {
            return try printDryRun(jobs, journal: journal, path: path, labelled: labelled, printer: printer)
        }
        let outcome = await send(jobs, journal: journal, path: path, settings: settings,
                                 readers: destinations.all.compactMap { CursorName($0.name) }, printer: printer)
        Terminal.clearProgress()
        for warning in outcome.warnings { Terminal.error("overland-sync: \(path): \(warning)") }
        // Only a run that sent something marks where this journal is synced from: a run with
        // nothing to send (most cron runs) writes nothing more.
        if outcome.reports.contains(where: { $0.report.sentRecords > 0 }), let warning = JournalOrigin.record(journal: journal) {
            Terminal.error("overland-sync: \(path): \(warning)")
        }
        var worst = ExitStatus.ok
        for (job, (_, report)) in zip(jobs, outcome.reports) {
            let status = describe(report, journal: path, endpoint: job.configuration.endpoint, label: labelled ? job.destination.name : nil)
            if status.severity > worst.severity { worst = status }
            let readBack = ReadBackStep.describe(report.readBack, tool: "overland-sync: " + (labelled ? "\(job.destination.name): " : ""),
                                                 verbose: verbose, configuration: job.configuration, destination: job.destination)
            if readBack.severity > worst.severity { worst = readBack }
        }
        return worst
    }

    /// `--dry-run`: the first request each destination would be sent.
    private func printDryRun(_ jobs: [DestinationJob], journal: Journal, path: String, labelled: Bool,
                        printer: IssuePrinter) throws -> ExitStatus {
        var worst = ExitStatus.ok
        for job in jobs {
            let heading = labelled ? "\(job.destination.name): " : ""
            if let refusal = job.refusal {
                Terminal.error("overland-sync: \(heading)\(refusal)")
                worst = ExitStatus.configuration.severity > worst.severity ? .configuration : worst
                continue
            }
            guard let cursor = CursorName(job.destination.name) else { continue }
            if let mqtt = job.mqtt {
                Terminal.line("\(heading)would publish \(Plural.count(try journal.backlog(for: cursor), "point")) to \(MQTTSync.displayURL(mqtt)) on '\(mqtt.deviceTopic)'")
                continue
            }
            let engine = SyncEngine(journal: journal, configuration: job.configuration, transport: NoTransport(), cursor: cursor)
            guard let request = try engine.dryRun(onIssue: printer.handler) else {
                Terminal.line("\(heading)nothing to send from \(path)")
                continue
            }
            if labelled { Terminal.line("# \(job.destination.name)") }
            Terminal.output(request.displayText + "\n")
        }
        return worst
    }

    /// Sends to every job's destination in one run (`DestinationsRun`).
    private func send(_ jobs: [DestinationJob], journal: Journal, path: String, settings: Settings,
                      readers: [CursorName], printer: IssuePrinter) async -> DestinationsRun.Outcome {
        let names = jobs.compactMap { CursorName($0.destination.name) }
        let byName = Dictionary(jobs.map { ($0.destination.name, $0) }, uniquingKeysWith: { first, _ in first })
        let run = DestinationsRun(journal: journal, destinations: names, readers: readers,
                                  keepSentSeconds: Int64(settings.retentionDays) * 86_400, wallClock: SyncClock.now)
        let sendNow = now
        let keepOpen = watch
        let showProgress = jobs.count == 1
        let settingsPath = settingsOptions.path
        let verbose = verbose
        return await run.run { name, lock in
            guard let job = byName[name.text] else { return SyncReport(outcome: .configurationError, message: "unknown destination") }
            if let refusal = job.refusal { return SyncReport(outcome: .configurationError, message: refusal) }
            if let mqtt = job.mqtt {
                let onIssue = printer.handler
                return await BlockingWork.run {
                    MQTTConnections.shared.run(mqtt, journal: journal, key: path, cursor: name, holding: lock,
                                               sendNow: sendNow, keepOpen: keepOpen, onIssue: onIssue)
                }
            }
            do {
                return try await HTTPClientTransport.withTransport(configuration: job.configuration) { transport in
                    let engine = SyncEngine(journal: journal, configuration: job.configuration, transport: transport, cursor: name,
                                            wallClock: SyncClock.now)
                    let runStart = (try? journal.cursor(for: name)) ?? 0
                    let report = await engine.run(
                        holding: lock, sendNow: sendNow,
                        onProgress: showProgress ? { (progress: SyncProgress) in
                            Terminal.progress("\(path): \(Plural.count(progress.sentRecords, "point")) sent, \(progress.backlog) waiting")
                        } : nil,
                        // A server's `set` changes the settings file: only the default
                        // destination's server (the one the settings name) may.
                        onSet: job.destination.isDefault ? { (set: JSONValue) in
                            ServerSetApplier(settingsPath: settingsPath, verbose: verbose).apply(set, token: job.configuration.token)
                        } : nil,
                        onIssue: printer.handler)
                    return await ReadBackStep.run(after: report, destination: job.destination, configuration: job.configuration,
                                                  journal: journal, cursor: name, runStart: runStart, transport: transport)
                }
            } catch {
                return SyncReport(outcome: .configurationError, message: "\(error)")
            }
        }
    }

    /// What one destination's run is made of.
    private struct DestinationJob: Sendable {
        var destination: Destination
        var configuration: SyncConfiguration
        /// The MQTT destination, for the mqtt protocol (`MQTTSender`).
        var mqtt: OverlandMQTT.MQTTDestination?
        /// Why it cannot be sent to (a configuration error), or nil.
        var refusal: String?
    }

    /// What `destination` is sent with; `trip` is the active trip's `trip` object.
    private func syncConfiguration(for destination: Destination, settings: Settings, duringTrip: Bool,
                                   trip: [UInt8]?) -> SyncConfiguration {
        var configuration = SyncConfiguration(endpoint: destination.url, token: destination.token,
                                              deviceID: DeviceIdentity.resolve(flag: destination.deviceID, settings: settings))
        configuration.wireProtocol = WireProtocol(rawValue: destination.wireProtocol.rawValue) ?? .overland
        if destination.isDefault {
            // The default destination follows the trip profile while a trip runs.
            let profile = settings.profile(duringTrip: duringTrip)
            configuration.batchSize = profile.batchSize.count
            configuration.loggingMode = SyncConfiguration.LoggingMode(rawValue: profile.loggingMode.rawValue) ?? .all
        } else {
            configuration.batchSize = destination.batchSize.count
            configuration.loggingMode = SyncConfiguration.LoggingMode(rawValue: destination.loggingMode.rawValue) ?? .all
        }
        configuration.consider2xxSuccessful = destination.consider2xxSuccessful
        configuration.profile = ReceiverProfile(named: destination.profile.rawValue) ?? .none
        configuration.sendIntervalSeconds = destination.sendInterval.seconds
        configuration.caFile = destination.caFile
        configuration.maxTime = maxTime
        configuration.userAgent = "overland-sync/\(OverlandVersion.current)"
        // Retention runs once for every destination, after the run (DestinationsRun).
        configuration.keepSentSeconds = nil
        configuration.trip = trip
        return configuration
    }

    /// One destination's outcome as lines on stderr and an exit status. `label` (the
    /// destination's name, when several are configured) starts every line about it.
    private func describe(_ report: SyncReport, journal: String, endpoint: String, label: String?) -> ExitStatus {
        let tool = "overland-sync: " + (label.map { "\($0): " } ?? "")
        for warning in report.warnings { Terminal.error("\(tool)\(journal): \(warning)") }
        let server = RedactedURL.shown(endpoint)
        func note(_ text: String) { if verbose { Terminal.error("\(tool)\(journal): \(text)") } }
        // Why nothing was sent: said on a terminal (a person waiting for an answer), not
        // from cron, whose mail would fill with it every minute.
        func explain(_ text: String) { if verbose || Terminal.stderrIsTerminal { Terminal.error("\(tool)\(journal): \(text)") } }
        switch report.outcome {
        case .delivered, .maxTimeReached:
            var skipped = report.skippedRecords > 0 ? "; \(report.skippedRecords) older skipped (logging mode)" : ""
            if report.notCarriedRecords > 0 {
                skipped += "; \(report.notCarriedRecords) not sent: trip, visit or action records or unreadable lines, which this receiver does not take"
            }
            note("\(Plural.count(report.sentRecords, "point")) sent to \(server) in \(Plural.count(report.batches, "request"))\(skipped); \(report.backlog) waiting")
            return .ok
        case .nothingToSend:
            explain("nothing to send")
            return .ok
        case .notDue(let next):
            explain("not due: the send interval has not passed since the last delivery; next attempt at \(Self.when(next)); --now sends anyway")
            return .ok
        case .backingOff(let until):
            // The engine's message: "backing off after N failed attempt(s) until TIME".
            let why = report.message?.components(separatedBy: " until ").first ?? "backing off after failures"
            explain("\(why); next attempt at \(Self.when(until)); --now sends anyway")
            return .ok
        case .sendingOff:
            explain("sending is off (send_interval off); --now sends anyway")
            return .ok
        case .alreadyRunning:
            explain("another overland-sync is uploading this journal")
            return .ok
        case .interrupted:
            Terminal.error("\(tool)\(journal): interrupted; the unacknowledged batch will be sent again")
            return .tryLater
        case .retryLater:
            Terminal.error("\(tool)\(server): \(report.message ?? "not acknowledged"); \(Plural.count(report.backlog, "point")) kept for the next try")
            return .tryLater
        case .refused(let status) where status == 0:
            // MQTT: the broker's CONNACK reason, named by the sender.
            Terminal.error("\(tool)\(report.message ?? "\(server) refused the credentials: check the username and token")")
            return .noPermission
        case .refused(let status):
            Terminal.error("\(tool)\(server) refused the credentials (HTTP \(status)): check the token")
            return .noPermission
        case .configurationError:
            Terminal.error("\(tool)\(journal): \(report.message ?? "configuration error")")
            return .configuration
        case .journalError(let error):
            Terminal.error("\(tool)\(error)")
            return error.exitStatus == .noInput ? .ioError : error.exitStatus
        case .stateError:
            Terminal.error("\(tool)\(journal): \(report.message ?? "the sync state cannot be written")")
            return .ioError
        }
    }

    /// "2026-11-21T05:22:12Z (in 4 min)": a time to come, absolute and relative.
    static func when(_ time: Int64) -> String {
        let seconds = max(0, time - SyncClock.now())
        let relative = seconds < 60 ? "\(seconds) s" : seconds < 7200 ? "\((seconds + 59) / 60) min" : "\((seconds + 1799) / 3600) h"
        return "\(ISO8601UTC.string(from: time)) (in \(relative))"
    }
}

/// Applies a server's `set` to the settings file.
struct ServerSetApplier: Sendable {
    let settingsPath: String
    let verbose: Bool

    /// A server's `set`: validated and saved to the settings file, with a warning for
    /// each key or value ignored.
    func apply(_ set: JSONValue, token: String?) {
        do {
            var outcome = SetOutcome()
            let (old, new) = try SettingsFile.update(path: settingsPath) { settings in
                outcome = OverlandSettings.applyServerSet(set, to: &settings)
            }
            TrackingNotice.changed(from: old, to: new, by: "the server of the default destination (its reply's set)",
                                   settingsPath: settingsPath, tool: "overland-sync: server set: ")
            for warning in outcome.warnings {
                // A warning quotes what the server sent (an unknown key, a refused value),
                // where it may echo the token (whole, cut, padded or split): every run of
                // its characters is hidden there. The project's own key names are not
                // server text, and stay readable whatever the token holds ("token" itself).
                var shownWarning = warning
                let secrets = token.map { [$0] } ?? []
                switch warning.reason {
                case .unknownKey: shownWarning.key = SecretRedaction.hiding(secrets, in: warning.key)
                case .invalidValue(let value, let allowed):
                    shownWarning.reason = .invalidValue(value: SecretRedaction.hiding(secrets, in: value), allowed: allowed)
                case .notRemotelySettable: break
                }
                let shown = "\(shownWarning)"
                Terminal.error("overland-sync: server set: \(shown)")
            }
            if verbose {
                for change in outcome.changes { Terminal.error("overland-sync: server set \(change)") }
            }
            if outcome.sendingTurnedOff {
                Terminal.error("overland-sync: the server turned sending off (send_interval off): nothing will be sent until you run 'overland config set send_interval 5m' (or another interval)")
            }
        } catch {
            Terminal.error("overland-sync: the server's settings were not saved: \(error)")
        }
    }
}

/// For `--dry-run`: a transport that is never asked to send.
private struct NoTransport: Transport {
    func send(_ request: SyncRequest, timeout: Duration) async throws -> HTTPReply {
        throw TransportError(.other, "dry run: nothing is sent")
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
