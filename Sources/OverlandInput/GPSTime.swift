/// GPS time (weeks and milliseconds since 1980-01-06, no leap seconds) to UTC, for receivers
/// that state the time only as GPS time (u-blox NAV-SOL).
public enum GPSTime {
    /// 1980-01-06T00:00:00Z, the start of GPS week 0, in seconds since 1970.
    public static let epoch: Int64 = 315_964_800

    /// GPS time minus UTC, in seconds, from the leap seconds announced so far (IERS
    /// Bulletin C), by the UTC time from which each applies (a leap second itself, 23:59:60,
    /// reads as the second after it). None has been announced after 2017-01-01; a
    /// receiver's own count (NAV-TIMEGPS) wins over this table.
    static let leapSeconds: [(gpsTime: Int64, offset: Int64)] = [(Int64, Int64)]([
        (362_793_600, 1), (394_329_600, 2), (425_865_600, 3), (489_024_000, 4), (567_993_600, 5),
        (631_152_000, 6), (662_688_000, 7), (709_948_800, 8), (741_484_800, 9), (773_020_800, 10),
        (820_454_400, 11), (867_715_200, 12), (915_148_800, 13), (1_136_073_600, 14),
        (1_230_768_000, 15), (1_341_100_800, 16), (1_435_708_800, 17), (1_483_228_800, 18),
    ]).map { (gpsTime: $0.0 + $0.1, offset: $0.1) }

    /// The leap seconds (GPS minus UTC) in force at a GPS time given in seconds since 1970.
    public static func leapSeconds(atGPSTime gpsTime: Int64) -> Int64 {
        leapSeconds.last { $0.gpsTime <= gpsTime }?.offset ?? 0
    }

    /// UTC seconds since 1970 and nanoseconds (0 ..< 1e9) of a GPS week, a time of week in
    /// milliseconds plus a signed fraction in nanoseconds, with `leapSeconds` (GPS minus UTC)
    /// when the receiver states it, else from the table.
    public static func utc(week: Int, milliseconds: UInt32, nanoseconds: Int32, leapSeconds stated: Int? = nil) -> (time: Int64, nanoseconds: Int32) {
        var seconds = epoch + Int64(week) * 604_800 + Int64(milliseconds / 1000)
        var nanos = Int64(milliseconds % 1000) * 1_000_000 + Int64(nanoseconds)
        while nanos < 0 {
            nanos += 1_000_000_000
            seconds -= 1
        }
        while nanos >= 1_000_000_000 {
            nanos -= 1_000_000_000
            seconds += 1
        }
        let offset = stated.map(Int64.init) ?? leapSeconds(atGPSTime: seconds)
        return (seconds - offset, Int32(nanos))
    }
}
