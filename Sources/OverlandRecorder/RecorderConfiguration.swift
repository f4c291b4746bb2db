import OverlandJSON
import OverlandProtocol

/// What decides which fixes become points and what the points carry. The commands fill it
/// from the settings (the main profile, or the trip profile while a trip runs).
public struct RecorderConfiguration: Sendable, Equatable {
    /// The phone app's tracking modes, mapped to a GPS stream.
    public enum TrackingMode: String, Sendable {
        /// Nothing is logged.
        case off
        /// Every fix that passes the filters.
        case standard
        /// Only fixes at least `significantChangeMetres` from the last point logged (the
        /// phone's significant-location-change service reports moves of about 500 m).
        case significant
        /// Standard and significant together: every fix that passes the filters.
        case both
    }

    public var trackingMode: TrackingMode = .standard
    /// At least this many seconds between points (the app's min time; default 1 s).
    public var minimumInterval: Int64 = 1
    /// At least this many metres between points (nil: off).
    public var minimumDistance: Double?
    /// Fixes whose horizontal accuracy is worse than this are dropped (nil: no gate).
    /// A fix with unknown accuracy passes: it cannot be judged.
    public var accuracyGate: Double?
    /// Distance that counts as a significant change.
    public var significantChangeMetres: Double = 500
    public var deviceID: String = ""
    public var uniqueID: String?
    /// The active trip's start time, Unix seconds: points of fixes from then on carry its
    /// `trip_id`; older fixes (an old capture imported during the trip) do not.
    public var tripStart: Int64?
    /// Keep one point while the device is still: a fix whose speed is within its speed
    /// accuracy and whose distance from the last point is within its horizontal accuracy
    /// is dropped; the first fix beyond either is logged at once (see ``Recorder``).
    public var stationaryFilter = false
    /// Stop points after 5 minutes in one place; resume on leaving it.
    public var pauseAutomatically = false
    /// Radius whose exit resumes paused updates (nil: 50 m).
    public var resumeRadius: Double?
    /// Write visit records (stays of 3 minutes within 50 m).
    public var visitTracking = false
    /// The tracking stats added to each point, when "include tracking stats" is on; also
    /// turns on action records (paused, resumed).
    public var trackingStats: TrackingStats?
    /// While connected to this network, points report its fixed position.
    public var wifiZone: WifiZone?

    public init() {}

    /// The `trip_id` of a point of a fix at `time`: the active trip's, when the fix falls
    /// inside the trip (at or after its start), else nil.
    public func tripID(at time: Int64) -> String? {
        guard let tripStart, time >= tripStart else { return nil }
        return ISO8601UTC.string(from: tripStart)
    }
}
