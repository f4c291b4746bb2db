import OverlandJSON

extension LocationFeature {
    /// The largest whole number a point carries: a signed 32-bit integer's, what receivers
    /// store altitudes and accuracies in.
    public static let wholeNumberLimit = Int(Int32.max)

    /// An accuracy in whole metres (or degrees, m/s), as the protocol's integer fields and
    /// Wayfinder carry it: rounded half away from zero, and at least 1, since a known
    /// accuracy is never 0 (Home Assistant ignores a location of accuracy 0, and an
    /// estimate of 0.3 m is not a certainty). Nil when negative, not a number, or beyond
    /// ``wholeNumberLimit``: no accuracy a receiver can take.
    public static func wholeAccuracy(_ value: Double) -> Int? {
        guard value >= 0, let whole = CheckedInteger.rounded(value, in: 0...wholeNumberLimit) else { return nil }
        return max(whole, 1)
    }
}
