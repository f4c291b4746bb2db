import OverlandJSON
import OverlandJournal
import OverlandMQTT
import OverlandProtocol
import OverlandRecorder
import OverlandSettings
import OverlandSync

/// The configured destinations as the senders `DestinationsRun` runs: each destination's
/// keys read into the configuration of its carrier (`Receivers.carrier`: an HTTP receiver
/// through `HTTPDestination`, a broker through `MQTTDestinationSender`). The one place a
/// destination's settings become what the sync sends with.
struct DestinationSenders {
    let settings: Settings
    /// The active trip's `trip` object, sent with every HTTP request; nil without a trip.
    let trip: [UInt8]?
    /// `--max-time`.
    var maxTime: Double?
    /// `--watch`: MQTT connections stay open and listen for commands.
    var keepOpen = false
    /// Shows each delivered request (one destination on a terminal).
    var onProgress: (@Sendable (SyncProgress) -> Void)?
    /// A server's `set` from the default destination, with its token (to hide in messages).
    var onSet: (@Sendable (JSONValue, String?) -> Void)?

    /// The senders with the trip object `trip` (nil: none).
    init(settings: Settings, trip: [UInt8]?) {
        self.settings = settings
        self.trip = trip
    }

    /// The senders for `journal`: the active trip, if any, is read from it.
    init(settings: Settings, journal: Journal) throws {
        self.settings = settings
        trip = try Trip.active(in: journal).map { trip in
            let summary = try TripSummary.compute(for: trip, through: Journal.currentTime(), in: journal)
            return TripProgress(mode: trip.mode, start: trip.start, distance: summary.distance,
                                startLocation: summary.startLocation, currentLocation: summary.latestLocation).json()
        }
    }

    /// One sender per destination, in order.
    func senders(for destinations: [Destination]) -> [any DestinationSender] {
        destinations.map(sender)
    }

    /// The sender of `destination`'s carrier, or its refusal.
    func sender(for destination: Destination) -> any DestinationSender {
        let name = CursorName(destination.name) ?? .default
        // What `overland destination set` refuses, the sync refuses in the same words.
        if let problem = destination.problems(settings: settings).first { return RefusedDestination(name: name, problem: problem) }
        switch Receivers.carrier(of: destination.wireProtocol, url: destination.url) {
        case .mqttBroker:
            var sender = MQTTDestinationSender(name: name, destination: mqtt(destination))
            sender.keepOpen = keepOpen
            sender.timing = SyncTiming(wallClock: SyncClock.now)
            return sender
        case .http, nil:
            var sender = HTTPDestination(name: name, configuration: http(destination), timing: SyncTiming(wallClock: SyncClock.now))
            sender.onProgress = onProgress
            // A server's `set` changes the settings file: only the default destination's
            // server (the one the settings name) may.
            if destination.isDefault, let onSet {
                let token = destination.token
                sender.onSet = { onSet($0, token) }
            }
            return sender
        }
    }

    /// What an HTTP destination is sent with.
    func http(_ destination: Destination) -> SyncConfiguration {
        var configuration = SyncConfiguration(endpoint: destination.url, token: destination.token,
                                              deviceID: destination.sentDeviceID(settings: settings))
        configuration.wireProtocol = destination.wireProtocol
        // The default destination follows the trip profile while a trip runs.
        let profile = destination.isDefault ? settings.profile(duringTrip: trip != nil) : nil
        configuration.batchSize = profile?.batchSize.count ?? destination.batchSize.count
        configuration.loggingMode = profile?.loggingMode ?? destination.loggingMode
        configuration.consider2xxSuccessful = destination.consider2xxSuccessful
        configuration.profile = destination.profile
        configuration.sendIntervalSeconds = destination.sendInterval.seconds
        configuration.caFile = destination.caFile
        configuration.maxTime = maxTime
        configuration.userAgent = "overland-sync/\(OverlandVersion.current)"
        // Retention runs once for every destination, after the run (DestinationsRun).
        configuration.keepSentSeconds = nil
        configuration.trip = trip
        return configuration
    }

    /// What an MQTT destination is sent with.
    func mqtt(_ destination: Destination) -> MQTTDestination {
        var mqtt = MQTTDestination(name: destination.name, url: destination.url,
                                   deviceID: destination.sentDeviceID(settings: settings))
        mqtt.token = destination.token
        mqtt.username = destination.username
        mqtt.topic = destination.topic
        mqtt.discovery = destination.discovery
        mqtt.keepAlive = destination.keepalive
        mqtt.protocolVersion = destination.protocolVersion == .v5 ? .v5 : .v311
        mqtt.caFile = destination.caFile
        mqtt.loggingMode = destination.loggingMode
        mqtt.sendIntervalSeconds = destination.sendInterval.seconds
        mqtt.pubRetain = destination.pubRetain
        mqtt.commands = destination.commands
        mqtt.resendRate = destination.resendRate
        mqtt.maxTime = maxTime
        // A test hook, for the tests only (README, Tests): a broker that never answers is
        // waited on this long, so that a test sees what happens meanwhile without racing
        // the 10 s default.
        if let seconds = Paths.environment("OVERLAND_TEST_MQTT_CONNECT_TIMEOUT").flatMap(Double.init), seconds > 0, seconds <= 86_400 {
            mqtt.connectTimeout = seconds
        }
        return mqtt
    }
}
