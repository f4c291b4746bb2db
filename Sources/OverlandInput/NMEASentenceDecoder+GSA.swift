extension NMEASentenceDecoder {
    // GSA, DOP and active satellites (gpsd: processGSA).
    //
    //   $GNGSA,A,3,68,69,70,78,84,85,,,,,,,1.5,1.3,1.0,2*3D
    //
    //   1       selection mode, M manual or A automatic: ignored
    //   2       fix type: 1 no fix, 2 2D, 3 3D
    //   3-14    PRNs of the satellites used, twelve slots, unused ones empty
    //   15      PDOP
    //   16      HDOP
    //   17      VDOP
    //   18      GNSS system id (NMEA 4.1): ignored; SiRF TriG puts a decimal number here
    //
    // Quirks: multi-constellation receivers send one GSA per constellation per cycle, each
    // with the DOPs of the combined solution (the assembler takes the first); "0.0" DOPs
    // (no fix) mean unknown. The sentence carries no time: it belongs to the cycle it
    // arrives in.
    static func decodeGSA(_ fields: inout NMEAFields, into sentence: inout NMEASentence) throws(NMEAFieldError) {
        _ = fields.next()
        if let type = try fields.next().integer() {
            switch type {
            case 1: sentence.validity = .invalid
            case 2: sentence.validity = .valid; sentence.fixMode = .twoD
            case 3: sentence.validity = .valid; sentence.fixMode = .threeD
            default: throw NMEAFieldError()
            }
        }
        var used = 0
        for _ in 0..<12 where !fields.next().isEmpty { used += 1 }
        if sentence.validity == .valid { sentence.satellitesUsed = used }
        sentence.pdop = try readDOP(fields.next())
        sentence.hdop = try readDOP(fields.next())
        sentence.vdop = try readDOP(fields.next())
    }
}
