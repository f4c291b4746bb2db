/// One location point as the Overland protocol carries it: a GeoJSON Feature with a Point
/// geometry and the properties listed in the protocol reference, section 1.
///
/// Values that are not known use the protocol's markers: -1 for speed, course and the
/// accuracies, `[]` for motion, `.unknown` for the battery state.
public struct LocationFeature: Sendable, Equatable {
    /// Degrees east, -180...180; written with 7 decimals at most.
    public var longitude: Double
    /// Degrees north, -90...90; written with 7 decimals at most.
    public var latitude: Double
    /// When the fix was taken, in whole seconds since 1970-01-01T00:00:00Z.
    public var timestamp: Int64
    /// Metres above mean sea level.
    public var altitude: Int
    /// Metres per second, written with 2 decimals at most; -1 if unknown.
    public var speed: Double
    /// Degrees clockwise from true north; -1 if unknown.
    public var course: Int
    /// Radius of uncertainty of the position, in metres; -1 if unknown.
    public var horizontalAccuracy: Int
    /// Uncertainty of the altitude, in metres; -1 if unknown.
    public var verticalAccuracy: Int

    /// The altitude, nil when the point does not know it: 0 with no vertical accuracy is
    /// how the protocol says "unknown" (a record always holds `altitude`). The one rule for
    /// every output that can leave it out (OwnTracks' `alt`, GPX's `ele`, CSV, status).
    public var knownAltitude: Int? {
        altitude == 0 && verticalAccuracy < 0 ? nil : altitude
    }
    /// Uncertainty of the speed, in metres per second; -1 if unknown.
    public var speedAccuracy: Double
    /// Uncertainty of the course, in degrees; -1 if unknown.
    public var courseAccuracy: Double
    /// The kinds of movement detected; empty if unknown.
    public var motion: [Motion]
    /// The charging state of the battery.
    public var batteryState: BatteryState
    /// The battery charge, 0...1, written with 2 decimals at most.
    public var batteryLevel: Double
    /// The SSID of the connected Wi-Fi network, or "".
    public var wifi: String
    /// The configured device id (see `DeviceID`), or "".
    public var deviceID: String
    /// The device's unique id, sent only when "include unique id" is on.
    public var uniqueID: String?
    /// The start time (ISO 8601) of the active trip, sent only while a trip is active.
    public var tripID: String?
    /// The tracking statistics, sent only while "include tracking stats" is on.
    public var trackingStats: TrackingStats?

    /// Creates a feature; everything past the timestamp defaults to "unknown" (battery
    /// level 0, which Dawarich also reads as unknown).
    public init(
        longitude: Double,
        latitude: Double,
        timestamp: Int64,
        altitude: Int = 0,
        speed: Double = -1,
        course: Int = -1,
        horizontalAccuracy: Int = -1,
        verticalAccuracy: Int = -1,
        speedAccuracy: Double = -1,
        courseAccuracy: Double = -1,
        motion: [Motion] = [],
        batteryState: BatteryState = .unknown,
        batteryLevel: Double = 0,
        wifi: String = "",
        deviceID: String = "",
        uniqueID: String? = nil,
        tripID: String? = nil,
        trackingStats: TrackingStats? = nil
    ) {
        self.longitude = longitude
        self.latitude = latitude
        self.timestamp = timestamp
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speedAccuracy = speedAccuracy
        self.courseAccuracy = courseAccuracy
        self.motion = motion
        self.batteryState = batteryState
        self.batteryLevel = batteryLevel
        self.wifi = wifi
        self.deviceID = deviceID
        self.uniqueID = uniqueID
        self.tripID = tripID
        self.trackingStats = trackingStats
    }
}
