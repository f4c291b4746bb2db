/// Which location service runs: none, continuous, significant changes only, or both.
public enum TrackingMode: String, SettingChoice {
    case off, standard, significant, both

    /// The spelling of the `significant_change` tracking stat, or nil when tracking is off.
    public var significantChangeName: String? {
        switch self {
        case .off: nil
        case .standard: "disabled"
        case .significant: "exclusive"
        case .both: "enabled"
        }
    }
}
