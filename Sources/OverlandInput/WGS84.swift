// libm for the trigonometry; Foundation would link Foundation and ICU into every command.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The WGS84 ellipsoid: earth-centred, earth-fixed (ECEF) coordinates to latitude, longitude
/// and height, and ECEF velocities to a ground speed and course, as a receiver reporting in
/// ECEF (u-blox NAV-SOL) needs.
public enum WGS84 {
    /// Semi-major axis in metres.
    public static let semiMajorAxis = 6_378_137.0
    /// Flattening.
    public static let flattening = 1 / 298.257_223_563

    /// Latitude and longitude in degrees and height above the ellipsoid in metres (not above
    /// sea level) of an ECEF position in metres. Bowring's formula: well under a millimetre
    /// from the exact solution anywhere from the ground to orbit.
    public static func geodetic(x: Double, y: Double, z: Double) -> (latitude: Double, longitude: Double, height: Double) {
        let a = semiMajorAxis
        let b = a * (1 - flattening)
        let e2 = flattening * (2 - flattening)
        let ep2 = (a * a - b * b) / (b * b)
        let p = (x * x + y * y).squareRoot()
        let longitude = atan2(y, x)
        let theta = atan2(z * a, p * b)
        let latitude = atan2(z + ep2 * b * pow(sin(theta), 3), p - e2 * a * pow(cos(theta), 3))
        let sinLat = sin(latitude), cosLat = cos(latitude)
        let n = a / (1 - e2 * sinLat * sinLat).squareRoot()
        let height = abs(cosLat) > 1e-6 ? p / cosLat - n : abs(z) / abs(sinLat) - n * (1 - e2)
        return (latitude * 180 / .pi, longitude * 180 / .pi, height)
    }

    /// Ground speed in m/s and course in degrees from true north (0 ..< 360) of an ECEF
    /// velocity in m/s at a latitude and longitude in degrees: its east and north parts.
    public static func groundVelocity(vx: Double, vy: Double, vz: Double, latitude: Double, longitude: Double) -> (speed: Double, course: Double) {
        let phi = latitude * .pi / 180, lambda = longitude * .pi / 180
        let east = -sin(lambda) * vx + cos(lambda) * vy
        let north = -sin(phi) * cos(lambda) * vx - sin(phi) * sin(lambda) * vy + cos(phi) * vz
        var course = atan2(east, north) * 180 / .pi
        if course < 0 { course += 360 }
        return ((east * east + north * north).squareRoot(), course)
    }
}
