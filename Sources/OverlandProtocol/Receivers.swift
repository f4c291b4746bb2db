/// The receivers: the one table a new protocol is added to. Each line names the protocol,
/// says in a few words what it sends (the settings' help is made of these), and how its
/// points travel (`ReceiverKind.Carrier`): an HTTP receiver is made from the destination's
/// options and sent by `SyncEngine`; a broker's points are OverlandMQTT's `MQTTSender`'s.
/// A protocol's line also says whether it is read back by its own read API (Traccar, a
/// broker's feed) or by its profile's (`ReadBackCapability`). Adding a receiver is one file
/// (its `Receiver` and its `WireProtocol` name) and one line here.
public enum Receivers {
    public static let table: [ReceiverKind] = [
        ReceiverKind(.overland, "batches", http: { OverlandReceiver(options: $0) }),
        ReceiverKind(.owntracks, "one location message per request", http: { OwnTracksReceiver(options: $0) }),
        ReceiverKind(.traccar, "osmand json, one position per request", http: { TraccarReceiver(options: $0) },
                     readBack: .reads(TraccarReader.reader(for:))),
        ReceiverKind(.mqtt, "owntracks messages through a broker", carrier: .mqttBroker,
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
    /// Whether and how it is read back: its own reader, or (`deferred`) its profile's.
    public let readBack: ReadBackCapability

    public init(_ wireProtocol: WireProtocol, _ summary: String, carrier: Carrier, readBack: ReadBackCapability = .deferred) {
        self.wireProtocol = wireProtocol
        self.summary = summary
        self.carrier = carrier
        self.readBack = readBack
    }

    public init(_ wireProtocol: WireProtocol, _ summary: String, http make: @escaping @Sendable (ReceiverOptions) -> any Receiver,
                readBack: ReadBackCapability = .deferred) {
        self.init(wireProtocol, summary, carrier: .http(make), readBack: readBack)
    }
}
