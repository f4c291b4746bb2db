/// The main profile: the shared `Profile` plus the keys only it has.
///
/// Profile members are reachable directly (`settings.main.loggingMode`).
@dynamicMemberLookup
public struct MainProfile: Sendable, Equatable {
    /// The settings a trip would override.
    public var profile = Profile(backgroundIndicator: false)
    /// Which location service runs; default standard.
    public var trackingMode: TrackingMode = .standard
    /// Whether visits (arrival, departure) are recorded; default off.
    public var visitTracking = false
    /// Whether tracking pauses by itself when the device stops; default off.
    public var pauseAutomatically = false
    /// The radius whose exit resumes a paused tracking; default off.
    public var resumeWithGeofence: ResumeWithGeofence = .off

    /// Creates a main profile with the phone app's defaults.
    public init() {}

    /// A member of the shared profile.
    public subscript<Value>(dynamicMember path: WritableKeyPath<Profile, Value>) -> Value {
        get { profile[keyPath: path] }
        set { profile[keyPath: path] = newValue }
    }
}
