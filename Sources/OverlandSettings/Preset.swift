/// A set of main-profile values chosen together (protocol section 9).
public enum Preset: String, CaseIterable, Sendable {
    /// No pause, no geofence, standard tracking, activity other, best accuracy.
    case highResolution = "high-resolution"
    /// Pause on, 500 m geofence, significant changes only, activity other, 100 m accuracy.
    case batterySaving = "battery-saving"

    /// The preset called `name`, or an error naming the presets.
    public init(named name: String) throws(SettingsError) {
        guard let preset = Preset(rawValue: name) else {
            throw .invalidValue(
                key: "preset", value: quoted(name),
                allowed: Self.allCases.map(\.rawValue).joined(separator: ", "), location: nil)
        }
        self = preset
    }

    /// Applies the preset to the main profile; returns what changed.
    @discardableResult
    public func apply(to settings: inout Settings) -> [SettingChange] {
        let old = settings
        switch self {
        case .highResolution:
            settings.main.pauseAutomatically = false
            settings.main.resumeWithGeofence = .off
            settings.main.trackingMode = .standard
            settings.main.activityType = .other
            settings.main.desiredAccuracy = .best
        case .batterySaving:
            settings.main.pauseAutomatically = true
            settings.main.resumeWithGeofence = .fiveHundredMetres
            settings.main.trackingMode = .significant
            settings.main.activityType = .other
            settings.main.desiredAccuracy = .hundredMetres
        }
        return settings.differences(from: old)
    }
}
