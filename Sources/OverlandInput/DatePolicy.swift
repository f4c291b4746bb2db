/// Where the date of a fix comes from when the stream has not stated one yet.
///
/// A fix needs a date: RMC and ZDA carry one, GGA, GNS, GLL and GST only the time of day.
/// Once the stream has stated a date, cycles without one use it, moved by a day when the
/// time of day wraps past midnight (the nearest of the day before, the same day and the
/// day after). The policy decides only for cycles before the stream's first date.
public enum DatePolicy: Sendable {
    /// Take dates from the stream only: a fix before the first date is dropped and counted
    /// as undated. For files, and receivers that send RMC or ZDA.
    case fromStreamOnly
    /// The date of the first fix, given by the caller; later fixes advance it when the time
    /// of day wraps past midnight. For files of a known day. An impossible date dates nothing.
    case fixed(year: Int, month: Int, day: Int)
    /// For live reading: the date of the clock's UTC now (Unix seconds), choosing among
    /// yesterday, today and tomorrow the time nearest to now; a fix more than ten minutes
    /// from now is dropped as undated, so a point is never written with a guessed date near
    /// midnight or from a wrong clock. Under this policy a stream date more than 512 weeks before the
    /// later of now and the build date is moved forward by 1024 weeks (a receiver with the
    /// GPS week rollover bug; see ``GPSWeekRollover``). Files are not corrected.
    case systemClock(now: @Sendable () -> Int64)

    /// How far a clock-dated fix may be from the clock, in seconds.
    public static let clockTolerance: Int64 = 600
}
