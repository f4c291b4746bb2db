/// One position fix: everything a receiver reported for one reporting cycle, merged.
///
/// Times are UTC, positions WGS84 degrees (south and west negative), altitude metres above
/// mean sea level, speed metres per second, course degrees true. Optional members are nil
/// when the input did not state them; nothing is invented. The accuracy members are
/// estimates; see ``AccuracyModel`` for how NMEA input fills them and
/// ``GPSDReportDecoder`` for gpsd input.
public struct Fix: Sendable, Equatable {
    /// Seconds since 1970-01-01T00:00:00Z, the whole-second part of the fix time.
    public var time: Int64
    /// The fraction of the second of ``time``, in nanoseconds (0 ..< 1_000_000_000).
    public var nanoseconds: Int32
    /// Latitude in degrees, WGS84, south negative.
    public var latitude: Double
    /// Longitude in degrees, WGS84, west negative.
    public var longitude: Double
    /// Altitude above mean sea level in metres, if reported.
    public var altitude: Double?
    /// Speed over ground in metres per second, if reported.
    public var speed: Double?
    /// Course over ground in degrees from true north, if reported.
    public var course: Double?
    /// Whether the fix is two- or three-dimensional.
    public var mode: FixMode
    /// How the receiver obtained the fix (GGA quality, else the NMEA mode indicator), if stated.
    public var quality: FixQuality?
    /// Number of satellites used in the solution, if reported.
    public var satellitesUsed: Int?
    /// Position dilution of precision, if reported.
    public var pdop: Double?
    /// Horizontal dilution of precision, if reported.
    public var hdop: Double?
    /// Vertical dilution of precision, if reported.
    public var vdop: Double?
    /// One-sigma latitude error in metres from GST, if reported.
    public var latitudeError: Double?
    /// One-sigma longitude error in metres from GST, if reported.
    public var longitudeError: Double?
    /// One-sigma altitude error in metres from GST, if reported.
    public var altitudeError: Double?
    /// Estimated horizontal position accuracy in metres; nil when unknown.
    public var horizontalAccuracy: Double?
    /// Estimated vertical (altitude) accuracy in metres; nil when unknown.
    public var verticalAccuracy: Double?
    /// Estimated speed accuracy in metres per second; nil when unknown.
    public var speedAccuracy: Double?
    /// Estimated course accuracy in degrees; nil when unknown.
    public var courseAccuracy: Double?

    /// Creates a fix from its parts; members left out are unknown.
    public init(
        time: Int64,
        nanoseconds: Int32 = 0,
        latitude: Double,
        longitude: Double,
        altitude: Double? = nil,
        speed: Double? = nil,
        course: Double? = nil,
        mode: FixMode,
        quality: FixQuality? = nil,
        satellitesUsed: Int? = nil,
        pdop: Double? = nil,
        hdop: Double? = nil,
        vdop: Double? = nil,
        latitudeError: Double? = nil,
        longitudeError: Double? = nil,
        altitudeError: Double? = nil,
        horizontalAccuracy: Double? = nil,
        verticalAccuracy: Double? = nil,
        speedAccuracy: Double? = nil,
        courseAccuracy: Double? = nil
    ) {
        self.time = time
        self.nanoseconds = nanoseconds
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.mode = mode
        self.quality = quality
        self.satellitesUsed = satellitesUsed
        self.pdop = pdop
        self.hdop = hdop
        self.vdop = vdop
        self.latitudeError = latitudeError
        self.longitudeError = longitudeError
        self.altitudeError = altitudeError
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speedAccuracy = speedAccuracy
        self.courseAccuracy = courseAccuracy
    }
}
