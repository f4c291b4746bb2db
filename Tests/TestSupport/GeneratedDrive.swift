#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A car drive made up for the tests, as NMEA 0183: deterministic, and with the values each
/// sentence states kept beside it, so a test compares what it decodes or logs with them.
///
/// It stands in for a real 98-minute drive that cannot be committed (its licence is GPL) and
/// has the same shape (see docs in Tests/Fixtures/README.md): epochs of GGA, GSA, RMC and VTG
/// in SiRF style (`hhmmss.000`, minutes to 4 decimals, whole metres), CRLF, valid checksums;
/// mostly 1 s apart, some 2 or 3 s, one 4 s and one 7 s gap; starting at walking pace and
/// driving at 5.09 to 111.00 km/h, never stopping, heading west; all on one UTC day.
public struct GeneratedDrive: Sendable {
    /// One epoch: what its four sentences state, and the sentences.
    public struct Epoch: Sendable {
        /// Seconds since 1970 (whole seconds: the sentences say `.000`).
        public var time: Int64
        /// Latitude in ten-thousandths of a minute, north positive (4529.4585 N: 27_294_585).
        public var latitudeUnits: Int64
        /// Longitude in ten-thousandths of a minute, east positive.
        public var longitudeUnits: Int64
        /// Metres above mean sea level, whole.
        public var altitude: Int
        /// Speed over ground in hundredths of a km/h, as VTG states it.
        public var speedCentiKMH: Int
        /// Course over ground in tenths of a degree.
        public var courseTenths: Int
        /// GGA, GSA, RMC, VTG, each with its checksum and CRLF.
        public var text: String

        public var latitude: Double { Double(latitudeUnits) / 600_000 }
        public var longitude: Double { Double(longitudeUnits) / 600_000 }
        /// Metres per second.
        public var speed: Double { Double(speedCentiKMH) / 100 / 3.6 }
        public var course: Double { Double(courseTenths) / 10 }
    }

    /// The drive the tests use: 5,597 epochs from 2020-02-14 18:05:42 UTC.
    public static let standard = GeneratedDrive(epochs: 5597, seed: 0x5EED_2020)

    public let epochs: [Epoch]

    /// The whole drive as one NMEA text.
    public var text: String { epochs.map(\.text).joined() }

    public init(epochs count: Int, seed: UInt64, start: Int64 = 1_581_703_542) {
        var random = DriveRandom(seed: seed)
        let earthRadius = 6_371_008.8
        var time = start
        var latitude = (45 + 29.4585 / 60) * Double.pi / 180
        var longitude = -(77 + 41.7789 / 60) * Double.pi / 180
        var heading = 205.4, headingRate = 0.0
        var speed = 5.09, target = 90.0, legLeft = 40 // km/h; seconds until a new target
        var terrain = 311.0
        var epochs: [Epoch] = []
        epochs.reserveCapacity(count)
        for index in 0..<count {
            if index > 0 {
                // The gap before this epoch: mostly 1 s, as a logger that misses a few.
                let draw = random.uniform()
                var gap: Int64 = draw < 0.947 ? 1 : draw < 0.997 ? 2 : 3
                if index == count / 3 { gap = 7 }
                if index == 2 * count / 3 { gap = 4 }
                for _ in 0..<gap {
                    legLeft -= 1
                    if legLeft <= 0 {
                        // Town, road or highway; now and then a target above the top speed, held at 111.
                        let kind = random.uniform()
                        target = kind < 0.15 ? 20 + 30 * random.uniform() : kind < 0.55 ? 60 + 30 * random.uniform() : 90 + 24 * random.uniform()
                        legLeft = 60 + Int(random.uniform() * 540)
                    }
                    // At most 2 m/s² (7.2 km/h per second) either way.
                    let change = max(-7.2, min(7.2, (target - speed) * 0.2 + random.gauss() * 0.8))
                    speed = max(5.09, min(111.0, speed + change))
                    // Road curvature, tighter when slow, pulled back toward west.
                    headingRate = max(-4, min(4, headingRate * 0.9 + random.gauss() * (speed > 60 ? 0.3 : 1.0)))
                    var toWest = 270 - heading
                    if toWest > 180 { toWest -= 360 } else if toWest < -180 { toWest += 360 }
                    heading += headingRate + toWest * 0.01
                    heading = heading < 0 ? heading + 360 : heading >= 360 ? heading - 360 : heading
                    let metres = speed / 3.6
                    let bearing = heading * Double.pi / 180
                    latitude += metres * cos(bearing) / earthRadius
                    longitude += metres * sin(bearing) / (earthRadius * cos(latitude))
                    terrain = max(282, min(493, terrain + random.gauss() * 1.5))
                }
                time += gap
            }
            let speedCentiKMH = Int((speed * 100).rounded())
            var courseTenths = Int((heading * 10).rounded())
            if courseTenths >= 3600 { courseTenths -= 3600 }
            let latitudeUnits = Int64((latitude * 180 / Double.pi * 600_000).rounded())
            let longitudeUnits = Int64((longitude * 180 / Double.pi * 600_000).rounded())
            let altitude = Int(terrain.rounded())
            let text = Self.sentences(time: time, latitudeUnits: latitudeUnits, longitudeUnits: longitudeUnits,
                                      altitude: altitude, speedCentiKMH: speedCentiKMH, courseTenths: courseTenths)
            epochs.append(Epoch(time: time, latitudeUnits: latitudeUnits, longitudeUnits: longitudeUnits, altitude: altitude,
                                speedCentiKMH: speedCentiKMH, courseTenths: courseTenths, text: text))
        }
        precondition(epochs.isEmpty || (epochs[0].time / 86_400 == time / 86_400), "a generated drive stays on one UTC day")
        self.epochs = epochs
    }

    /// The four sentences of an epoch, as a SiRF receiver writes them.
    public static func sentences(time: Int64, latitudeUnits: Int64, longitudeUnits: Int64, altitude: Int,
                          speedCentiKMH: Int, courseTenths: Int) -> String {
        let second = time % 86_400
        let clock = digits(Int(second / 3600), 2) + digits(Int(second / 60 % 60), 2) + digits(Int(second % 60), 2) + ".000"
        let date = civilDate(days: time / 86_400)
        let ddmmyy = digits(date.day, 2) + digits(date.month, 2) + digits(date.year % 100, 2)
        let latitude = angle(latitudeUnits, degreeDigits: 2) + (latitudeUnits < 0 ? ",S" : ",N")
        let longitude = angle(longitudeUnits, degreeDigits: 3) + (longitudeUnits < 0 ? ",W" : ",E")
        let centiKnots = Int((Double(speedCentiKMH) / 1.852).rounded())
        let knots = "\(centiKnots / 100)." + digits(centiKnots % 100, 2)
        let kmh = "\(speedCentiKMH / 100)." + digits(speedCentiKMH % 100, 2)
        let course = "\(courseTenths / 10).\(courseTenths % 10)"
        return sentence("GPGGA,\(clock),\(latitude),\(longitude),1,08,1.0,\(altitude).0,M,,,,")
            + sentence("GPGSA,A,3,02,05,06,12,13,15,19,25,,,,,1.8,1.0,1.5")
            + sentence("GPRMC,\(clock),A,\(latitude),\(longitude),\(knots),\(course),\(ddmmyy),,,A")
            + sentence("GPVTG,\(course),T,,M,\(knots),N,\(kmh),K,A")
    }

    /// `$BODY*hh` and CRLF.
    public static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0), ^)
        let hex = Array("0123456789ABCDEF")
        return "$" + body + "*" + String(hex[Int(checksum >> 4)]) + String(hex[Int(checksum & 15)]) + "\r\n"
    }

    /// `ddmm.mmmm` or `dddmm.mmmm` from ten-thousandths of a minute (sign dropped).
    public static func angle(_ units: Int64, degreeDigits: Int) -> String {
        let units = abs(units)
        let degrees = Int(units / 600_000), minutes = Int(units % 600_000)
        return digits(degrees, degreeDigits) + digits(minutes / 10_000, 2) + "." + digits(minutes % 10_000, 4)
    }

    public static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// Days since 1970 -> year, month, day (Howard Hinnant's civil_from_days).
    public static func civilDate(days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (Int(yoe + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }
}

/// SplitMix64: the same numbers on every machine for a seed.
public struct DriveRandom {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Standard normal (Box-Muller).
    public mutating func gauss() -> Double {
        let u = max(uniform(), 1e-300), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}
