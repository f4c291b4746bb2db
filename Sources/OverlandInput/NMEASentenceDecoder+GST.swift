extension NMEASentenceDecoder {
    // GST, pseudorange error statistics (gpsd: processGST).
    //
    //   $GPGST,213121.000,16.1,22.2,10.2,2.0,0.4,0.6,1.4*57
    //
    //   1       UTC time hhmmss.sss of the fix the statistics belong to
    //   2       RMS of the pseudorange residuals, metres: ignored
    //   3, 4    semi-major and semi-minor axis of the error ellipse, 1 sigma, metres: ignored
    //   5       orientation of the semi-major axis, degrees true: ignored
    //   6       latitude error, 1 sigma, metres
    //   7       longitude error, 1 sigma, metres
    //   8       altitude error, 1 sigma, metres
    //
    // Quirks: receivers without the statistics send the sentence with empty fields.
    static func decodeGST(_ fields: inout NMEAFields, into sentence: inout NMEASentence) throws(NMEAFieldError) {
        sentence.timeOfDay = try fields.next().timeOfDay()
        fields.skip(4)
        sentence.latitudeError = try fields.next().nonNegativeDecimal()?.value
        sentence.longitudeError = try fields.next().nonNegativeDecimal()?.value
        sentence.altitudeError = try fields.next().nonNegativeDecimal()?.value
    }
}
