#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import OverlandJSON
import OverlandJournal
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

            Exit status: 0 sent or nothing to send, 75 try later (network, time-out, 5xx, \
            not acknowledged), 77 refused (401 or 403), 78 configuration error, 74 the \
            journal or the sync state cannot be read or written, 64 usage.
            """,
        version: OverlandVersion.current
    )

    @Option(name: .customLong("journal"), help: ArgumentHelp(
        "A journal to upload; repeat for several (each keeps its own cursor).",
        discussion: "Default: $OVERLAND_JOURNAL, else the settings' journal, else ~/.local/share/overland/journal.",
        valueName: "dir"))
    var journals: [String] = []

    @OptionGroup var settingsOptions: SettingsOptions

    @Option(help: ArgumentHelp("The endpoint URL (default: $OVERLAND_URL, else the settings' endpoint).", valueName: "url"))
    var url: String?

    @Option(name: .customLong("device-id"), help: "The device id (for the owntracks mode's topic and headers).")
    var deviceID: String?

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("A PEM file of certificate authorities to trust instead of the system's.", valueName: "file"))
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
        if dryRun && watch { throw ValidationError("--dry-run and --watch do not go together") }
    }

    public func run() async throws {
        let status = await runCatching()
        if status != .ok { throw ExitCode(status.rawValue) }
    }

    private func runCatching() async -> ExitStatus {
        do {
            var status = try await syncOnce()
            while watch {
                let settings = try settingsOptions.load()
                // Sending off: look again a minute later, the settings may change.
                let interval = settings.sendInterval.seconds ?? 60
                try await Task.sleep(for: .seconds(max(interval, 1)))
                status = try await syncOnce()
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
        guard let endpoint = url ?? settings.endpoint else {
            throw CommandFailure("no endpoint: set one with 'overland config set endpoint URL' or OVERLAND_URL", status: .configuration)
        }
        let paths = journals.isEmpty ? [settings.journalPath(flag: nil)] : journals
        var worst = ExitStatus.ok
        for path in paths {
            let status = try await sync(journalAt: path, endpoint: endpoint, settings: settings)
            if status.severity > worst.severity { worst = status }
        }
        return worst
    }

    private func sync(journalAt path: String, endpoint: String, settings: Settings) async throws -> ExitStatus {
        let journal = try Journal(path: path)
        let trip = try Trip.active(in: journal)
        let configuration = try syncConfiguration(endpoint: endpoint, settings: settings, journal: journal, trip: trip)
        // Before anything reaches the HTTP client (a port past 65535 would trap there), and
        // before the journal's origin: a configuration error is the first thing to fix.
        try configuration.validate()
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
            let engine = SyncEngine(journal: journal, configuration: configuration, transport: NoTransport())
            guard let request = try engine.dryRun(onIssue: printer.handler) else {
                Terminal.line("nothing to send from \(path)")
                return .ok
            }
            Terminal.output(request.displayText + "\n")
            return .ok
        }
        let report = try await HTTPClientTransport.withTransport(configuration: configuration) { transport in
            let engine = SyncEngine(journal: journal, configuration: configuration, transport: transport)
            return await engine.run(
                sendNow: now,
                onProgress: { progress in
                    Terminal.progress("\(path): \(progress.sentRecords) points sent, \(progress.backlog) waiting")
                },
                onSet: { set in applyServerSet(set, token: configuration.token) },
                onIssue: printer.handler)
        }
        Terminal.clearProgress()
        // Only a run that sent something marks where this journal is synced from: a run with
        // nothing to send (most cron runs) writes nothing more.
        if report.sentRecords > 0, let warning = JournalOrigin.record(journal: journal) {
            Terminal.error("overland-sync: \(path): \(warning)")
        }
        return describe(report, journal: path, endpoint: configuration.endpoint)
    }

    private func syncConfiguration(endpoint: String, settings: Settings, journal: Journal, trip: Trip?) throws -> SyncConfiguration {
        let profile = settings.profile(duringTrip: trip != nil)
        var configuration = SyncConfiguration(endpoint: endpoint, token: settings.token,
                                              deviceID: DeviceIdentity.resolve(flag: deviceID, settings: settings))
        configuration.batchSize = profile.batchSize.count
        configuration.loggingMode = SyncConfiguration.LoggingMode(rawValue: profile.loggingMode.rawValue) ?? .all
        configuration.consider2xxSuccessful = settings.consider2xxSuccessful
        configuration.profile = ReceiverProfile(named: settings.effectiveReceiverProfile.rawValue) ?? .none
        configuration.wireProtocol = WireProtocol(rawValue: settings.wireProtocol.rawValue) ?? .overland
        configuration.sendIntervalSeconds = settings.sendInterval.seconds
        configuration.caFile = caFile ?? settings.caFile
        configuration.maxTime = maxTime
        configuration.userAgent = "overland-sync/\(OverlandVersion.current)"
        configuration.keepSentSeconds = Int64(settings.retentionDays) * 86_400
        if let trip {
            let summary = try TripSummary.compute(for: trip, in: journal)
            configuration.trip = TripProgress(mode: trip.mode, start: trip.start, distance: summary.distance,
                                              startLocation: summary.startLocation, currentLocation: summary.latestLocation).json()
        }
        return configuration
    }

    /// A server's `set`: validated and saved to the settings file, with a warning for
    /// each key or value ignored.
    private func applyServerSet(_ set: JSONValue, token: String?) {
        do {
            var outcome = SetOutcome()
            _ = try SettingsFile.update(path: settingsOptions.path) { settings in
                outcome = OverlandSettings.applyServerSet(set, to: &settings)
            }
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

    private func describe(_ report: SyncReport, journal: String, endpoint: String) -> ExitStatus {
        for warning in report.warnings { Terminal.error("overland-sync: \(journal): \(warning)") }
        let server = endpointForDisplay(endpoint)
        func note(_ text: String) { if verbose { Terminal.error("overland-sync: \(journal): \(text)") } }
        // Why nothing was sent: said on a terminal (a person waiting for an answer), not
        // from cron, whose mail would fill with it every minute.
        func explain(_ text: String) { if verbose || Terminal.stderrIsTerminal { Terminal.error("overland-sync: \(journal): \(text)") } }
        switch report.outcome {
        case .delivered, .maxTimeReached:
            let skipped = report.skippedRecords > 0 ? "; \(report.skippedRecords) older skipped (logging mode)" : ""
            note("\(report.sentRecords) points sent to \(server) in \(report.batches) requests\(skipped); \(report.backlog) waiting")
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
            Terminal.error("overland-sync: \(journal): interrupted; the unacknowledged batch will be sent again")
            return .tryLater
        case .retryLater:
            Terminal.error("overland-sync: \(server): \(report.message ?? "not acknowledged"); \(report.backlog) points wait for the next try")
            return .tryLater
        case .refused(let status):
            Terminal.error("overland-sync: \(server) refused the credentials (HTTP \(status)): check the token")
            return .noPermission
        case .configurationError:
            Terminal.error("overland-sync: \(journal): \(report.message ?? "configuration error")")
            return .configuration
        case .journalError(let error):
            Terminal.error("overland-sync: \(error)")
            return error.exitStatus == .noInput ? .ioError : error.exitStatus
        case .stateError:
            Terminal.error("overland-sync: \(journal): \(report.message ?? "the sync state cannot be written")")
            return .ioError
        }
    }

    /// "2026-11-21T05:22:12Z (in 4 min)": a time to come, absolute and relative.
    static func when(_ time: Int64) -> String {
        let seconds = max(0, time - Journal.currentTime())
        let relative = seconds < 60 ? "\(seconds) s" : seconds < 7200 ? "\((seconds + 59) / 60) min" : "\((seconds + 1799) / 3600) h"
        return "\(ISO8601UTC.string(from: time)) (in \(relative))"
    }

    /// The endpoint without its query string (which may carry a token, as Compass's does).
    private func endpointForDisplay(_ endpoint: String) -> String {
        String(endpoint.prefix { $0 != "?" })
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
