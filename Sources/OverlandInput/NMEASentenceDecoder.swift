/// Decodes one NMEA 0183 sentence: checks its checksum, reads its address and dispatches
/// on its type to the decoder of RMC, GGA, GNS, GLL, GSA, GST, VTG or ZDA, for any talker.
///
/// Other types (GSV, TXT, proprietary `$P...`, AIS `!..VDM`) are ``NMEADecodeResult/ignored``,
/// not errors. Each type's decoder tolerates empty fields and missing or extra trailing
/// fields (NMEA 2.0 to 4.11 variants) and rejects a field that does not parse or is out of
/// range (latitude above 90°, minutes of 60 or more, a 13th month) as
/// ``NMEADecodeResult/malformed``: a sentence with one impossible field is damaged, and
/// its other fields are not trusted either.
///
/// The decoder is stateful only for the ``ChecksumPolicy``: it remembers whether the
/// stream has carried a valid checksum (and, to save making a string per sentence, the
/// last talker it saw).
public struct NMEASentenceDecoder: Sendable {
    /// What to do with sentences that carry no checksum.
    public var checksumPolicy: ChecksumPolicy
    /// Whether a sentence with a valid checksum has been seen (see
    /// ``ChecksumPolicy/requiredOnceSeen``).
    public private(set) var hasSeenChecksum = false
    private var lastTalker: (first: UInt8, second: UInt8, name: String) = (0, 0, "")

    /// Creates a decoder with a policy for sentences without a checksum.
    public init(checksumPolicy: ChecksumPolicy = .requiredOnceSeen) {
        self.checksumPolicy = checksumPolicy
    }

    /// Decodes one sentence candidate: the bytes from `$` or `!` to the end of the line,
    /// without the line terminator.
    public mutating func decode(_ line: some Collection<UInt8>) -> NMEADecodeResult {
        if let result = line.withContiguousStorageIfAvailable({ decode(buffer: $0) }) {
            return result
        }
        return Array(line).withUnsafeBufferPointer { decode(buffer: $0) }
    }

    /// Decodes one sentence candidate held in contiguous memory.
    mutating func decode(buffer p: UnsafeBufferPointer<UInt8>) -> NMEADecodeResult {
        var sentence = NMEASentence(kind: .rmc, talker: "")
        switch decode(buffer: p, into: &sentence) {
        case .sentence: return .sentence(sentence)
        case .ignored: return .ignored
        case .badChecksum: return .badChecksum
        case .missingChecksum: return .missingChecksum
        case .malformed: return .malformed
        }
    }

    /// ``NMEADecodeResult`` without its sentence, which the hot path keeps in place.
    enum Status {
        case sentence, ignored, badChecksum, missingChecksum, malformed
    }

    /// Decodes one sentence candidate into `sentence` (overwritten whole when the result is
    /// `.sentence`, left in an unspecified state otherwise). The stream decoder's hot path:
    /// a sentence is a few hundred bytes, and returning it in an enum costs copies of it.
    mutating func decode(buffer p: UnsafeBufferPointer<UInt8>, into sentence: inout NMEASentence) -> Status {
        guard p.count >= 2, p[0] == ASCII.dollar || p[0] == ASCII.bang else { return .malformed }
        let (status, payloadEnd) = NMEAChecksum.verify(p)
        switch status {
        case .valid:
            hasSeenChecksum = true
        case .invalid:
            return .badChecksum
        case .missing:
            switch checksumPolicy {
            case .required: return .missingChecksum
            case .requiredOnceSeen: if hasSeenChecksum { return .missingChecksum }
            case .optional: break
            }
        }
        // The address: two-letter talker and three-letter type, "$GPRMC,".
        guard p[0] == ASCII.dollar, payloadEnd >= 6, p[1] != UInt8(ascii: "P"),
            payloadEnd == 6 || p[6] == ASCII.comma,
            NMEASentenceDecoder.isUpper(p[1]), NMEASentenceDecoder.isUpper(p[2])
        else { return .ignored }
        let type = UInt32(p[3]) << 16 | UInt32(p[4]) << 8 | UInt32(p[5])
        let kind: NMEASentence.Kind
        switch type {
        case Self.rmc: kind = .rmc
        case Self.gga: kind = .gga
        case Self.gns: kind = .gns
        case Self.gll: kind = .gll
        case Self.gsa: kind = .gsa
        case Self.gst: kind = .gst
        case Self.vtg: kind = .vtg
        case Self.zda: kind = .zda
        default: return .ignored
        }
        if lastTalker.first != p[1] || lastTalker.second != p[2] {
            lastTalker = (p[1], p[2], String(decoding: UnsafeBufferPointer(rebasing: p[1..<3]), as: UTF8.self))
        }
        sentence = NMEASentence(kind: kind, talker: lastTalker.name, isChecksummed: status == .valid)
        var fields = NMEAFields(p, start: 7, end: payloadEnd)
        do {
            switch kind {
            case .rmc: try Self.decodeRMC(&fields, into: &sentence)
            case .gga: try Self.decodeGGA(&fields, into: &sentence)
            case .gns: try Self.decodeGNS(&fields, into: &sentence)
            case .gll: try Self.decodeGLL(&fields, into: &sentence)
            case .gsa: try Self.decodeGSA(&fields, into: &sentence)
            case .gst: try Self.decodeGST(&fields, into: &sentence)
            case .vtg: try Self.decodeVTG(&fields, into: &sentence)
            case .zda: try Self.decodeZDA(&fields, into: &sentence)
            }
        } catch {
            return .malformed
        }
        return .sentence
    }

    private static func isUpper(_ c: UInt8) -> Bool { c >= 0x41 && c <= 0x5A }

    // The three letters of each type as one integer (literals: no lazy initialisation in
    // the hot path); `typeCodesMatchTheirLetters` checks them.
    static let rmc: UInt32 = 0x52_4D_43 // "RMC"
    static let gga: UInt32 = 0x47_47_41 // "GGA"
    static let gns: UInt32 = 0x47_4E_53 // "GNS"
    static let gll: UInt32 = 0x47_4C_4C // "GLL"
    static let gsa: UInt32 = 0x47_53_41 // "GSA"
    static let gst: UInt32 = 0x47_53_54 // "GST"
    static let vtg: UInt32 = 0x56_54_47 // "VTG"
    static let zda: UInt32 = 0x5A_44_41 // "ZDA"

    // Shared field helpers for the per-type decoders.

    /// Metres per second in one knot.
    static let metresPerSecondPerKnot = 1852.0 / 3600.0
    /// Metres per second in one kilometre per hour.
    static let metresPerSecondPerKilometrePerHour = 1.0 / 3.6

    /// Reads four fields `lat,N|S,lon,E|W` into the sentence; both or neither must be present.
    static func readPosition(_ fields: inout NMEAFields, into sentence: inout NMEASentence) throws(NMEAFieldError) {
        let latitude = fields.next()
        let north = fields.next()
        let longitude = fields.next()
        let east = fields.next()
        let lat = try latitude.coordinate(
            hemisphere: north, positive: UInt8(ascii: "N"), negative: UInt8(ascii: "S"), maximumDegrees: 90)
        let lon = try longitude.coordinate(
            hemisphere: east, positive: UInt8(ascii: "E"), negative: UInt8(ascii: "W"), maximumDegrees: 180)
        switch (lat, lon) {
        case (nil, nil):
            return
        case (let lat?, let lon?):
            sentence.latitude = lat.value
            sentence.longitude = lon.value
            sentence.positionDecimals = min(lat.fractionDigits, lon.fractionDigits)
        default:
            throw NMEAFieldError()
        }
    }

    /// Reads a speed field in a unit, recording its resolution.
    static func readSpeed(_ field: NMEAField, metresPerSecondPerUnit: Double, into sentence: inout NMEASentence)
        throws(NMEAFieldError)
    {
        guard let speed = try field.nonNegativeDecimal() else { return }
        sentence.speed = speed.value * metresPerSecondPerUnit
        sentence.speedResolution = metresPerSecondPerUnit / NMEAField.powersOfTen[speed.fractionDigits]
    }

    /// Reads a course field in degrees, 0 ... 360.
    static func readCourse(_ field: NMEAField, into sentence: inout NMEASentence) throws(NMEAFieldError) {
        guard let course = try field.decimal() else { return }
        guard course.value >= 0, course.value <= 360 else { throw NMEAFieldError() }
        sentence.course = course.value
        sentence.courseDecimals = course.fractionDigits
    }

    /// Reads a dilution of precision; 0 (sent by some receivers without a fix) means unknown.
    static func readDOP(_ field: NMEAField) throws(NMEAFieldError) -> Double? {
        guard let dop = try field.nonNegativeDecimal(), dop.value > 0 else { return nil }
        return dop.value
    }

    /// Reads an NMEA 2.3+ mode indicator: `N` (and the nonstandard `V`) is invalid, a known
    /// letter is a fix quality; an empty field or an unknown letter says nothing (nil).
    static func readModeIndicator(_ field: NMEAField) throws(NMEAFieldError) -> (NMEASentence.Validity, FixQuality?)? {
        guard let mode = try field.character() else { return nil }
        if mode == UInt8(ascii: "N") || mode == UInt8(ascii: "V") { return (.invalid, nil) }
        guard let quality = FixQuality(modeIndicator: mode) else { return nil }
        return (.valid, quality)
    }
}
