/// Timestamps in the one ISO 8601 form the protocol uses: `2015-10-01T15:00:00Z`.
///
/// Written without Foundation (Howard Hinnant's days-from-civil algorithms, proleptic
/// Gregorian calendar) because formatting sits on the hot path of every record.
public enum ISO8601UTC {
    /// The seconds that format within four-digit years: 0000-01-01T00:00:00Z through
    /// 9999-12-31T23:59:59Z.
    public static let representableSeconds: ClosedRange<Int64> = -62_167_219_200...253_402_300_799

    /// The length of a formatted timestamp, `YYYY-MM-DDTHH:MM:SSZ`.
    public static let formattedLength = 20

    /// Formats `seconds` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`; values outside
    /// `representableSeconds` are clamped to it.
    public static func string(from seconds: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(formattedLength)
        append(seconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `seconds` formatted as `string(from:)` does (20 bytes, no quotes) to `bytes`.
    public static func append(_ seconds: Int64, to bytes: inout [UInt8]) {
        bytes.append(addingCapacity: formattedLength) { span in
            span.withUnsafeMutableBufferPointer { buffer, initializedCount in
                var cursor = UnsafeJSONCursor(buffer.baseAddress!)
                cursor.appendTimestamp(seconds)
                initializedCount = formattedLength
            }
        }
    }

    /// The date and the second of the day of `seconds` since the Unix epoch, clamped to
    /// `representableSeconds`.
    @inline(__always)
    static func fields(of seconds: Int64) -> (year: Int64, month: Int64, day: Int64, secondOfDay: Int64) {
        let clamped = min(max(seconds, representableSeconds.lowerBound), representableSeconds.upperBound)
        // Floor division, so that times before 1970 land on the right day.
        var days = clamped / 86_400
        var secondOfDay = clamped % 86_400
        if secondOfDay < 0 {
            days -= 1
            secondOfDay += 86_400
        }
        let (year, month, day) = civil(fromDays: days)
        return (year, month, day, secondOfDay)
    }

    /// Parses `text` strictly as `YYYY-MM-DDTHH:MM:SS`, then optionally `.` and one or more
    /// digits of fraction (dropped: the result is truncated to the whole second), then `Z`
    /// or `+00:00`; returns seconds since the Unix epoch, or nil for anything else
    /// (lower-case `t`/`z`, other offsets, a leap second 60, a day the month lacks).
    public static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parse(buffer: $0) }
    }

    /// Parses the UTF-8 bytes of a timestamp as `parse(_: String)` does.
    public static func parse(_ bytes: some Collection<UInt8>) -> Int64? {
        if let result = bytes.withContiguousStorageIfAvailable({ parse(buffer: $0) }) { return result }
        return Array(bytes).withUnsafeBufferPointer { parse(buffer: $0) }
    }

    /// Parses a timestamp in memory as `parse(_: String)` does.
    public static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Int64? { parse(buffer: text) }

    private static func parse(buffer text: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard text.count >= formattedLength else { return nil }
        func number(_ offset: Int, _ width: Int) -> Int64? {
            var value: Int64 = 0
            for position in offset..<(offset + width) {
                let digit = text[position] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        func separator(_ offset: Int, _ expected: Character) -> Bool {
            text[offset] == expected.asciiValue!
        }
        guard let year = number(0, 4), separator(4, "-"), let month = number(5, 2), separator(7, "-"),
            let day = number(8, 2), separator(10, "T"), let hour = number(11, 2), separator(13, ":"),
            let minute = number(14, 2), separator(16, ":"), let second = number(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        if text[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < text.count, text[index] &- UInt8(ascii: "0") < 10 { index += 1 }
            guard index > fractionStart else { return nil }
        }
        let zone = UnsafeBufferPointer(rebasing: text[index...])
        guard zone.elementsEqual("Z".utf8) || zone.elementsEqual("+00:00".utf8) else { return nil }
        return days(fromYear: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    private static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
    /// days_from_civil): the one place, NMEA's dates (`CivilDate`) use it too.
    @inlinable
    public static func days(fromYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (civil_from_days).
    @inlinable
    public static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
