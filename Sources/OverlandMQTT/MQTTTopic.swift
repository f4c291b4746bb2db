/// Checks a topic this tool publishes to (MQTT 3.1.1 section 4.7, MQTT 5 section 4.7):
/// no wildcards (`+`, `#`), no empty level (a leading, trailing or doubled `/`), no NUL or
/// control character, not a broker's `$` topic, and short enough that the longest topic
/// derived from it (`TOPIC/event`, `TOPIC/cmd`) fits MQTT's 65,535 bytes.
public enum MQTTTopic {
    /// The longest topic accepted, in UTF-8 bytes (65,535 less room for `/event`).
    public static let maximumBytes = 65_535 - 16

    /// Throws `.configuration` naming what is wrong with `topic`.
    public static func validate(_ topic: String) throws(MQTTError) {
        let shown = String(topic.unicodeScalars.prefix(120).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        guard !topic.isEmpty else { throw .configuration("the topic is empty: set one, e.g. owntracks/USER/DEVICE") }
        guard topic.utf8.count <= maximumBytes else {
            throw .configuration("topic '\(shown)...' is \(topic.utf8.count) bytes long: at most \(maximumBytes)")
        }
        if topic.contains("+") || topic.contains("#") {
            throw .configuration("topic '\(shown)' has a wildcard ('+' or '#'): a topic to publish to names one topic")
        }
        if topic.hasPrefix("$") { throw .configuration("topic '\(shown)' starts with '$', which brokers keep for themselves") }
        if topic.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || ($0.value >= 0x80 && $0.value < 0xA0) }) {
            throw .configuration("topic '\(shown)' has a control character")
        }
        if topic.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            throw .configuration("topic '\(shown)' has an empty level (a leading, trailing or doubled '/')")
        }
    }

    /// OwnTracks' default: `owntracks/USER/DEVICE` from a device id `user/device`; a device
    /// id without `/` is the device, with `user` (the MQTT user name, else "overland") before it.
    public static func ownTracksDefault(deviceID: String, user: String?) -> String {
        if deviceID.contains("/") { return "owntracks/" + deviceID }
        let userPart = user.flatMap { $0.isEmpty ? nil : $0 } ?? "overland"
        return "owntracks/\(userPart)/\(deviceID.isEmpty ? "device" : deviceID)"
    }
}
