extension NMEASentenceDecoder {
    // RMC, recommended minimum data (gpsd: processRMC).
    //
    //   $GNRMC,055234.000,A,4739.71890,N,12219.58362,W,0.00,286.35,050826,,,A,V*13
    //
    //   1      UTC time hhmmss.sss       empty without a fix (Telit: $GPRMC,,V,,,,,,,,,,N*53)
    //   2      status A valid, V void
    //   3, 4   latitude ddmm.mmmm, N/S   any number of decimals (2 to 8 seen)
    //   5, 6   longitude dddmm.mmmm, E/W
    //   7      speed over ground, knots  "0." seen
    //   8      course over ground, ° true  empty when the receiver has no course (u-blox)
    //   9      date ddmmyy               two-digit year: 80-99 are 19xx, 00-79 20xx;
    //                                    "2208-1" from a Telit after the 2019 GPS week rollover
    //   10, 11 magnetic variation, E/W   ignored
    //   12     mode indicator (NMEA 2.3): A autonomous, D differential, E estimated, M manual,
    //          S simulator, N not valid (4.x adds F float RTK, R RTK, P precise); absent before 2.3
    //   13     navigational status (NMEA 4.1): S safe, C caution, U unsafe, V not valid.
    //          Ignored: u-blox, Quectel and Unicore send V with every good fix.
    //
    // Status V or mode N make the cycle invalid. Speed is knots: 0.01 kn is 0.0051 m/s, so a
    // VTG km/h field with as many decimals wins over it in the assembler.
    static func decodeRMC(_ fields: inout NMEAFields, into sentence: inout NMEASentence) throws(NMEAFieldError) {
        sentence.timeOfDay = try fields.next().timeOfDay()
        let status = try fields.next().character()
        try readPosition(&fields, into: &sentence)
        try readSpeed(fields.next(), metresPerSecondPerUnit: metresPerSecondPerKnot, into: &sentence)
        try readCourse(fields.next(), into: &sentence)
        sentence.date = try fields.next().ddmmyyDate()
        fields.skip(2)
        let mode = try readModeIndicator(fields.next())
        switch status {
        case UInt8(ascii: "A")?: sentence.validity = .valid
        case UInt8(ascii: "V")?: sentence.validity = .invalid
        case nil: break
        default: throw NMEAFieldError()
        }
        if let (validity, quality) = mode {
            if validity == .invalid { sentence.validity = .invalid }
            sentence.quality = quality
        }
    }
}
