#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandProtocol

/// Everything an MQTT destination needs to know, filled by the command line from the
/// destination's settings. A plain value: the sender reads it and never changes it.
public struct MQTTDestination: Sendable, Equatable {
    /// The destination's name (its cursor's name; part of the client id).
    public var name: String
    /// `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`.
    public var url: String
    /// The password. A token `user:password` with no `username` set gives both.
    public var token: String?
    /// The MQTT user name.
    public var username: String?
    /// The device id: the default topic's `USER/DEVICE` and the client id.
    public var deviceID: String
    /// The device topic; nil for OwnTracks' `owntracks/USER/DEVICE`.
    public var topic: String?
    /// Publish Home Assistant MQTT discovery (a `device_tracker` config, retained).
    public var discovery = false
    /// The discovery prefix Home Assistant listens on.
    public var discoveryPrefix = "homeassistant"
    public var keepAlive = 60
    public var protocolVersion = MQTTClientOptions.ProtocolVersion.v311
    public var caFile: String?
    /// What is published: every point in journal order (`all`), or only the newest by
    /// time, retained, as OwnTracks devices publish (`latest`, and `owntracks`, which is
    /// the same over a broker); older waiting points then count as skipped.
    public var loggingMode = LoggingMode.all
    public var connectTimeout: Double = 10
    /// Seconds a publish may wait for its PUBACK.
    public var requestTimeout: Double = 60
    /// Seconds a run may spend publishing before it stops (the points acknowledged so far
    /// are recorded); nil for no limit.
    public var maxTime: Double?
    /// QoS 1 publishes whose position the cursor has not recorded yet, at most: what a
    /// broker lost mid-drain or a kill -9 can cost in duplicates on the next run.
    public var inFlightWindow = MQTTClientOptions.defaultInFlightWindow
    /// The least time between two runs that send, in seconds; nil when sending is off.
    public var sendIntervalSeconds: Int? = 300
    /// Whether `location` messages are published retained (OwnTracks' `pubRetain`, the
    /// apps' default): a subscriber that comes later (Home Assistant after its discovery
    /// config) gets the newest position at once. The `latest` mode always retains.
    public var pubRetain = true
    /// Which commands on `TOPIC/cmd` are obeyed.
    public var commands = RemoteCommands.report
    /// Points a second read-back sends again (`ResendPace`).
    public var resendRate = ResendPace.defaultPerSecond

    public init(name: String, url: String, deviceID: String) {
        self.name = name
        self.url = url
        self.deviceID = deviceID
    }

    /// The user name and password the connection uses.
    public var credentials: (username: String?, password: String?) {
        DestinationRules.brokerCredentials(username: username, token: token)
    }

    /// The device topic: the `topic` setting, or OwnTracks' default.
    public var deviceTopic: String {
        topic ?? MQTTTopic.ownTracksDefault(deviceID: deviceID, user: credentials.username)
    }

    /// Checks what can be checked before connecting: the url, the topic, the credentials,
    /// the CA file, the numbers. Throws `.configuration`.
    public func validate() throws(MQTTError) -> MQTTBrokerURL {
        let broker: MQTTBrokerURL
        do { broker = try MQTTBrokerURL(parsing: url) } catch { throw .configuration(error.description) }
        if let problem = DestinationRules.deviceIDProblem(deviceID, wireProtocol: .mqtt, loggingMode: loggingMode, profile: .none) {
            throw .configuration(problem)
        }
        try MQTTTopic.validate(deviceTopic)
        if discovery { try MQTTTopic.validate(discoveryPrefix) }
        if let problem = DestinationRules.brokerCredentialsProblem(username: username, token: token) { throw .configuration(problem) }
        if let problem = DestinationRules.keepaliveProblem(keepAlive) { throw .configuration(problem) }
        guard (1...1000).contains(inFlightWindow) else { throw .configuration("the in-flight window is from 1 to 1000") }
        guard connectTimeout > 0, requestTimeout > 0 else { throw .configuration("timeouts must be positive") }
        if let maxTime, !(maxTime > 0) { throw .configuration("max time must be positive") }
        if let caFile, let problem = CAFile.problem(caFile) { throw .configuration(problem) }
        return broker
    }

    /// The client's options for this destination (`will`: the lwt on the device topic).
    public func clientOptions(broker: MQTTBrokerURL, will: MQTTClientOptions.Will?) -> MQTTClientOptions {
        var options = MQTTClientOptions(broker: broker, clientID: MQTTClientID.derive(deviceID: deviceID, destination: name))
        let credentials = self.credentials
        options.username = credentials.username
        options.password = credentials.password
        options.keepAlive = keepAlive
        options.protocolVersion = protocolVersion
        options.caFile = caFile
        options.will = will
        options.connectTimeout = connectTimeout
        options.requestTimeout = requestTimeout
        options.inFlightWindow = inFlightWindow
        return options
    }
}
