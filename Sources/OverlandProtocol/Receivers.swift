/// The receivers: the one table a new protocol is added to. Each line names the protocol,
/// says in a few words what it sends (the settings' help is made of these), and how its
/// points travel (`ReceiverKind.Carrier`): an HTTP receiver is made from the destination's
/// options and sent by `SyncEngine`; a broker's points are OverlandMQTT's `MQTTSender`'s.
/// A protocol's line also says how it files a device by the device id sent (`DeviceIDRule`),
/// and whether it is read back by its own read API (Traccar, a broker's feed) or by its
/// profile's (`ReadBackCapability`). Adding a receiver is one file (its `Receiver` and its
/// `WireProtocol` name) and one line here.
public enum Receivers {
    public static let table: [ReceiverKind] = [
        ReceiverKind(.overland, "batches", http: { OverlandReceiver(options: $0) }),
        ReceiverKind(.owntracks, "one location message per request", http: { OwnTracksReceiver(options: $0) },
                     deviceIDs: .ownTracksIdentity),
        ReceiverKind(.traccar, "osmand json, one position per request", http: { TraccarReceiver(options: $0) },
                     deviceIDs: .required("protocol traccar needs a device id: Traccar files positions under the device's identifier (set device_id)"),
                     readBack: .reads(TraccarReader.reader(for:))),
        ReceiverKind(.mqtt, "owntracks messages through a broker", carrier: .mqttBroker, deviceIDs: .ownTracksIdentity,
                     readBack: .reads(BrokerFeed.reader(for:), needsVerifyURL: BrokerFeed.needsVerifyURL)),
    ]

    /// The line of `wireProtocol`, or nil when this build has none.
    public static func kind(of wireProtocol: WireProtocol) -> ReceiverKind? {
        table.first { $0.wireProtocol == wireProtocol }
    }

    /// The receiver for `wireProtocol` with `options`, or nil when this build has none
    /// spoken over HTTP.
    public static func receiver(for wireProtocol: WireProtocol, options: ReceiverOptions) -> (any Receiver)? {
        guard case .http(let make)? = kind(of: wireProtocol)?.carrier else { return nil }
        return make(options)
    }

    /// How a destination of `wireProtocol` at `url` is sent to: an `mqtt://` or `mqtts://`
    /// url through a broker whatever the protocol (the settings' endpoint names no protocol
    /// for one), any other url by its protocol's carrier; nil for an unregistered protocol.
    public static func carrier(of wireProtocol: WireProtocol, url: String) -> ReceiverKind.Carrier? {
        let lower = url.lowercased()
        if lower.hasPrefix("mqtt://") || lower.hasPrefix("mqtts://") { return .mqttBroker }
        return kind(of: wireProtocol)?.carrier
    }

    /// The protocols spoken over HTTP, in the table's order (the settings' `protocol`).
    public static var httpProtocols: [ReceiverKind] {
        table.filter { $0.carrier.isHTTP }
    }
}

/// One line of `Receivers.table`.
public struct ReceiverKind: Sendable {
    /// How a protocol's points travel.
    public enum Carrier: Sendable {
        /// HTTP(S) requests, each encoded by the receiver this makes (`SyncEngine`).
        case http(@Sendable (ReceiverOptions) -> any Receiver)
        /// QoS 1 publishes through an MQTT broker (OverlandMQTT).
        case mqttBroker

        /// Whether the points go as HTTP requests.
        public var isHTTP: Bool {
            if case .http = self { return true }
            return false
        }
    }

    public let wireProtocol: WireProtocol
    /// What it sends, in a few lower-case words: "one location message per request".
    public let summary: String
    public let carrier: Carrier
    /// How it files a device by the device id sent (`DestinationRules.deviceIDProblem`).
    public let deviceIDs: DeviceIDRule
    /// Whether and how it is read back: its own reader, or (`deferred`) its profile's.
    public let readBack: ReadBackCapability

    public init(_ wireProtocol: WireProtocol, _ summary: String, carrier: Carrier, deviceIDs: DeviceIDRule = .any,
                readBack: ReadBackCapability = .deferred) {
        self.wireProtocol = wireProtocol
        self.summary = summary
        self.carrier = carrier
        self.deviceIDs = deviceIDs
        self.readBack = readBack
    }

    public init(_ wireProtocol: WireProtocol, _ summary: String, http make: @escaping @Sendable (ReceiverOptions) -> any Receiver,
                deviceIDs: DeviceIDRule = .any, readBack: ReadBackCapability = .deferred) {
        self.init(wireProtocol, summary, carrier: .http(make), deviceIDs: deviceIDs, readBack: readBack)
    }
}

/// How a receiver files a device by the device id a destination sends: the rule on its
/// line in `Receivers.table`.
public enum DeviceIDRule: Sendable {
    /// Any device id, none too (the Overland protocol carries it in each point).
    case any
    /// OwnTracks' `USER/DEVICE`: a second `/` hides the device (`OwnTracksIdentity.problem`).
    case ownTracksIdentity
    /// A device id, never empty: why, in one line.
    case required(String)

    /// Why `deviceID` cannot name a device so, or nil.
    public func problem(_ deviceID: String) -> String? {
        switch self {
        case .any: nil
        case .ownTracksIdentity: OwnTracksIdentity.problem(deviceID: deviceID)
        case .required(let why): deviceID.isEmpty ? why : nil
        }
    }
}
