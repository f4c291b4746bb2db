import OverlandProtocol

/// The settings that a trip overrides while it runs; `Settings` holds one for normal
/// tracking (inside `MainProfile`) and one for trips (inside `TripProfile`).
public struct Profile: Sendable, Equatable {
    /// How accurate positions should be; default 100m.
    public var desiredAccuracy: DesiredAccuracy = .hundredMetres
    /// What the device is used for; default other.
    public var activityType: ActivityType = .other
    /// What is sent; default all.
    public var loggingMode: LoggingMode = .all
    /// The most points per request; default 200.
    public var batchSize: BatchSize = .twoHundred
    /// The least distance between recorded points; default off.
    public var minDistance: MinDistance = .off
    /// The least time between recorded points; default 1s.
    public var minTime: MinTime = .oneSecond
    /// Whether the app shows that it runs in the background: off normally, on during trips.
    public var backgroundIndicator: Bool

    /// Creates a profile with the phone app's defaults.
    public init(backgroundIndicator: Bool = false) {
        self.backgroundIndicator = backgroundIndicator
    }
}
