/// What the device is used for (Core Location's `activityType` in the phone app).
public enum ActivityType: String, SettingChoice {
    case other, car, fitness, nav, air

    /// The spelling of the `activity` tracking stat in a location Feature.
    public var trackingStatsName: String {
        switch self {
        case .other: "other"
        case .car: "automotive_navigation"
        case .fitness: "fitness"
        case .nav: "other_navigation"
        case .air: "airborne"
        }
    }
}
