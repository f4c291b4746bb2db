#if canImport(Glibc)
import Glibc
#endif

/// Web Mercator (EPSG:3857) in world units: x from 0 to 1 across 360° of longitude, y from
/// 0 (north) to 1 (south) between the projection's latitude limits. Longitudes are unwrapped
/// along a track, so one that crosses the antimeridian continues past x = 1 (or below 0)
/// instead of jumping across the map.
public enum Mercator {
    /// The projection's latitude limit (a square world): beyond it, points are drawn at
    /// the edge and counted.
    public static let maxLatitude = 85.051_128_779_806_59

    public static func x(longitude: Double) -> Double { (longitude + 180) / 360 }

    public static func y(latitude: Double) -> Double {
        let clamped = min(max(latitude, -maxLatitude), maxLatitude) * Double.pi / 180
        return (1 - log(tan(clamped) + 1 / cos(clamped)) / Double.pi) / 2
    }

    public static func latitude(y: Double) -> Double {
        atan(sinh(Double.pi * (1 - 2 * y))) * 180 / Double.pi
    }

    /// `longitude` moved by whole turns to within 180° of `previous` (unwrapped).
    public static func unwrap(_ longitude: Double, after previous: Double?) -> Double {
        guard let previous else { return longitude }
        var delta = (longitude - previous).truncatingRemainder(dividingBy: 360)
        if delta > 180 { delta -= 360 }
        if delta < -180 { delta += 360 }
        return previous + delta
    }
}

/// The view: world units to page pixels, fitted to the data's bounds.
public struct MapView: Sendable, Equatable {
    public let width: Double
    public let height: Double
    /// Pixels per world unit (256 · 2^zoom).
    public let scale: Double
    /// The world coordinates at the view's top-left pixel.
    public let originX: Double
    public let originY: Double

    /// The closest zoom: about 1.2 m a pixel at the equator, so that one point, or all
    /// points in one place, show a street's surroundings rather than an infinite zoom.
    public static let maxScale = 256.0 * 131_072
    public static let margin = 24.0

    /// The view of `bounds` (minX, minY, maxX, maxY in world units), centred, with a margin.
    public static func fit(minX: Double, minY: Double, maxX: Double, maxY: Double, width: Int, height: Int) -> MapView {
        let w = Double(width), h = Double(height)
        let spanX = maxX - minX, spanY = maxY - minY
        var scale = maxScale
        if spanX > 0 { scale = min(scale, (w - 2 * margin) / spanX) }
        if spanY > 0 { scale = min(scale, (h - 2 * margin) / spanY) }
        let centreX = (minX + maxX) / 2, centreY = (minY + maxY) / 2
        return MapView(width: w, height: h, scale: scale, originX: centreX - w / 2 / scale, originY: centreY - h / 2 / scale)
    }

    public func pixel(x: Double, y: Double) -> (x: Double, y: Double) {
        ((x - originX) * scale, (y - originY) * scale)
    }

    /// Metres a pixel at the view's centre latitude (Mercator's scale changes with latitude).
    public var metresPerPixel: Double {
        let latitude = Mercator.latitude(y: originY + height / 2 / scale) * Double.pi / 180
        return 2 * Double.pi * 6_378_137 * cos(latitude) / scale
    }

    /// The scale bar: a round length (1, 2 or 5 · 10^n metres) at most `maxPixels` long.
    public func scaleBar(maxPixels: Double = 120) -> (metres: Double, pixels: Double) {
        let most = metresPerPixel * maxPixels
        var unit = pow(10, floor(log10(most)))
        for step in [5.0, 2.0, 1.0] where step * unit <= most {
            unit *= step
            break
        }
        return (unit, unit / metresPerPixel)
    }
}
