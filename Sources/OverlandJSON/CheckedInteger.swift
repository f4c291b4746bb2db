/// The one place a floating-point number becomes an integer: `Int(x)` traps (SIGILL) on a
/// value that is not finite or does not fit, and decoded numbers come from untrusted input
/// (a gpsd report, an NMEA field, a hand-edited journal line). Every conversion of a decoded
/// or computed `Double` to an integer goes through here and gets nil instead of a trap.
///
/// Written with truncating conversions rather than `rounded()`, which calls into libm: this
/// module must link without it.
public enum CheckedInteger {
    /// The largest magnitude converted: 2^62, so that the rounding step (and a caller's
    /// small arithmetic on the result) cannot overflow an `Int`.
    public static let limit = 0x1p62

    /// `value` rounded half away from zero, or nil when it is not finite or its magnitude
    /// is 2^62 or more.
    @inline(__always)
    public static func rounded(_ value: Double) -> Int? {
        guard value > -limit && value < limit else { return nil }
        let truncated = Int(value)
        let fraction = value - Double(truncated)
        if fraction >= 0.5 { return truncated + 1 }
        if fraction <= -0.5 { return truncated - 1 }
        return truncated
    }

    /// `value` rounded toward positive infinity (the ceiling), or nil as for `rounded`.
    @inline(__always)
    public static func roundedUp(_ value: Double) -> Int? {
        guard value > -limit && value < limit else { return nil }
        let truncated = Int(value)
        return Double(truncated) < value ? truncated + 1 : truncated
    }

    /// `value` rounded toward negative infinity (the floor), or nil as for `rounded`.
    @inline(__always)
    public static func roundedDown(_ value: Double) -> Int? {
        guard value > -limit && value < limit else { return nil }
        let truncated = Int(value)
        return Double(truncated) > value ? truncated - 1 : truncated
    }

    /// `value` rounded half away from zero when the result lies in `range`, else nil.
    @inline(__always)
    public static func rounded(_ value: Double, in range: ClosedRange<Int>) -> Int? {
        rounded(value).flatMap { range.contains($0) ? $0 : nil }
    }
}
