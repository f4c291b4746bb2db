import OverlandJSON
import OverlandJournal
import OverlandMQTT
import OverlandProtocol
import OverlandRecorder
import OverlandSettings
import OverlandSync

/// The MQTT side of `overland-sync`: the destination from the settings, one drain, the
/// report as one line and an exit status, and `--watch` with `TOPIC/cmd` answered.
enum MQTTSync {
    /// Whether `url` names a broker (`mqtt://` or `mqtts://`).
    static func isBrokerURL(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("mqtt://") || lower.hasPrefix("mqtts://")
    }

    /// The exit status for a report, with its one line on stderr (quiet on success unless
    /// `verbose`).
    static func describe(_ report: SyncReport, journal: String, broker: String, verbose: Bool) -> ExitStatus {
        for warning in report.warnings { Terminal.error("overland-sync: \(journal): \(warning)") }
        func note(_ text: String) { if verbose { Terminal.error("overland-sync: \(journal): \(text)") } }
        switch report.outcome {
        case .delivered, .maxTimeReached:
            let skipped = report.skippedRecords > 0 ? "; \(report.skippedRecords) skipped" : ""
            note("\(report.sentRecords) points published to \(broker)\(skipped); \(report.backlog) waiting")
            return .ok
        case .nothingToSend, .notDue, .backingOff, .sendingOff:
            if verbose || Terminal.stderrIsTerminal { Terminal.error("overland-sync: \(journal): \(report.message ?? "nothing to send")") }
            return .ok
        case .alreadyRunning:
            note("another overland-sync is uploading this journal")
            return .ok
        case .interrupted:
            Terminal.error("overland-sync: \(journal): interrupted; the unacknowledged points will be sent again")
            return .tryLater
        case .retryLater:
            Terminal.error("overland-sync: \(report.message ?? "try later"); \(report.backlog) points wait for the next try")
            return .tryLater
        case .refused:
            Terminal.error("overland-sync: \(report.message ?? "\(broker) refused the credentials")")
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
}

extension SyncCommand {
    /// The MQTT destination the settings and flags describe (the default destination).
    func mqttDestination(endpoint: String, settings: Settings) -> MQTTDestination {
        var destination = MQTTDestination(name: "default", url: endpoint,
                                          deviceID: DeviceIdentity.resolve(flag: deviceID, settings: settings))
        destination.token = settings.token
        destination.caFile = caFile ?? settings.caFile
        destination.maxTime = maxTime
        destination.loggingMode = settings.main.loggingMode.rawValue == "all" ? .all : .latest
        destination.keepSentSeconds = Int64(settings.retentionDays) * 86_400
        return destination
    }

    /// One drain of the journal at `path` to the broker.
    func syncMQTT(journalAt path: String, endpoint: String, settings: Settings) throws -> ExitStatus {
        let journal = try Journal(path: path)
        let destination = mqttDestination(endpoint: endpoint, settings: settings)
        if dryRun {
            let broker = try mqttValidated(destination)
            Terminal.line("would publish to \(broker) on '\(destination.deviceTopic)' (\(try journal.backlog()) points waiting)")
            return .ok
        }
        let sender = MQTTSender(journal: journal, destination: destination, cursor: MQTTCursor(name: destination.name),
                                onIssue: IssuePrinter(tool: "overland-sync").handler)
        let report = sender.run { progress in
            Terminal.progress("\(path): \(progress.sentRecords) points published")
        }
        Terminal.clearProgress()
        return MQTTSync.describe(report, journal: path, broker: destination.displayURL, verbose: verbose)
    }

    private func mqttValidated(_ destination: MQTTDestination) throws -> MQTTBrokerURL {
        do {
            return try destination.validate()
        } catch {
            throw CommandFailure(error.description, status: .configuration)
        }
    }

    /// `--watch` to a broker: one connection kept open, a drain every send interval, and
    /// `TOPIC/cmd` answered in between. Nil when the endpoint is not a broker.
    func watchMQTTIfBroker() async throws -> ExitStatus? {
        var settings = try settingsOptions.load()
        guard let endpoint = url ?? settings.endpoint, MQTTSync.isBrokerURL(endpoint) else { return nil }
        let path = journals.first ?? settings.journalPath(flag: nil)
        let journal = try Journal(path: path)
        var destination = mqttDestination(endpoint: endpoint, settings: settings)
        _ = try mqttValidated(destination)
        var sender = MQTTSender(journal: journal, destination: destination, cursor: MQTTCursor(name: destination.name),
                                onIssue: IssuePrinter(tool: "overland-sync").handler)
        sender.listensForCommands = true
        var status = ExitStatus.ok
        while true {
            let report = sender.run()
            status = MQTTSync.describe(report, journal: path, broker: destination.displayURL, verbose: verbose)
            if status == .configuration || status == .noPermission { return status }
            let interval = max(settings.sendInterval.seconds ?? 60, 1)
            let wakeAt = ContinuousClock.now + .seconds(status == .ok ? interval : min(interval, 30))
            do {
                try sender.idle(until: wakeAt) { outcome in
                    handle(outcome, destinationToken: destination.token)
                }
            } catch {
                Terminal.error("overland-sync: \(error.description)")
                sender.close(gracefully: false)
                try await Task.sleep(until: wakeAt)
            }
            if Task.isCancelled { return status }
            // The settings may have changed (setConfiguration, the user).
            let reloaded = try settingsOptions.load()
            if reloaded != settings {
                settings = reloaded
                let changed = mqttDestination(endpoint: url ?? settings.endpoint ?? endpoint, settings: settings)
                if changed != destination {
                    sender.close()
                    destination = changed
                    sender = MQTTSender(journal: journal, destination: destination, cursor: MQTTCursor(name: destination.name),
                                        onIssue: IssuePrinter(tool: "overland-sync").handler)
                    sender.listensForCommands = true
                }
            }
        }
    }

    private func handle(_ outcome: MQTTSender.CommandOutcome, destinationToken: String?) {
        switch outcome {
        case .reportedLocation(let published):
            if verbose || !published {
                Terminal.error("overland-sync: reportLocation: \(published ? "the newest point published" : "no point in the journal to report")")
            }
        case .setConfiguration(let configuration):
            applyServerSet(OwnTracksConfiguration.settingsSet(from: configuration), token: destinationToken)
        case .ignored(let why):
            Terminal.error("overland-sync: cmd ignored: \(why)")
        }
    }
}

extension MQTTDestination {
    /// The url for messages.
    var displayURL: String { (try? MQTTBrokerURL(parsing: url))?.description ?? url }
}

/// OwnTracks' `setConfiguration` onto our settings: the `configuration` object without its
/// `_type`, given to the same validation as a server's `set` (unknown keys ignored with a
/// warning; the endpoint and token are never remotely settable).
enum OwnTracksConfiguration {
    static func settingsSet(from configuration: JSONValue) -> JSONValue {
        guard case .object(var members) = configuration else { return configuration }
        members["_type"] = nil
        return .object(members)
    }
}
