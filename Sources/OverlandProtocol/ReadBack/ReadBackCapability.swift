/// Whether and how a receiver can be read back (`verify true`), declared on its line: a
/// profile's in `ReceiverProfile.all`, a protocol's in `Receivers.table`.
/// `ReadBackSupport` combines a destination's two lines into the one answer the settings,
/// the sync, `destination audit` and `destination resend` use.
public enum ReadBackCapability: Sendable {
    /// Read through its read API, by the reader `ReadBackAPI` makes.
    case reader(ReadBackAPI)
    /// It has no read API: why, in one line.
    case unreadable(String)
    /// Nothing of its own: a profile that changes nothing leaves it to the protocol, a
    /// protocol that many receivers speak leaves it to the profile.
    case deferred

    /// Read through `make` (a reader's `reader(for:)`: who it asks and how it names the
    /// device, from the destination's keys). `needsVerifyURL`: why the read API's address
    /// must be set (`verify_url`) when the destination's url cannot give it.
    public static func reads(_ make: @escaping @Sendable (ReadBackTarget) throws(ReadBackError) -> any ReadBackReader,
                              needsVerifyURL: String? = nil) -> ReadBackCapability {
        .reader(ReadBackAPI(make: make, needsVerifyURL: needsVerifyURL))
    }

    /// The read API, when there is one.
    public var api: ReadBackAPI? {
        if case .reader(let api) = self { return api }
        return nil
    }
}

/// A receiver's read API: the reader it is read with.
public struct ReadBackAPI: Sendable {
    let make: @Sendable (ReadBackTarget) throws(ReadBackError) -> any ReadBackReader
    /// Why `verify_url` must be set, or nil when the destination's url gives the read API's origin.
    public let needsVerifyURL: String?

    /// The reader of `target`'s store, or why there is none (a credential to set).
    public func reader(for target: ReadBackTarget) throws(ReadBackError) -> any ReadBackReader {
        try make(target)
    }
}

/// Who a reader asks, and with what, from a destination's keys (OverlandSync's
/// `ReadBackReaders`).
public struct ReadBackTarget: Sendable, Equatable {
    /// The read API's base, `scheme://host[:port][/prefix]` without a trailing `/`:
    /// `verify_url`, or the origin of the destination's url. The reader adds its path.
    public var base: String
    /// `verify_token`; nil when unset or empty.
    public var readToken: String?
    /// The destination's token; nil when unset or empty.
    public var token: String?
    /// The device id as sent.
    public var deviceID: String
    public var profile: ReceiverProfile
    /// A broker's destination: the topic it publishes on and its discovery; nil for an
    /// HTTP receiver.
    public var broker: Broker?

    /// The target at `verifyURL`, else at the origin of `endpoint` (the destination's url).
    public init(verifyURL: String?, endpoint: String, readToken: String?, token: String?, deviceID: String,
                profile: ReceiverProfile = .none, broker: Broker? = nil) {
        self.base = verifyURL.map { String($0.reversed().drop { $0 == "/" }.reversed()) } ?? ReadBackHTTP.origin(of: endpoint)
        self.readToken = readToken.flatMap { $0.isEmpty ? nil : $0 }
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        self.deviceID = deviceID
        self.profile = profile
        self.broker = broker
    }

    /// What a broker's destination publishes: its device's topic, and the tracker Home
    /// Assistant's MQTT discovery makes of it when the destination publishes discovery.
    public struct Broker: Sendable, Equatable {
        public var topic: String
        public var discovery: Discovery?

        public init(topic: String, discovery: Discovery?) {
            self.topic = topic
            self.discovery = discovery
        }
    }

    /// Home Assistant's MQTT tracker made from a discovery config: its object id (the
    /// entity id while free) and its device's identifier (how the entity is found).
    public struct Discovery: Sendable, Equatable {
        public var objectID: String
        public var identifier: String

        public init(objectID: String, identifier: String) {
            self.objectID = objectID
            self.identifier = identifier
        }
    }

    /// The user and device an OwnTracks receiver files points under: as the OwnTracks
    /// receiver names them when it sends (`OwnTracksReceiver`: the Basic user completes a
    /// device id without `/`, and the profile completes the rest).
    public var ownTracksIdentity: OwnTracksIdentity {
        let user = token.map { OwnTracksCredentials(token: $0).user }
        return profile.ownTracksIdentity(OwnTracksIdentity(deviceID: deviceID, fallbackUser: user))
    }
}
