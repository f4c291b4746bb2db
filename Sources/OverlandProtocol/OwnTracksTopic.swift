/// The MQTT topic a device publishes its OwnTracks messages to, and the topics derived
/// from it as the OwnTracks apps derive them (booklet, "JSON", Topics):
///
/// - `TOPIC` itself: `location` messages, and the `lwt` the broker publishes when the
///   device disappears;
/// - `TOPIC/event`: `transition` messages (enter/leave);
/// - `TOPIC/cmd`: commands to the device (`reportLocation`, `setConfiguration`);
/// - `TOPIC/waypoint` and `TOPIC/waypoints`: one region, and the list of regions;
/// - `TOPIC/info`: the `card` (name and face) others show for the device.
///
/// A topic is validated once, here: UTF-8 (a Swift string always is), 1 to
/// `maximumBytes` bytes, no `+` or `#`, no empty level, no control character (NUL among
/// them), no Unicode noncharacter and no leading `$` (MQTT 3.1.1 sections 1.5.3 and 4.7).
public struct OwnTracksTopic: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The most UTF-8 bytes accepted. MQTT allows 65,535; a longer topic than this is a
    /// mistake (a pasted URL, a file), and brokers' ACL patterns never need it.
    public static let maximumBytes = 256
    /// The first level of the default topic, as the apps write it.
    public static let prefix = "owntracks"

    /// The topic, as validated.
    public let value: String

    /// `text` as a topic, or the reason it cannot be one.
    public init(validating text: String) throws(OwnTracksTopicError) {
        let count = text.utf8.count
        guard count > 0 else { throw .empty }
        guard count <= Self.maximumBytes else { throw .tooLong(bytes: count, limit: Self.maximumBytes) }
        guard text.first != "$" else { throw .reserved }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "+", "#": throw .wildcard(Character(scalar))
            default:
                let value = scalar.value
                if value < 0x20 || (0x7F...0x9F).contains(value) { throw .controlCharacter(value) }
                if (0xFDD0...0xFDEF).contains(value) || value & 0xFFFE == 0xFFFE { throw .noncharacter(value) }
            }
        }
        guard text.first != "/", text.last != "/", !text.contains("//") else { throw .emptyLevel }
        value = text
    }

    /// The default topic, `owntracks/USER/DEVICE`, for a device id as the HTTP
    /// `owntracks` mode reads it (`OwnTracksIdentity`): `user/device`, or a bare device
    /// name whose user is `username` (the destination's MQTT user name).
    ///
    /// Each level is lower-cased and keeps only letters, digits, `-`, `_` and `.`, as
    /// the Android app builds its default device id (a level left empty becomes `user`
    /// or `device`, the apps' placeholders). Home Assistant's OwnTracks integration and
    /// the Recorder read the second and third levels as user and device.
    public init(deviceID: String, username: String?) {
        let identity = OwnTracksIdentity(deviceID: deviceID, fallbackUser: username)
        let user = Self.level(identity.user ?? "", placeholder: "user")
        let device = Self.level(identity.device ?? "", placeholder: "device")
        value = Self.prefix + "/" + user + "/" + device
    }

    /// `TOPIC/cmd`: where the device listens for commands.
    public var command: String { value + "/cmd" }
    /// `TOPIC/event`: where `transition` messages go.
    public var event: String { value + "/event" }
    /// `TOPIC/waypoint`: one region created on the device.
    public var waypoint: String { value + "/waypoint" }
    /// `TOPIC/waypoints`: the list of the device's regions.
    public var waypoints: String { value + "/waypoints" }
    /// `TOPIC/info`: the device's card.
    public var info: String { value + "/info" }

    public var description: String { value }

    /// One topic level made safe: lower case, letters, digits, `-`, `_`, `.` only;
    /// at most 100 bytes, so that the default topic stays within `maximumBytes`.
    static func level(_ text: String, placeholder: String) -> String {
        var result = ""
        var bytes = 0
        for character in text.lowercased() where character.isLetter || character.isNumber || "-_.".contains(character) {
            // Only single-scalar characters: a combining sequence could hide a control.
            guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first,
                  scalar.value >= 0x20, !(0x7F...0x9F).contains(scalar.value) else { continue }
            bytes += character.utf8.count
            if bytes > 100 { break }
            result.append(character)
        }
        return result.isEmpty || result.allSatisfy({ $0 == "." }) ? placeholder : result
    }
}
