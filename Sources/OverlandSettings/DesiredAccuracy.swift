/// How accurate the positions should be (Core Location's `desiredAccuracy` in the phone app).
public enum DesiredAccuracy: String, SettingChoice {
    /// Best for navigation: the best the receiver can do, all the time.
    case nav = "nav"
    /// The best the receiver can do.
    case best = "best"
    case tenMetres = "10m"
    case hundredMetres = "100m"
    case oneKilometre = "1km"
    case threeKilometres = "3km"

    /// The accuracy in metres.
    ///
    /// `nav` and `best` name no distance in the phone app (Core Location's negative
    /// constants); here they stand for 1 m and 5 m, below or at what a consumer GNSS
    /// receiver reports at its best, so that the values stay ordered
    /// (nav < best < 10m < ...) and can be written where metres are expected, such as
    /// the `desired_accuracy` tracking stat.
    public var metres: Double {
        switch self {
        case .nav: 1
        case .best: 5
        case .tenMetres: 10
        case .hundredMetres: 100
        case .oneKilometre: 1000
        case .threeKilometres: 3000
        }
    }
}
