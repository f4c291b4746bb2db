/// What is sent (protocol reference, section 6): every point in batches, only the newest,
/// or the newest as one OwnTracks location message. Declared once, here: the settings, the
/// HTTP sync and the MQTT sender all take this type, so no value is converted by name.
public enum LoggingMode: String, Sendable, CaseIterable, Hashable {
    /// Every point, oldest first (in batches over HTTP, one message each over MQTT).
    case all
    /// Only the newest point; older waiting points count as handled.
    case latest
    /// Only the newest point, as one OwnTracks location message (over MQTT: as `latest`).
    case owntracks

    /// Whether every point is sent, not only the newest.
    public var sendsEveryPoint: Bool { self == .all }
}
