import OverlandJSON

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

    /// The date written YYYY-MM-DD (`overland-log --date`), a year from 1980 to 2200 (GPS
    /// time starts in 1980); nil for any other text or a day that does not exist.
    public init?(parsing text: String) {
        let parts = text.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1980...2200).contains(year) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The date `days` days after 1970-01-01 (negative: before).
    public init(daysSinceEpoch days: Int64) {
        let civil = ISO8601UTC.civil(fromDays: days)
        self.year = Int(civil.year)
        self.month = Int(civil.month)
        self.day = Int(civil.day)
    }

    /// Days from 1970-01-01 to this date (negative before 1970).
    public var daysSinceEpoch: Int64 {
        ISO8601UTC.days(fromYear: Int64(year), month: Int64(month), day: Int64(day))
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
