import OverlandJSON
import OverlandInput
import OverlandProtocol

/// A fix's measurements as a location point carries them (protocol reference, section 1),
/// with the values no receiver can take left out and counted. The rule per field (see
/// docs/input.md, "Values out of range"):
///
/// - `altitude`, `horizontal_accuracy`, `vertical_accuracy`: whole metres, rounded half
///   away from zero, kept while they fit a signed 32-bit integer (what receivers store
///   them in); beyond that the field is left out (altitude 0 with vertical accuracy -1,
///   an accuracy -1). A known accuracy is never 0: below 0.5 m it is 1 (Home Assistant's
///   OwnTracks integration ignores a point of accuracy 0).
/// - `course`: a whole degree, 0...359 (360 is 0).
/// - `speed`, `speed_accuracy`: m/s, kept up to the speed of light (299,792,458 m/s, which
///   keeps OwnTracks' km/h and Traccar's knots within 32 bits); `course_accuracy` in
///   degrees up to the same 32-bit limit as the whole numbers. A known speed or course
///   accuracy is at least 0.01 (the smallest the encoder's 2 decimals write).
///
/// A value that is negative, not finite or beyond its limit is left out (-1, unknown) and
/// counted in `leftOut`; an absent value is just unknown.
struct PointMeasures: Equatable {
    var altitude = 0
    var speed = -1.0
    var course = -1
    var horizontalAccuracy = -1
    var verticalAccuracy = -1
    var speedAccuracy = -1.0
    var courseAccuracy = -1.0
    /// How many values the fix stated that are out of range and were left out.
    var leftOut = 0

    /// The largest whole number kept: a signed 32-bit integer's.
    static let integerLimit = LocationFeature.wholeNumberLimit
    /// The largest speed kept, m/s: nothing a receiver reports moves faster than light.
    static let speedLimit = 299_792_458.0

    init(_ fix: Fix) {
        if let value = fix.altitude {
            if let metres = CheckedInteger.rounded(value, in: -Self.integerLimit...Self.integerLimit) {
                altitude = metres
                verticalAccuracy = accuracy(fix.verticalAccuracy)
            } else {
                leftOut += 1
            }
        }
        if let value = fix.course {
            if value >= 0, let degrees = CheckedInteger.rounded(value, in: 0...Self.integerLimit) {
                course = degrees % 360
            } else {
                leftOut += 1
            }
        }
        horizontalAccuracy = accuracy(fix.horizontalAccuracy)
        // Written with 2 decimals: a known accuracy is at least 0.01, never 0.
        speedAccuracy = measure(fix.speedAccuracy, limit: Self.speedLimit).map { max($0, 0.01) } ?? -1
        courseAccuracy = measure(fix.courseAccuracy, limit: Double(Self.integerLimit)).map { max($0, 0.01) } ?? -1
        speed = measure(fix.speed, limit: Self.speedLimit) ?? -1
    }

    /// An accuracy in whole metres, at least 1; -1 when unknown or left out.
    private mutating func accuracy(_ value: Double?) -> Int {
        guard let value else { return -1 }
        guard let metres = LocationFeature.wholeAccuracy(value) else {
            leftOut += 1
            return -1
        }
        return metres
    }

    /// A measure kept as decoded, within 0...limit; nil when unknown or left out.
    private mutating func measure(_ value: Double?, limit: Double) -> Double? {
        guard let value else { return nil }
        // `value <= limit` is false for NaN too.
        guard value >= 0, value <= limit else {
            leftOut += 1
            return nil
        }
        return value
    }
}
