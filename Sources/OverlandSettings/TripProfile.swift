/// The trip profile, in force while a trip runs: the shared `Profile` plus the key only it has.
///
/// Profile members are reachable directly (`settings.trip.loggingMode`).
@dynamicMemberLookup
public struct TripProfile: Sendable, Equatable {
    /// The settings that override the main profile's during a trip.
    public var profile = Profile(backgroundIndicator: true)
    /// Whether the screen is kept on during a trip (no effect on Linux; kept for parity); default off.
    public var preventScreenLock = false

    /// Creates a trip profile with the phone app's defaults.
    public init() {}

    /// A member of the shared profile.
    public subscript<Value>(dynamicMember path: WritableKeyPath<Profile, Value>) -> Value {
        get { profile[keyPath: path] }
        set { profile[keyPath: path] = newValue }
    }
}
