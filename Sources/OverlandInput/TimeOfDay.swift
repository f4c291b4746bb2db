/// A UTC time of day as NMEA sentences state it: `hhmmss.sss`, no date.
public struct TimeOfDay: Sendable, Equatable, Hashable, Comparable {
    /// Seconds since midnight, 0 ... 86_400 (86_400 only for a leap second, `23:59:60`).
    public var seconds: Int32
    /// The fraction of the second in nanoseconds, 0 ..< 1_000_000_000.
    public var nanoseconds: Int32

    /// Creates a time of day from hours, minutes, seconds and nanoseconds; nil when out of
    /// range (seconds may be 60 for a leap second).
    public init?(hour: Int, minute: Int, second: Int, nanoseconds: Int32 = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            (0..<1_000_000_000).contains(nanoseconds)
        else { return nil }
        self.seconds = Int32(hour * 3600 + minute * 60 + second)
        self.nanoseconds = nanoseconds
    }

    /// Whether `self` comes before `other` within the same day.
    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }
}
