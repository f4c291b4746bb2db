/// The least distance between two recorded points.
public enum MinDistance: String, SettingChoice {
    case off = "off"
    case oneMetre = "1m"
    case tenMetres = "10m"
    case fiftyMetres = "50m"
    case hundredMetres = "100m"
    case fiveHundredMetres = "500m"

    /// The distance in metres, or nil when off (every point is kept).
    public var metres: Double? {
        switch self {
        case .off: nil
        case .oneMetre: 1
        case .tenMetres: 10
        case .fiftyMetres: 50
        case .hundredMetres: 100
        case .fiveHundredMetres: 500
        }
    }
}
