/// Keeps one glitched date from latching: drops fixes dated in the future and single fixes
/// whose time jumps away from the stream and back.
///
/// Receivers report impossible dates after a cold start (a valid RMC dated 2079, the
/// firmware's default year) or old ones after a GPS week rollover (see ``GPSWeekRollover``,
/// corrected before this gate). Left in, one such fix makes every later fix "out of order"
/// for the recorder. The gate:
/// - drops a fix dated more than ``futureTolerance`` after the clock (no receiver, and no
///   capture already recorded, can report the future), counted in ``futureFixes``;
/// - holds a fix whose time is more than ``jumpLimit`` away from the last fix passed on,
///   either way, until the next fix decides: if the next fix follows the held one (later, by
///   at most ``jumpLimit``), the stream really moved (a receiver switched on after days, a
///   second capture in one file) and both pass; otherwise the held fix was a glitch and is
///   dropped, counted in ``timeOutliers``. A held fix still alone at the end of the input is
///   dropped as an outlier too: one fix cannot show it is not a glitch.
/// Counted, not fatal: the statistics say what was dropped and why.
public struct FixTimeGate: Sendable {
    /// How far after the clock a fix may be dated: a day, for a clock set a little wrong.
    public static let futureTolerance: Int64 = 86_400
    /// How far a fix may jump from the last before it needs the next fix to confirm it.
    public static let jumpLimit: Int64 = 86_400

    private let now: @Sendable () -> Int64
    private var last: Int64?
    private var held: Fix?
    /// Fixes dropped by the gate.
    public private(set) var futureFixes = 0
    public private(set) var timeOutliers = 0

    /// Creates a gate that reads the UTC clock (Unix seconds) with `now`.
    public init(now: @escaping @Sendable () -> Int64) {
        self.now = now
    }

    /// Passes `fix` on to `fixes`, holds it, or drops it.
    public mutating func admit(_ fix: Fix, into fixes: inout [Fix]) {
        if fix.time > now() + Self.futureTolerance {
            futureFixes += 1
            return
        }
        if let candidate = held {
            held = nil
            if fix.time >= candidate.time && fix.time - candidate.time <= Self.jumpLimit {
                pass(candidate, into: &fixes)
                pass(fix, into: &fixes)
                return
            }
            timeOutliers += 1
        }
        guard let last, abs(fix.time - last) > Self.jumpLimit else {
            pass(fix, into: &fixes)
            return
        }
        held = fix
    }

    /// Whether a fix waits for the next to confirm its time.
    public var isHolding: Bool { held != nil }

    /// Ends the input: a fix still held is dropped as an outlier. The gate then starts afresh.
    public mutating func finish() {
        if held != nil { timeOutliers += 1 }
        held = nil
        last = nil
    }

    private mutating func pass(_ fix: Fix, into fixes: inout [Fix]) {
        last = fix.time
        fixes.append(fix)
    }
}

/// The GPS week rollover: receivers count weeks in 10 bits, so some report dates 1024
/// weeks (19.6 years) early. As gpsd does when it runs (it compares with its start time,
/// and its build date when the clock is unset), live input is corrected: the reference is
/// the later of the system clock and this build's date (a clock before the build date is
/// wrong), and a date more than 512 weeks before it is moved forward by 1024 weeks until
/// it is within 512 weeks, the nearest reading. Files are not corrected, as gpsd does not
/// in its regression replays: a capture from 2005 is from 2005 (gpsd's magellan-ec10.log),
/// and nothing in a file says when it was recorded.
public enum GPSWeekRollover {
    /// The first day of the month this version was built in (2026-11-01T00:00:00Z); bump
    /// it with each release, as gpsd's build writes its own.
    public static let buildDate: Int64 = 1_793_491_200
    /// 1024 weeks in days.
    public static let periodDays: Int64 = 1024 * 7

    /// `day` (days since 1970) corrected, and whether it was moved. `now` is the system
    /// clock for live input, nil for files.
    public static func correct(day: Int64, now: Int64?) -> (day: Int64, corrected: Bool) {
        guard let now else { return (day, false) }
        let floor = max(now, buildDate) / 86_400 - periodDays / 2
        var day = day
        var corrected = false
        while day < floor {
            day += periodDays
            corrected = true
        }
        return (day, corrected)
    }
}
