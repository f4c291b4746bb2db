#if canImport(Glibc)
import Glibc
#endif
import OverlandJSON
import OverlandJournal
import OverlandMQTT
import OverlandProtocol
import OverlandSettings
import OverlandSync

/// Where `overland-sync` hands an mqtt destination to the MQTT sender: the destination's
/// keys as an `MQTTDestination`, one call per run (`MQTTConnections.run`, like
/// `SyncEngine.run(holding:)` for the http protocols).
enum MQTTSync {
    /// Whether `destination` goes through a broker: the mqtt protocol, or a url `mqtt://`
    /// or `mqtts://` (the default destination, from `--url` or the settings' endpoint).
    static func isMQTT(_ destination: Destination) -> Bool {
        let lower = destination.url.lowercased()
        return destination.wireProtocol == .mqtt || lower.hasPrefix("mqtt://") || lower.hasPrefix("mqtts://")
    }

    /// The sender's view of a destination's keys.
    static func destination(_ destination: Destination, settings: Settings, maxTime: Double?) -> OverlandMQTT.MQTTDestination {
        var mqtt = OverlandMQTT.MQTTDestination(name: destination.name, url: destination.url,
                                                deviceID: DeviceIdentity.resolve(flag: destination.deviceID, settings: settings))
        mqtt.token = destination.token
        mqtt.username = destination.username
        mqtt.topic = destination.topic
        mqtt.discovery = destination.discovery
        mqtt.keepAlive = destination.keepalive
        mqtt.protocolVersion = destination.protocolVersion == .v5 ? .v5 : .v311
        mqtt.caFile = destination.caFile
        mqtt.loggingMode = destination.loggingMode == .all ? .all : .latest
        mqtt.sendIntervalSeconds = destination.sendInterval.seconds
        mqtt.pubRetain = destination.pubRetain
        mqtt.commands = OverlandMQTT.MQTTDestination.Commands(rawValue: destination.commands.rawValue) ?? .report
        mqtt.maxTime = maxTime
        // A test hook, for the tests only (README, Tests): a broker that never answers is
        // waited on this long, so that a test sees what happens meanwhile without racing
        // the 10 s default.
        if let seconds = Paths.environment("OVERLAND_TEST_MQTT_CONNECT_TIMEOUT").flatMap(Double.init), seconds > 0, seconds <= 86_400 {
            mqtt.connectTimeout = seconds
        }
        return mqtt
    }

    /// `HOST:PORT` for messages, or the url as `RedactedURL` shows it when it does not parse.
    static func displayURL(_ destination: OverlandMQTT.MQTTDestination) -> String {
        (try? MQTTBrokerURL(parsing: destination.url))?.description ?? RedactedURL.shown(destination.url)
    }
}

/// The MQTT senders of this process, one per journal and destination: a `--watch` run keeps
/// each connection open between runs and answers `TOPIC/cmd` while it waits (`idle`).
final class MQTTConnections: @unchecked Sendable {
    static let shared = MQTTConnections()

    private var mutex = pthread_mutex_t()
    private var senders: [String: MQTTSender] = [:]
    /// Set when a broker refused the subscription to `TOPIC/cmd`: `--watch` then ends (75)
    /// after the pass, rather than wait for commands that cannot arrive.
    private(set) var commandsRefused = false

    private init() { pthread_mutex_init(&mutex, nil) }

    /// One run of `destination` (the caller holds the journal's cursor lock). With
    /// `keepOpen` the connection stays for the next run and listens on `TOPIC/cmd`.
    func run(_ destination: OverlandMQTT.MQTTDestination, journal: Journal, key path: String, cursor: CursorName,
             holding lock: JournalLock, sendNow: Bool, keepOpen: Bool, onIssue: JournalIssueHandler?) -> SyncReport {
        let key = path + "\n" + cursor.text
        pthread_mutex_lock(&mutex)
        var sender = senders[key]
        if sender?.destination != destination {
            sender?.close()
            sender = MQTTSender(journal: journal, destination: destination, cursor: MQTTCursor(name: cursor), onIssue: onIssue)
        }
        if keepOpen { senders[key] = sender } else { senders[key] = nil }
        pthread_mutex_unlock(&mutex)
        guard let sender else { return SyncReport(outcome: .interrupted) }
        sender.listensForCommands = keepOpen
        let report = sender.run(holding: lock, sendNow: sendNow)
        if keepOpen, sender.commandRefusal != nil {
            pthread_mutex_lock(&mutex)
            commandsRefused = true
            pthread_mutex_unlock(&mutex)
        }
        return report
    }

    /// Waits `duration`, answering commands on every open connection meanwhile
    /// (`reportLocation` at once; `setConfiguration` applied to the settings file with the
    /// checks of a server's `set`). Without connections, a plain sleep.
    func idle(for duration: Duration, settingsPath: String, verbose: Bool) async throws {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            pthread_mutex_lock(&mutex)
            let open = senders
            pthread_mutex_unlock(&mutex)
            if open.isEmpty {
                try await Task.sleep(until: deadline)
                return
            }
            for (key, sender) in open.sorted(by: { $0.key < $1.key }) {
                let slice = min(deadline, ContinuousClock.now + .milliseconds(max(50, 500 / open.count)))
                do {
                    try sender.idle(until: slice) { outcome in
                        Self.report(outcome, sender: sender, settingsPath: settingsPath, verbose: verbose)
                    }
                } catch {
                    // The next run reconnects; meanwhile nothing to listen to.
                    Terminal.error("overland-sync: \(sender.destination.name): \(error.description)")
                    sender.close(gracefully: false)
                    pthread_mutex_lock(&mutex)
                    if senders[key] === sender { senders[key] = nil }
                    pthread_mutex_unlock(&mutex)
                }
                if !sender.isConnected { 
                    pthread_mutex_lock(&mutex)
                    if senders[key] === sender { senders[key] = nil }
                    pthread_mutex_unlock(&mutex)
                }
            }
            try Task.checkCancellation()
            await Task.yield()
        }
    }

    private static func report(_ outcome: MQTTSender.CommandOutcome, sender: MQTTSender, settingsPath: String, verbose: Bool) {
        let destination = sender.destination
        let tool = "overland-sync: \(destination.name): "
        switch outcome {
        case .reportedLocation(let published):
            if verbose || !published {
                Terminal.error(tool + "reportLocation: " + (published ? "the newest point published" : "no point in the journal to report"))
            }
        case .setConfiguration(let configuration, let retained):
            let applied = OwnTracksConfigurationApplier.apply(configuration, settingsPath: settingsPath, token: destination.token,
                                                              label: destination.name, verbose: verbose)
            if applied, let retained {
                do { try sender.rememberApplied(retained) } catch {
                    Terminal.error(tool + "setConfiguration: applied, but not remembered (it will be applied again): \(error)")
                }
            }
        case .alreadyApplied:
            if verbose { Terminal.error(tool + "setConfiguration: the retained command was applied before; not again") }
        case .ignored(let why):
            Terminal.error(tool + "cmd ignored: \(why)")
        }
    }
}

/// OwnTracks' `setConfiguration` onto the settings file, with OverlandSettings' mapping
/// (`applyOwnTracksConfiguration`: OwnTracks keys onto remotely settable settings, with the
/// checks of `set`; unknown keys ignored with a warning; never an endpoint or a token).
enum OwnTracksConfigurationApplier {
    /// Applies `configuration`; false when the settings could not be saved (said on stderr).
    @discardableResult
    static func apply(_ configuration: JSONValue, settingsPath: String, token: String?, label: String, verbose: Bool) -> Bool {
        // The warnings name `setConfiguration` themselves; the changes are prefixed with it.
        let tool = "overland-sync: \(label): "
        do {
            var outcome = OwnTracksConfigurationOutcome()
            let (old, new) = try SettingsFile.update(path: settingsPath) { settings in
                outcome = applyOwnTracksConfiguration(configuration, to: &settings)
            }
            TrackingNotice.changed(from: old, to: new, by: "the mqtt broker of destination '\(label)' (setConfiguration)",
                                   settingsPath: settingsPath, tool: tool + "setConfiguration: ")
            // A warning quotes what was sent, where the token may have been echoed.
            let secrets = token.map { [$0] } ?? []
            for warning in outcome.warnings {
                Terminal.error(tool + SecretRedaction.hiding(secrets, in: warning.description))
            }
            if verbose {
                for change in outcome.changes { Terminal.error(tool + "setConfiguration: \(change)") }
            }
            if let retain = outcome.publishRetained { applyPubRetain(retain, settingsPath: settingsPath, label: label, verbose: verbose) }
            return true
        } catch {
            Terminal.error(tool + "setConfiguration: the settings were not saved: \(error)")
            return false
        }
    }

    /// `pubRetain` onto the destination's `pub_retain` in destinations.json; the default
    /// destination (the settings' endpoint) has no such key, and says so.
    private static func applyPubRetain(_ retain: Bool, settingsPath: String, label: String, verbose: Bool) {
        let tool = "overland-sync: \(label): setConfiguration: "
        guard label != Destination.defaultName else {
            Terminal.error(tool + "\"pubRetain\" ignored: the default destination has no pub_retain (an mqtt destination added with 'overland destination add' has)")
            return
        }
        do {
            let (old, new) = try DestinationsFile.update(path: DestinationsFile.path(settingsPath: settingsPath)) { destinations in
                guard let index = destinations.firstIndex(where: { $0.name == label }) else { return }
                destinations[index].pubRetain = retain
            }
            if verbose {
                for (before, after) in zip(old, new) {
                    for change in after.differences(from: before) { Terminal.error(tool + "\(change)") }
                }
            }
        } catch {
            Terminal.error(tool + "pub_retain was not saved: \(error)")
        }
    }
}
