/// After an automatic pause, resume when the device leaves a circle of this radius.
public enum ResumeWithGeofence: String, SettingChoice {
    case off = "off"
    case hundredMetres = "100m"
    case twoHundredMetres = "200m"
    case fiveHundredMetres = "500m"
    case oneKilometre = "1km"
    case twoKilometres = "2km"

    /// The radius in metres, or nil when off.
    public var metres: Double? {
        switch self {
        case .off: nil
        case .hundredMetres: 100
        case .twoHundredMetres: 200
        case .fiveHundredMetres: 500
        case .oneKilometre: 1000
        case .twoKilometres: 2000
        }
    }
}
