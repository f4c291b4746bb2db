import OverlandJSON

/// A command OwnTracks devices take on `TOPIC/cmd` (https://owntracks.org/booklet/tech/json/,
/// `_type` `cmd`): `{"_type":"cmd","action":"reportLocation"}`, or
/// `{"_type":"cmd","action":"setConfiguration","configuration":{"_type":"configuration",...}}`.
public enum MQTTCommand: Sendable, Equatable {
    case reportLocation
    /// The `configuration` object as sent.
    case setConfiguration(JSONValue)
    /// Another action (`dump`, `waypoints`, `clearWaypoints`...), named.
    case other(String)

    /// Parses a payload; nil when it is not a `cmd` message (at most 64 KiB, depth 16).
    public init?(payload: [UInt8]) {
        guard payload.count <= 64 << 10,
              let value = try? JSONParser.parse(payload, limits: JSONLimits(maxDepth: 16, maxBytes: 64 << 10)),
              let object = value.object,
              object["_type"]?.string == "cmd",
              let action = object["action"]?.string else { return nil }
        switch action {
        case "reportLocation": self = .reportLocation
        case "setConfiguration":
            guard let configuration = object["configuration"], configuration.object != nil else { return nil }
            self = .setConfiguration(configuration)
        default:
            self = .other(String(action.unicodeScalars.prefix(40).filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init)))
        }
    }
}
