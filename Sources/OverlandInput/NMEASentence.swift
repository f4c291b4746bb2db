/// What one decoded NMEA sentence set: the decoders report only what their sentence
/// states, and ``FixAssembler`` merges the sentences of one reporting cycle into a ``Fix``.
///
/// Units are those of ``Fix``: degrees, metres, metres per second. A member is nil (or
/// zero, for the precision hints) when the sentence does not carry it or the field was empty.
public struct NMEASentence: Sendable, Equatable {
    /// The sentence types this module decodes.
    public enum Kind: Sendable, Equatable, Hashable, CaseIterable {
        /// Recommended minimum data: time, date, position, speed, course, status.
        case rmc
        /// Fix data: time, position, quality, satellites, HDOP, altitude.
        case gga
        /// Multi-constellation fix data: like GGA with a mode letter per constellation.
        case gns
        /// Geographic position: position, time, status.
        case gll
        /// DOPs and satellites used, with the 2D/3D fix type. Carries no time.
        case gsa
        /// Pseudorange error statistics: one-sigma position errors in metres.
        case gst
        /// Course and speed over ground. Carries no time.
        case vtg
        /// Time and date.
        case zda

        /// The kind's position in `allCases`, for tables indexed by kind.
        var index: Int {
            switch self {
            case .rmc: 0
            case .gga: 1
            case .gns: 2
            case .gll: 3
            case .gsa: 4
            case .gst: 5
            case .vtg: 6
            case .zda: 7
            }
        }

        /// Whether sentences of this kind have a UTC time field (GSA and VTG do not).
        public var carriesTime: Bool {
            switch self {
            case .gsa, .vtg: false
            default: true
            }
        }
    }

    /// What a sentence says about the validity of the position it belongs to.
    public enum Validity: Sendable, Equatable, Hashable {
        /// The receiver has a fix (RMC/GLL `A`, GGA quality above 0, a GNS mode letter other
        /// than `N`, GSA fix type 2 or 3).
        case valid
        /// The receiver has no fix (RMC/GLL `V`, mode `N`, GGA quality 0, GSA fix type 1).
        case invalid
    }

    /// The sentence type.
    public var kind: Kind
    /// The two-letter talker id (`GP`, `GN`, `GL`, `GA`, `GB`, `BD`, `GQ`, `GI`, `EC`, ...).
    public var talker: String
    /// Whether the sentence carried a checksum (it was valid, or the sentence would have
    /// been rejected).
    public var isChecksummed: Bool
    /// UTC time of day, if stated.
    public var timeOfDay: TimeOfDay?
    /// UTC date, if stated (RMC, ZDA).
    public var date: CivilDate?
    /// Latitude in degrees, south negative.
    public var latitude: Double?
    /// Longitude in degrees, west negative.
    public var longitude: Double?
    /// Decimal places of the minutes of the position (the fewer of latitude and longitude):
    /// kept for statistics and tests (the assembler keeps the cycle's last position, as gpsd).
    public var positionDecimals: Int
    /// Altitude above mean sea level in metres (GGA, GNS).
    public var altitude: Double?
    /// Geoid separation in metres: ellipsoid height minus mean-sea-level height (GGA, GNS).
    public var geoidSeparation: Double?
    /// Speed over ground in metres per second.
    public var speed: Double?
    /// The step of the last digit of the speed field in metres per second (0.01 km/h is
    /// 0.0028 m/s, 0.01 kn is 0.0051 m/s): of two speeds in one cycle, the assembler keeps
    /// the finer. Zero when there is no speed.
    public var speedResolution: Double
    /// Course over ground in degrees true.
    public var course: Double?
    /// Decimal places of the course field: of two courses in one cycle, the assembler keeps
    /// the finer.
    public var courseDecimals: Int
    /// What the sentence says about the fix: valid, invalid, or nothing.
    public var validity: Validity?
    /// The fix type of a GSA sentence (2D or 3D); nil otherwise or without a fix.
    public var fixMode: FixMode?
    /// The GGA quality, or the fix quality of an RMC, GNS or GLL mode indicator.
    public var quality: FixQuality?
    /// Satellites used: the GGA and GNS count, or the number of PRNs a GSA lists.
    public var satellitesUsed: Int?
    /// Position dilution of precision (GSA).
    public var pdop: Double?
    /// Horizontal dilution of precision (GSA, GGA, GNS).
    public var hdop: Double?
    /// Vertical dilution of precision (GSA).
    public var vdop: Double?
    /// One-sigma latitude error in metres (GST).
    public var latitudeError: Double?
    /// One-sigma longitude error in metres (GST).
    public var longitudeError: Double?
    /// One-sigma altitude error in metres (GST).
    public var altitudeError: Double?

    /// Creates a sentence report of a kind and talker with nothing set.
    public init(kind: Kind, talker: String, isChecksummed: Bool = true) {
        self.kind = kind
        self.talker = talker
        self.isChecksummed = isChecksummed
        self.positionDecimals = 0
        self.speedResolution = 0
        self.courseDecimals = 0
    }
}
