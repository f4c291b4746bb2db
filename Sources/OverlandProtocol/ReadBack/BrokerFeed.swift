/// What an MQTT broker's destination is read back through: the store its broker feeds
/// (docs/receivers.md, "Reading back"), at `verify_url` (a broker url says nothing of it).
/// With discovery, Home Assistant's history of the tracker the config made; without, the
/// OwnTracks Recorder's API for the user and device of the topic, as the Recorder files them.
public enum BrokerFeed {
    /// Why a broker's destination needs `verify_url`.
    public static let needsVerifyURL = "an mqtt destination is read back from what its broker feeds: set verify_url to the "
        + "OwnTracks Recorder's address (or Home Assistant's, with discovery true) first"

    /// The reader of what the broker of `target` feeds (`target.broker`: its topic and discovery).
    public static func reader(for target: ReadBackTarget) throws(ReadBackError) -> any ReadBackReader {
        guard let broker = target.broker else { throw ReadBackError(needsVerifyURL) }
        if let discovery = broker.discovery {
            guard let readToken = target.readToken else { throw HomeAssistantReader.tokenNeeded }
            return HomeAssistantReader(origin: target.base, entityID: "device_tracker." + discovery.objectID,
                                       tracker: HomeAssistantReader.Tracker(integration: "mqtt", identifier: discovery.identifier),
                                       token: readToken)
        }
        guard let filed = recorderUserAndDevice(topic: broker.topic) else {
            throw ReadBackError("the OwnTracks Recorder files a message under its topic's second and third level "
                                + "(owntracks/USER/DEVICE): the topic '\(broker.topic)' has fewer than three")
        }
        return RecorderReader(url: target.base + RecorderReader.path, user: filed.user, device: filed.device, token: target.readToken)
    }

    /// The user and device the OwnTracks Recorder files a message on `topic` under: its
    /// second and third level, after a leading `/` (recorder.c, `on_message`).
    static func recorderUserAndDevice(topic: String) -> (user: String, device: String)? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false).drop { $0.isEmpty }.map(String.init)
        guard levels.count >= 3 else { return nil }
        return (levels[1], levels[2])
    }
}
