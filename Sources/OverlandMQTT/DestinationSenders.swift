import OverlandJSON
import OverlandJournal
import OverlandProtocol
import OverlandSettings
import OverlandSync

/// The configured destinations as the senders `DestinationsRun` runs: each destination's
/// keys read into the configuration of its carrier (`Receivers.carrier`: an HTTP receiver
/// through `HTTPDestination`, a broker through `MQTTDestinationSender`). The one place a
/// destination's settings become what the sync sends with (OverlandMQTT sees both carriers).
public struct DestinationSenders: Sendable {
    public let settings: Settings
    /// The active trip's `trip` object, sent with every HTTP request; nil without a trip.
    public let trip: [UInt8]?
    /// The runs' wall clock.
    public let wallClock: @Sendable () -> Int64
    /// The `User-Agent` of HTTP requests.
    public var userAgent = "overland-sync"
    /// `--max-time`.
    public var maxTime: Double?
    /// `--watch`: MQTT connections stay open and listen for commands.
    public var keepOpen = false
    /// Seconds a broker that never answers is waited on, nil for the default (a test hook's).
    public var mqttConnectTimeout: Double?
    /// Shows each delivered request (one destination on a terminal).
    public var onProgress: (@Sendable (SyncProgress) -> Void)?
    /// A server's `set` from the default destination, with its token (to hide in messages).
    public var onSet: (@Sendable (JSONValue, String?) -> Void)?

    /// The senders with the trip object `trip` (nil: none).
    public init(settings: Settings, trip: [UInt8]?, wallClock: @escaping @Sendable () -> Int64) {
        self.settings = settings
        self.trip = trip
        self.wallClock = wallClock
    }

    /// One sender per destination, in order.
    public func senders(for destinations: [Destination]) -> [any DestinationSender] {
        destinations.map(sender)
    }

    /// The sender of `destination`'s carrier, or its refusal.
    public func sender(for destination: Destination) -> any DestinationSender {
        let name = CursorName(destination.name) ?? .default
        // What `overland destination set` refuses, the sync refuses in the same words.
        if let problem = destination.problems(settings: settings).first { return RefusedDestination(name: name, problem: problem) }
        switch Receivers.carrier(of: destination.wireProtocol, url: destination.url) {
        case .mqttBroker:
            var sender = MQTTDestinationSender(name: name, destination: mqtt(destination))
            sender.keepOpen = keepOpen
            sender.timing = SyncTiming(wallClock: wallClock)
            return sender
        case .http, nil:
            var sender = HTTPDestination(name: name, configuration: http(destination), timing: SyncTiming(wallClock: wallClock))
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
    public func http(_ destination: Destination) -> SyncConfiguration {
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
        configuration.userAgent = userAgent
        // Retention runs once for every destination, after the run (DestinationsRun).
        configuration.keepSentSeconds = nil
        configuration.trip = trip
        return configuration
    }

    /// What an MQTT destination is sent with.
    public func mqtt(_ destination: Destination) -> MQTTDestination {
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
        if let mqttConnectTimeout { mqtt.connectTimeout = mqttConnectTimeout }
        return mqtt
    }
}
