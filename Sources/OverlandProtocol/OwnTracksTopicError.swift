/// Why a text is not a topic this project publishes to.
public enum OwnTracksTopicError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The topic is empty.
    case empty
    /// Longer than `OwnTracksTopic.maximumBytes` bytes of UTF-8 (MQTT allows 65,535; no
    /// broker setup needs more than a few dozen).
    case tooLong(bytes: Int, limit: Int)
    /// A `+` or `#`: wildcards belong in subscriptions, never in a publish topic.
    case wildcard(Character)
    /// Two slashes in a row, or a slash at either end: an empty level.
    case emptyLevel
    /// A NUL or another control character, which MQTT forbids or brokers refuse.
    case controlCharacter(UInt32)
    /// A Unicode noncharacter (U+FDD0...U+FDEF, U+xFFFE, U+xFFFF), which MQTT says a
    /// topic should not hold and brokers may refuse.
    case noncharacter(UInt32)
    /// A leading `$`: such topics are the broker's own (`$SYS/...`).
    case reserved

    /// One lower-case line naming the problem and what is allowed.
    public var description: String {
        let rule = "a topic is 1 to \(OwnTracksTopic.maximumBytes) bytes of levels separated by '/', without '+', '#', empty levels, control characters, noncharacters or a leading '$'"
        switch self {
        case .empty:
            return "invalid topic: empty (\(rule))"
        case .tooLong(let bytes, let limit):
            return "invalid topic: \(bytes) bytes, more than \(limit) (\(rule))"
        case .wildcard(let character):
            return "invalid topic: wildcard '\(character)' (\(rule))"
        case .emptyLevel:
            return "invalid topic: empty level ('//' or '/' at either end) (\(rule))"
        case .controlCharacter(let value):
            return "invalid topic: control character \(Self.codePoint(value)) (\(rule))"
        case .noncharacter(let value):
            return "invalid topic: unicode noncharacter \(Self.codePoint(value)) (\(rule))"
        case .reserved:
            return "invalid topic: a leading '$' names the broker's own topics (\(rule))"
        }
    }

    /// `U+001B`.
    static func codePoint(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
