/// The least time between two recorded points.
public enum MinTime: String, SettingChoice {
    case oneSecond = "1s"
    case fiveSeconds = "5s"
    case tenSeconds = "10s"
    case thirtySeconds = "30s"
    case oneMinute = "1m"
    case fiveMinutes = "5m"

    /// The time in seconds.
    public var seconds: Int {
        switch self {
        case .oneSecond: 1
        case .fiveSeconds: 5
        case .tenSeconds: 10
        case .thirtySeconds: 30
        case .oneMinute: 60
        case .fiveMinutes: 300
        }
    }
}
