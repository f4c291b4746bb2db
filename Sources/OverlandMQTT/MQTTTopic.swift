import OverlandProtocol

/// Topics this tool publishes to, checked by OverlandProtocol's `OwnTracksTopic` (no
/// wildcards, no empty level, no control character, not a broker's `$` topic, at most
/// `OwnTracksTopic.maximumBytes`).
public enum MQTTTopic {
    /// Throws `.configuration` naming what is wrong with `topic`.
    public static func validate(_ topic: String) throws(MQTTError) {
        do {
            _ = try OwnTracksTopic(validating: topic)
        } catch {
            throw .configuration(error.description)
        }
    }

    /// OwnTracks' default, `owntracks/USER/DEVICE` (`OwnTracksTopic(deviceID:username:)`).
    public static func ownTracksDefault(deviceID: String, user: String?) -> String {
        OwnTracksTopic(deviceID: deviceID, username: user).value
    }
}
