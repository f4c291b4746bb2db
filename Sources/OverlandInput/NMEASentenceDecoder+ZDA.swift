extension NMEASentenceDecoder {
    // ZDA, time and date (gpsd: processZDA).
    //
    //   $GPZDA,202640.000,13,04,2015,,*54
    //
    //   1       UTC time hhmmss.sss
    //   2       day, 01-31
    //   3       month, 01-12
    //   4       year, four digits (a two-digit year is expanded as in RMC)
    //   5, 6    local zone hours and minutes: ignored (often empty or "00")
    //
    // Quirks: before a fix some receivers send their RTC's date or a default one; the
    // assembler only learns dates from cycles with a valid fix. Empty fields without a time.
    static func decodeZDA(_ fields: inout NMEAFields, into sentence: inout NMEASentence) throws(NMEAFieldError) {
        sentence.timeOfDay = try fields.next().timeOfDay()
        let day = try fields.next().integer()
        let month = try fields.next().integer()
        let year = try fields.next().integer()
        switch (day, month, year) {
        case (nil, nil, nil):
            break
        case (let day?, let month?, let year?):
            guard let date = CivilDate(year: year < 100 ? NMEAField.fullYear(year) : year, month: month, day: day)
            else { throw NMEAFieldError() }
            sentence.date = date
        default:
            throw NMEAFieldError()
        }
    }
}
