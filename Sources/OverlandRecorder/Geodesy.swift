#if canImport(Glibc)
import Glibc
#endif

/// Distances on the WGS84 mean sphere, good to about 0.5 % (enough for filters and trip
/// distance, where GPS noise is larger).
public enum Geodesy {
    /// Mean Earth radius, metres.
    public static let earthRadius = 6_371_008.8

    /// Great-circle distance in metres between two positions in degrees (haversine).
    public static func distance(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double {
        let phi1 = latitude1 * .pi / 180
        let phi2 = latitude2 * .pi / 180
        let deltaPhi = (latitude2 - latitude1) * .pi / 180
        let deltaLambda = (longitude2 - longitude1) * .pi / 180
        let a = sin(deltaPhi / 2) * sin(deltaPhi / 2) + cos(phi1) * cos(phi2) * sin(deltaLambda / 2) * sin(deltaLambda / 2)
        return 2 * earthRadius * asin(min(1, a.squareRoot()))
    }
}
