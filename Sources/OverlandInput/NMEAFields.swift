/// A malformed field: the sentence that holds it is rejected.
struct NMEAFieldError: Error {}

/// Reads the comma-separated fields of a sentence payload in order. Fields past the last
/// one read as empty, so decoders tolerate sentences with missing trailing fields.
struct NMEAFields {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var cursor: Int
    private let end: Int

    /// Fields of `bytes[start..<end]`; `start` is the first byte of the first field.
    init(_ bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int) {
        self.bytes = bytes
        self.cursor = start
        self.end = end
    }

    /// The next field; empty once the fields are exhausted.
    @inline(__always)
    mutating func next() -> NMEAField {
        if cursor > end { return NMEAField(bytes, end, end) }
        var j = cursor
        while j < end && bytes[j] != ASCII.comma { j += 1 }
        let field = NMEAField(bytes, cursor, j)
        cursor = j + 1
        return field
    }

    /// Skips `count` fields.
    @inline(__always)
    mutating func skip(_ count: Int) {
        for _ in 0..<count { _ = next() }
    }
}

/// A decimal number as written: its value and how many digits followed the point.
struct ParsedDecimal {
    var value: Double
    var fractionDigits: Int
}

/// One field of a sentence, with parsers for the NMEA field formats.
struct NMEAField {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let start: Int
    private let end: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        self.bytes = bytes
        self.start = start
        self.end = end
    }

    var isEmpty: Bool { start >= end }

    /// A one-letter field such as a status, hemisphere or unit; nil when empty.
    func character() throws(NMEAFieldError) -> UInt8? {
        if isEmpty { return nil }
        guard end - start == 1 else { throw NMEAFieldError() }
        return bytes[start]
    }

    /// Whether the field is exactly the letter `c`.
    func isLetter(_ c: UInt8) -> Bool { end - start == 1 && bytes[start] == c }

    /// Each byte of the field, for mode-letter strings such as GNS `ANNA`.
    func forEachByte(_ body: (UInt8) throws(NMEAFieldError) -> Void) throws(NMEAFieldError) {
        var i = start
        while i < end {
            try body(bytes[i])
            i += 1
        }
    }

    /// An unsigned integer of up to 9 digits; nil when empty.
    func integer() throws(NMEAFieldError) -> Int? {
        if isEmpty { return nil }
        guard end - start <= 9 else { throw NMEAFieldError() }
        var value = 0
        var i = start
        while i < end {
            guard let d = ASCII.digitValue(bytes[i]) else { throw NMEAFieldError() }
            value = value * 10 + Int(d)
            i += 1
        }
        return value
    }

    /// A decimal number with an optional sign and point (`-19.6`, `0.`, `.5`, `000115.4`);
    /// nil when empty.
    func decimal() throws(NMEAFieldError) -> ParsedDecimal? {
        if isEmpty { return nil }
        var i = start
        var negative = false
        if bytes[i] == ASCII.minus {
            negative = true
            i += 1
        } else if bytes[i] == ASCII.plus {
            i += 1
        }
        let number = try unsignedNumber(from: i)
        var value = Double(number.mantissa)
        if number.fractionDigits > 0 { value /= NMEAField.powersOfTen[number.fractionDigits] }
        return ParsedDecimal(value: negative ? -value : value, fractionDigits: number.fractionDigits)
    }

    /// A decimal number that must not be negative (speeds, DOPs, errors); nil when empty.
    func nonNegativeDecimal() throws(NMEAFieldError) -> ParsedDecimal? {
        guard let number = try decimal() else { return nil }
        guard number.value >= 0 else { throw NMEAFieldError() }
        return number
    }

    /// A UTC time `hhmmss` with an optional fraction of any length (nanoseconds kept);
    /// nil when empty.
    func timeOfDay() throws(NMEAFieldError) -> TimeOfDay? {
        if isEmpty { return nil }
        guard end - start >= 6 else { throw NMEAFieldError() }
        let hour = try twoDigits(at: start)
        let minute = try twoDigits(at: start + 2)
        let second = try twoDigits(at: start + 4)
        var nanoseconds: Int32 = 0
        var i = start + 6
        if i < end {
            guard bytes[i] == ASCII.dot else { throw NMEAFieldError() }
            i += 1
            var scale: Int32 = 100_000_000
            while i < end {
                guard let d = ASCII.digitValue(bytes[i]) else { throw NMEAFieldError() }
                nanoseconds += Int32(d) * scale
                scale /= 10
                i += 1
            }
        }
        guard
            let time = TimeOfDay(
                hour: hour, minute: minute, second: second, nanoseconds: nanoseconds)
        else { throw NMEAFieldError() }
        return time
    }

    /// An RMC date `ddmmyy`; two-digit years 80-99 are 19xx, 00-79 are 20xx. Nil when empty.
    func ddmmyyDate() throws(NMEAFieldError) -> CivilDate? {
        if isEmpty { return nil }
        guard end - start == 6 else { throw NMEAFieldError() }
        let day = try twoDigits(at: start)
        let month = try twoDigits(at: start + 2)
        let year = try twoDigits(at: start + 4)
        guard let date = CivilDate(year: NMEAField.fullYear(year), month: month, day: day)
        else { throw NMEAFieldError() }
        return date
    }

    /// Two decimal digits at `i` as a number.
    @inline(__always)
    private func twoDigits(at i: Int) throws(NMEAFieldError) -> Int {
        guard let high = ASCII.digitValue(bytes[i]), let low = ASCII.digitValue(bytes[i + 1])
        else { throw NMEAFieldError() }
        return Int(high) * 10 + Int(low)
    }

    /// A latitude or longitude `[d]ddmm.mmmm` with its hemisphere letter field; nil when
    /// both are empty. Minutes must be below 60 and the angle at most `maximumDegrees`.
    func coordinate(
        hemisphere: NMEAField, positive: UInt8, negative: UInt8, maximumDegrees: UInt64
    ) throws(NMEAFieldError) -> ParsedDecimal? {
        if isEmpty && hemisphere.isEmpty { return nil }
        guard let letter = try hemisphere.character(), !isEmpty else { throw NMEAFieldError() }
        let sign: Double
        if letter == positive {
            sign = 1
        } else if letter == negative {
            sign = -1
        } else {
            throw NMEAFieldError()
        }
        let number = try unsignedNumber(from: start)
        let scale = NMEAField.integerPowersOfTen[number.fractionDigits]
        let integerPart = number.mantissa / scale
        let fraction = number.mantissa % scale
        let degrees = integerPart / 100
        let wholeMinutes = integerPart % 100
        guard wholeMinutes < 60, degrees < maximumDegrees || (degrees == maximumDegrees && wholeMinutes == 0 && fraction == 0)
        else { throw NMEAFieldError() }
        let minutes = Double(wholeMinutes * scale + fraction) / NMEAField.powersOfTen[number.fractionDigits]
        return ParsedDecimal(value: sign * (Double(degrees) + minutes / 60), fractionDigits: number.fractionDigits)
    }

    /// Parses digits with at most one point from `i` to the end of the field. Digits beyond
    /// 18 significant ones after the point are dropped, and so are those past the 19th
    /// place after the point (`0.000000000000000000001` reads as 0: the fraction's digit
    /// count indexes `powersOfTen`); before the point too many digits are an error.
    private func unsignedNumber(from index: Int) throws(NMEAFieldError) -> (mantissa: UInt64, fractionDigits: Int) {
        let limit: UInt64 = 99_999_999_999_999_999 // below it, one more digit still fits
        var i = index
        var mantissa: UInt64 = 0
        var fractionDigits = 0
        var sawDigit = false
        // The whole part: every digit counts, so too many is an error.
        while i < end {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            guard mantissa <= limit else { throw NMEAFieldError() }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            sawDigit = true
            i += 1
        }
        if i < end {
            guard bytes[i] == ASCII.dot else { throw NMEAFieldError() }
            i += 1
            // The fraction: digits past what fits are dropped.
            while i < end {
                let digit = bytes[i] &- UInt8(ascii: "0")
                guard digit < 10 else { throw NMEAFieldError() }
                if mantissa <= limit && fractionDigits < NMEAField.maxFractionDigits {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    fractionDigits += 1
                }
                sawDigit = true
                i += 1
            }
        }
        guard sawDigit else { throw NMEAFieldError() }
        return (mantissa, fractionDigits)
    }

    /// A two-digit year as a four-digit one: 80-99 are 19xx, 00-79 are 20xx.
    static func fullYear(_ twoDigits: Int) -> Int {
        twoDigits >= 80 ? 1900 + twoDigits : 2000 + twoDigits
    }

    /// The most digits after the point a number keeps; `powersOfTen` and
    /// `integerPowersOfTen` hold a power for each count from 0 to this.
    static let maxFractionDigits = 19

    /// 10^0 ... 10^19 as exact doubles.
    static let powersOfTen: [Double] = (0...maxFractionDigits).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// 10^0 ... 10^19 as integers.
    static let integerPowersOfTen: [UInt64] = (0...maxFractionDigits).map { exponent in
        var value: UInt64 = 1
        for _ in 0..<exponent { value *= 10 }
        return value
    }
}
