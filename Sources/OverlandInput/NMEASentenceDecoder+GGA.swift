extension NMEASentenceDecoder {
    // GGA, fix data (gpsd: processGGA).
    //
    //   $GPGGA,202640.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000*6C
    //
    //   1       UTC time hhmmss.sss        empty without a fix (Telit: $GPGGA,,,,,,0,,,,M,,M,,*66)
    //   2, 3    latitude ddmm.mmmm, N/S
    //   4, 5    longitude dddmm.mmmm, E/W
    //   6       quality: 0 no fix, 1 GPS, 2 DGPS, 3 PPS, 4 RTK fixed, 5 RTK float,
    //           6 estimated, 7 manual, 8 simulation (9 SBAS on some NMEA 2.3 receivers);
    //           empty on the Firefly-II: no statement
    //   7       satellites used            "00" or empty without a fix; some cap it at 12
    //   8       HDOP                       "00.0" or "99.99" without a fix
    //   9, 10   altitude above mean sea level, M
    //   11, 12  geoid separation, M        empty on some (drive.nmea, rst39)
    //   13, 14  age of differential data, station id: ignored
    //   15      nonstandard extra field (SiRF TriG: VDOP): ignored
    static func decodeGGA(_ fields: inout NMEAFields, into sentence: inout NMEASentence) throws(NMEAFieldError) {
        sentence.timeOfDay = try fields.next().timeOfDay()
        try readPosition(&fields, into: &sentence)
        if let quality = try fields.next().integer() {
            guard quality <= 9 else { throw NMEAFieldError() }
            sentence.validity = quality == 0 ? .invalid : .valid
            sentence.quality = FixQuality(ggaIndicator: quality)
        }
        sentence.satellitesUsed = try fields.next().integer()
        sentence.hdop = try readDOP(fields.next())
        try readAltitude(&fields, into: &sentence)
    }

    /// Reads `altitude,M,separation,M` (GGA); a unit other than metres drops the value.
    static func readAltitude(_ fields: inout NMEAFields, into sentence: inout NMEASentence) throws(NMEAFieldError) {
        let altitude = try fields.next().decimal()
        let altitudeUnit = fields.next()
        let separation = try fields.next().decimal()
        let separationUnit = fields.next()
        if let altitude, altitudeUnit.isEmpty || altitudeUnit.isLetter(UInt8(ascii: "M")) {
            sentence.altitude = altitude.value
        }
        if let separation, separationUnit.isEmpty || separationUnit.isLetter(UInt8(ascii: "M")) {
            sentence.geoidSeparation = separation.value
        }
    }
}
