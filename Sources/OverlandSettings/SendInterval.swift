/// How often waiting points are sent to the server.
public enum SendInterval: String, SettingChoice {
    case oneSecond = "1s"
    case fiveSeconds = "5s"
    case tenSeconds = "10s"
    case fifteenSeconds = "15s"
    case thirtySeconds = "30s"
    case oneMinute = "1m"
    case twoMinutes = "2m"
    case fiveMinutes = "5m"
    case tenMinutes = "10m"
    case thirtyMinutes = "30m"
    /// Never send: points stay in the journal. Set by a server, this is a dead end (section 7).
    case off = "off"

    /// The interval in seconds, or nil when sending is off.
    public var seconds: Int? {
        switch self {
        case .oneSecond: 1
        case .fiveSeconds: 5
        case .tenSeconds: 10
        case .fifteenSeconds: 15
        case .thirtySeconds: 30
        case .oneMinute: 60
        case .twoMinutes: 120
        case .fiveMinutes: 300
        case .tenMinutes: 600
        case .thirtyMinutes: 1800
        case .off: nil
        }
    }
}
