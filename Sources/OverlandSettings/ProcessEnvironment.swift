/// The environment variables this module reads.
public enum ProcessEnvironment {
    /// Every variable that settings depend on: the path variables and the overlay of
    /// `applyEnvironment(_:to:)`.
    public static let names = [
        "OVERLAND_CONFIG", "XDG_CONFIG_HOME", "HOME",
        "OVERLAND_URL", "OVERLAND_TOKEN", "OVERLAND_DEVICE_ID", "OVERLAND_JOURNAL",
    ]

    /// The values of `names` in this process's environment (unset ones absent).
    public static var current: [String: String] {
        var values: [String: String] = [:]
        for name in names {
            if let value = FileIO.environment(name) { values[name] = value }
        }
        return values
    }
}
