extension NMEASentenceDecoder {
    // GNS, multi-constellation fix data (gpsd: processGNS).
    //
    //   $GNGNS,120213.000,5957.0062,N,01100.6429,E,NDD,11,1.3,168.9,39.5,,,V*57
    //
    //   1       UTC time hhmmss.sss
    //   2, 3    latitude ddmm.mmmm, N/S
    //   4, 5    longitude dddmm.mmmm, E/W
    //   6       mode: one letter per constellation (GPS, GLONASS, Galileo, BeiDou, QZSS,
    //           NavIC), each A D E F M N P R S; all N is no fix. "NNNN" without a fix.
    //   7       satellites used, all constellations (may exceed 12)
    //   8       HDOP
    //   9       orthometric height (above mean sea level), metres, no unit field
    //   10      geoid separation, metres
    //   11, 12  age of differential data, station id: ignored
    //   13      navigational status (NMEA 4.1): ignored, as in RMC
    //
    // The fix quality is that of the best constellation letter (RTK over DGPS over autonomous).
    static func decodeGNS(_ fields: inout NMEAFields, into sentence: inout NMEASentence) throws(NMEAFieldError) {
        sentence.timeOfDay = try fields.next().timeOfDay()
        try readPosition(&fields, into: &sentence)
        let modes = fields.next()
        if !modes.isEmpty {
            var best: FixQuality? = nil
            var anyFix = false
            try modes.forEachByte { letter throws(NMEAFieldError) in
                if letter == UInt8(ascii: "N") || letter == UInt8(ascii: "V") { return }
                guard let quality = FixQuality(modeIndicator: letter) else { throw NMEAFieldError() }
                anyFix = true
                if best == nil || quality.rank > best!.rank { best = quality }
            }
            sentence.validity = anyFix ? .valid : .invalid
            sentence.quality = best
        }
        sentence.satellitesUsed = try fields.next().integer()
        sentence.hdop = try readDOP(fields.next())
        sentence.altitude = try fields.next().decimal()?.value
        sentence.geoidSeparation = try fields.next().decimal()?.value
    }
}
