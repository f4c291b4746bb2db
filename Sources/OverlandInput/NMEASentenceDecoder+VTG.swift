extension NMEASentenceDecoder {
    // VTG, course and speed over ground (gpsd: processVTG).
    //
    //   $GPVTG,205.4,T,,M,2.75,N,5.09,K,A*02
    //
    //   1, 2    course over ground, degrees true, T   empty without a course (u-blox)
    //   3, 4    course over ground, degrees magnetic, M: ignored
    //   5, 6    speed over ground, knots, N
    //   7, 8    speed over ground, km/h, K            used when present: some receivers
    //                                                 (the DG-100 of drive.nmea) store km/h
    //   9       mode indicator (NMEA 2.3); N means the data are not valid
    //
    // NMEA 1.x form without the unit letters: $GPVTG,054.7,034.4,005.5,010.2 (course true,
    // course magnetic, knots, km/h).
    //
    // Quirks: the sentence carries no time: it belongs to the cycle it arrives in. With mode
    // N the course and speed are dropped, but the sentence says nothing about the position.
    static func decodeVTG(_ fields: inout NMEAFields, into sentence: inout NMEASentence) throws(NMEAFieldError) {
        let courseTrue = fields.next()
        let second = fields.next()
        if second.isEmpty || second.isLetter(UInt8(ascii: "T")) {
            try readCourse(courseTrue, into: &sentence)
            fields.skip(2)
            let knots = fields.next()
            fields.skip(1)
            let kilometresPerHour = fields.next()
            fields.skip(1)
            if kilometresPerHour.isEmpty {
                try readSpeed(knots, metresPerSecondPerUnit: metresPerSecondPerKnot, into: &sentence)
            } else {
                try readSpeed(kilometresPerHour, metresPerSecondPerUnit: metresPerSecondPerKilometrePerHour, into: &sentence)
            }
            if let (validity, _) = try readModeIndicator(fields.next()), validity == .invalid {
                sentence.course = nil
                sentence.courseDecimals = 0
                sentence.speed = nil
                sentence.speedResolution = 0
            }
        } else {
            try readCourse(courseTrue, into: &sentence)
            let knots = fields.next()
            let kilometresPerHour = fields.next()
            if kilometresPerHour.isEmpty {
                try readSpeed(knots, metresPerSecondPerUnit: metresPerSecondPerKnot, into: &sentence)
            } else {
                try readSpeed(kilometresPerHour, metresPerSecondPerUnit: metresPerSecondPerKilometrePerHour, into: &sentence)
            }
        }
    }
}
