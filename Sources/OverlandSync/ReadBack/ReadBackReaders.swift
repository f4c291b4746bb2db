import OverlandProtocol

/// The reader for a destination: chosen by its protocol and profile (`ReadBackSupport`
/// says which can be read), asking at the origin of its url or at `verify_url`, with
/// `verify_token` or else its token.
public enum ReadBackReaders {
    /// The reader for `configuration`, or why there is none (a configuration problem).
    /// `verifyURL` is the read API's base (`scheme://host[:port][/prefix]`): the reader
    /// adds its own path.
    public static func reader(for configuration: SyncConfiguration, verifyURL: String?,
                              verifyToken: String?) throws(ReadBackError) -> any ReadBackReader {
        if let problem = ReadBackSupport.problem(protocol: configuration.wireProtocol, profile: configuration.profile,
                                                 loggingMode: configuration.loggingMode) {
            throw ReadBackError(problem)
        }
        let base = verifyURL.map { String($0.reversed().drop { $0 == "/" }.reversed()) } ?? ReadBackHTTP.origin(of: configuration.endpoint)
        let readToken = verifyToken.flatMap { $0.isEmpty ? nil : $0 }
        if configuration.wireProtocol == .traccar {
            guard let readToken else {
                throw ReadBackError("Traccar is read with a Traccar user's credentials: set verify_token to USER:PASSWORD (--token-stdin)")
            }
            return TraccarReader(origin: base, uniqueID: configuration.deviceID, token: readToken)
        }
        switch configuration.profile {
        case .owntracksRecorder:
            let identity = recorderIdentity(configuration)
            return RecorderReader(url: base + RecorderReader.path, user: identity.user ?? "", device: identity.device ?? "",
                                  token: readToken ?? configuration.effectiveToken)
        case .dawarich:
            guard let key = readToken ?? configuration.effectiveToken else {
                throw ReadBackError("Dawarich is read with its api key: set token (or verify_token)")
            }
            return DawarichReader(url: base + DawarichReader.path, apiKey: key)
        case .homeAssistant:
            guard let readToken else {
                throw ReadBackError("Home Assistant is read with a long-lived access token: set verify_token (--token-stdin)")
            }
            let identity = recorderIdentity(configuration)
            return HomeAssistantReader(origin: base, user: identity.user ?? "", device: identity.device ?? "", token: readToken)
        default:
            guard let readToken else {
                throw ReadBackError("Compass is read with the database's read token: set verify_token (--token-stdin)")
            }
            return CompassReader(origin: base, readToken: readToken)
        }
    }

    /// Home Assistant's MQTT tracker made from a discovery config: its object id (the
    /// entity id while free) and its device's identifier (how the entity is found).
    public struct Discovery: Sendable {
        public var objectID: String
        public var identifier: String

        public init(objectID: String, identifier: String) {
            self.objectID = objectID
            self.identifier = identifier
        }
    }

    /// The reader for an mqtt destination publishing on `topic`: what its broker feeds, at
    /// `verifyURL` (required: a broker url says nothing of it). With `discovery`, Home
    /// Assistant's history of the tracker the config made, read with `verifyToken`;
    /// without, the OwnTracks Recorder's API for the user and device of the topic, as the
    /// Recorder files them.
    public static func reader(forBrokerTopic topic: String, discovery: Discovery?, verifyURL: String?,
                              verifyToken: String?) throws(ReadBackError) -> any ReadBackReader {
        guard let verifyURL else {
            throw ReadBackError(ReadBackSupport.problem(protocol: .mqtt, profile: .none) ?? "set verify_url")
        }
        let base = String(verifyURL.reversed().drop { $0 == "/" }.reversed())
        let readToken = verifyToken.flatMap { $0.isEmpty ? nil : $0 }
        if let discovery {
            guard let readToken else {
                throw ReadBackError("Home Assistant is read with a long-lived access token: set verify_token (--token-stdin)")
            }
            return HomeAssistantReader(origin: base, entityID: "device_tracker." + discovery.objectID,
                                       tracker: HomeAssistantReader.Tracker(integration: "mqtt", identifier: discovery.identifier),
                                       token: readToken)
        }
        guard let filed = recorderUserAndDevice(topic: topic) else {
            throw ReadBackError("the OwnTracks Recorder files a message under its topic's second and third level "
                                + "(owntracks/USER/DEVICE): the topic '\(topic)' has fewer than three")
        }
        return RecorderReader(url: base + RecorderReader.path, user: filed.user, device: filed.device, token: readToken)
    }

    /// The user and device the OwnTracks Recorder files a message on `topic` under: its
    /// second and third level, after a leading `/` (recorder.c, `on_message`).
    static func recorderUserAndDevice(topic: String) -> (user: String, device: String)? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false).drop { $0.isEmpty }.map(String.init)
        guard levels.count >= 3 else { return nil }
        return (levels[1], levels[2])
    }

    /// The user and device the OwnTracks receiver files points under: as the OwnTracks
    /// receiver names them when it sends (`OwnTracksReceiver`: the Basic user completes a
    /// device id without `/`, and the profile completes the rest).
    static func recorderIdentity(_ configuration: SyncConfiguration) -> OwnTracksIdentity {
        let user = configuration.effectiveToken.map { OwnTracksCredentials(token: $0).user }
        return configuration.profile.ownTracksIdentity(OwnTracksIdentity(deviceID: configuration.deviceID, fallbackUser: user))
    }
}
