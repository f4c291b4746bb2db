import OverlandProtocol

/// How a client connects: the broker, who it is, TLS, and its deadlines.
public struct MQTTClientOptions: Sendable, Equatable {
    /// The MQTT protocol versions this client speaks.
    public enum ProtocolVersion: String, Sendable, CaseIterable {
        case v311 = "3.1.1"
        case v5 = "5"
    }

    /// A message the broker publishes for the client when it disappears without a
    /// DISCONNECT (its last will): OwnTracks' `lwt` on the device topic.
    public struct Will: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        public var retain: Bool
        public init(topic: String, payload: [UInt8], retain: Bool = false) {
            self.topic = topic
            self.payload = payload
            self.retain = retain
        }
    }

    public var broker: MQTTBrokerURL
    public var clientID: String
    /// The user name; nil for an anonymous connection.
    public var username: String?
    /// The password (the destination's token); only sent with a user name.
    public var password: String?
    /// Seconds between PINGREQs when idle; the broker drops a client silent for 1.5 times this.
    public var keepAlive = 60
    public var protocolVersion = ProtocolVersion.v311
    /// A PEM file of certificate authorities to trust instead of the system's.
    public var caFile: String?
    public var will: Will?
    /// Seconds to resolve, connect, finish TLS and receive the CONNACK.
    public var connectTimeout: Double = 10
    /// Seconds a publish may wait for its PUBACK (and a subscribe for its SUBACK).
    public var requestTimeout: Double = 60
    /// QoS 1 publishes without a PUBACK yet, at most.
    public var inFlightWindow = Self.defaultInFlightWindow
    public static let defaultInFlightWindow = 100
    /// MQTT's clean session (3.1.1) or clean start (5). False: a persistent session,
    /// whose subscriptions the broker keeps and whose QoS 1 messages it queues while the
    /// client is away (the client id must be stable: it is, `MQTTClientID`).
    public var cleanSession = true
    /// The topics this client subscribes to: messages on them are kept from the CONNACK on
    /// (a persistent session's queued messages may come before the SUBACK); messages on
    /// any other topic are passed over.
    public var topics: Set<String> = []
    /// The largest packet taken from the broker, fixed header included: a command is at
    /// most 64 KiB (`OwnTracksCommand`), nothing else a broker sends this client comes
    /// near. Larger publishes are dropped unread (`MQTTFrameDecoder`); MQTT 5 brokers are
    /// told (the CONNECT's Maximum Packet Size) and drop them themselves.
    public var maximumPacketSize = 128 * 1024

    public init(broker: MQTTBrokerURL, clientID: String) {
        self.broker = broker
        self.clientID = clientID
    }
}
