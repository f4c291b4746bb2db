/// The charging state of the device's battery, as a Feature's `battery_state` carries it.
public enum BatteryState: String, Sendable, CaseIterable {
    /// The state is not known, or the device has no battery.
    case unknown
    /// Connected to power and charging.
    case charging
    /// Connected to power and fully charged.
    case full
    /// Running on battery.
    case unplugged
}
