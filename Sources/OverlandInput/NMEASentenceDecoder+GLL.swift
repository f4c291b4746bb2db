extension NMEASentenceDecoder {
    // GLL, geographic position (gpsd: processGLL).
    //
    //   $GNGLL,4404.14066,N,12118.85481,W,171925.00,A,A*66
    //
    //   1, 2    latitude ddmm.mmmm, N/S
    //   3, 4    longitude dddmm.mmmm, E/W
    //   5       UTC time hhmmss.sss         absent in NMEA 1.5 GLL
    //   6       status A valid, V void      absent in NMEA 1.5 GLL
    //   7       mode indicator (NMEA 2.3), as in RMC; N is invalid
    //
    // Quirks: a depth sounder echoes the ship's position as $ECGLL with a time of day and
    // no date anywhere in its stream (sounder.log); it is decoded like any other GLL.
    static func decodeGLL(_ fields: inout NMEAFields, into sentence: inout NMEASentence) throws(NMEAFieldError) {
        try readPosition(&fields, into: &sentence)
        sentence.timeOfDay = try fields.next().timeOfDay()
        switch try fields.next().character() {
        case UInt8(ascii: "A")?: sentence.validity = .valid
        case UInt8(ascii: "V")?: sentence.validity = .invalid
        case nil: break
        default: throw NMEAFieldError()
        }
        if let (validity, quality) = try readModeIndicator(fields.next()) {
            if validity == .invalid { sentence.validity = .invalid }
            sentence.quality = quality
        }
    }
}
