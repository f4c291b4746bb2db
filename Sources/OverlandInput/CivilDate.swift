/// A calendar date in the proleptic Gregorian calendar, as NMEA RMC and ZDA state it.
public struct CivilDate: Sendable, Equatable, Hashable {
    /// The year, four digits (a two-digit RMC year is expanded: 80-99 to 19xx, 00-79 to 20xx).
    public var year: Int
    /// The month, 1 ... 12.
    public var month: Int
    /// The day of the month, 1 ... 31.
    public var day: Int

    /// Creates a date; nil when the day does not exist (31 April, 29 February 2023, month 13).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= CivilDate.daysInMonth(year: year, month: month)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (negative: before).
    public init(daysSinceEpoch days: Int64) {
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.year = Int(yoe + era * 400 + (m <= 2 ? 1 : 0))
        self.month = Int(m)
        self.day = Int(d)
    }

    /// Days from 1970-01-01 to this date (negative before 1970).
    public var daysSinceEpoch: Int64 {
        // Howard Hinnant's days_from_civil.
        let y = Int64(month <= 2 ? year - 1 : year)
        let m = Int64(month)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Number of days in a month of a year.
    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
