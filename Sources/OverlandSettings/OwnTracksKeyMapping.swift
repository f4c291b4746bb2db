import OverlandJSON

/// How one OwnTracks configuration key becomes the JSON value of one of our `main` keys.
struct OwnTracksKeyMapping: Sendable {
    /// Our key, in the `main` section.
    let setting: String
    /// The allowed values, in OwnTracks' terms, for the warning.
    let allowed: String
    /// Our JSON value for the OwnTracks value, or nil when it has none; the field still
    /// judges the result.
    let translate: @Sendable (JSONValue) -> JSONValue?

    static let all: [String: OwnTracksKeyMapping] = [
        "locatorInterval": OwnTracksKeyMapping(
            setting: "min_time", allowed: "whole seconds: 1, 5, 10, 30, 60, 300",
            translate: { value in value.int.map { .number(Double($0)) } }),
        "locatorDisplacement": OwnTracksKeyMapping(
            setting: "min_distance", allowed: "whole metres: 0 (off), 1, 10, 50, 100, 500",
            translate: { value in
                guard let metres = value.int else { return nil }
                return .string(metres == 0 ? "off" : String(metres) + "m")
            }),
        "monitoring": OwnTracksKeyMapping(
            setting: "tracking_mode", allowed: "-1 (quiet), 0 (manual), 1 (significant), 2 (move)",
            translate: { value in
                switch value.int {
                case -1, 0: .string("off")
                case 1: .string("significant")
                case 2: .string("standard")
                default: nil
                }
            }),
        "locatorPriority": OwnTracksKeyMapping(
            setting: "desired_accuracy", allowed: "0 (no power), 1 (low power), 2 (balanced power), 3 (high power)",
            translate: { value in
                switch value.int {
                case 0: .string("3km")
                case 1: .string("1km")
                case 2: .string("100m")
                case 3: .string("best")
                default: nil
                }
            }),
    ]

    /// Keys that name where and as whom the device connects, or hold secrets: OwnTracks'
    /// and this project's.
    static let refused: Set<String> = [
        "mode", "host", "port", "url", "username", "password", "auth", "tls", "ws", "tlsCaCrt", "tlsClientCrt",
        "tlsClientCrtPassword", "clientpkcs", "passphrase", "servercer", "allowinvalidcerts", "deviceId", "clientId",
        "tid", "pubTopicBase", "subTopic", "willTopic", "keepalive", "mqttProtocolLevel", "cleanSession",
        "encryptionKey", "httpHeaders", "sub", "cmd", "remoteConfiguration", "allowRemoteLocation",
        "endpoint", "token", "device_id", "ca_file", "journal",
    ]
}
