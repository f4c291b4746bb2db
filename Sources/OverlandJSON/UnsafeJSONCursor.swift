/// Writes JSON tokens through a pointer into memory reserved beforehand: the formatting
/// behind `JSONWriter`, without a capacity or uniqueness check per token.
///
/// Reserve with `JSONWriter.append(atMost:_:)`, which hands out a cursor over the free
/// capacity of its buffer, and bound what you write with the `maximum…Length` functions.
/// The cursor checks nothing itself: writing past the reservation corrupts memory.
@usableFromInline
package struct UnsafeJSONCursor {
    /// Where the next byte goes.
    @usableFromInline
    package private(set) var position: UnsafeMutablePointer<UInt8>

    /// Creates a cursor that writes from `position` on.
    @inlinable
    package init(_ position: UnsafeMutablePointer<UInt8>) {
        self.position = position
    }

    /// The most bytes `appendInteger` writes: "-9223372036854775808".
    package static let maximumIntegerLength = 20

    /// The most bytes `appendDecimal(value, …)` writes, whatever the fraction digits.
    @inlinable
    package static func maximumDecimalLength(_ value: Double) -> Int {
        // Below 1e16: a sign, at most 17 integer digits (after rounding up), the point and
        // 17 fraction digits. Above, the shortest form has no fraction left: a sign and up
        // to 309 digits (Double.greatestFiniteMagnitude). NaN takes the large bound too.
        value.magnitude < 1e16 ? 36 : 330
    }

    /// The most bytes `appendString(value)` writes: quotes, and six bytes (`\u00XX`) for
    /// every byte of UTF-8.
    @inlinable
    package static func maximumStringLength(_ value: String) -> Int {
        2 + 6 * value.utf8.count
    }

    /// The bytes `appendString(utf8: text)` writes, counted exactly.
    package static func escapedLength(_ text: UnsafeBufferPointer<UInt8>) -> Int {
        var length = 2 + text.count
        for byte in text {
            if byte < 0x20 {
                length += byte == 0x0A || byte == 0x0D || byte == 0x09 ? 1 : 5
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                length += 1
            }
        }
        return length
    }

    /// Writes `literal` as it is, unchecked: for fixed fragments such as `{"type":`.
    @inlinable @inline(__always)
    package mutating func appendRaw(_ literal: StaticString) {
        let count = literal.utf8CodeUnitCount
        position.initialize(from: literal.utf8Start, count: count)
        position += count
    }

    /// Writes one byte.
    @inlinable @inline(__always)
    package mutating func appendByte(_ byte: UInt8) {
        position.pointee = byte
        position += 1
    }

    /// Writes `value` in decimal.
    package mutating func appendInteger(_ value: Int64) {
        if value < 0 { appendByte(UInt8(ascii: "-")) }
        appendDigits(value.magnitude)
    }

    /// Writes `true` or `false`.
    package mutating func appendBool(_ value: Bool) {
        if value { appendRaw("true") } else { appendRaw("false") }
    }

    /// Writes `value` as a JSON string, escaped as `JSONWriter.appendString` describes.
    package mutating func appendString(_ value: String) {
        // Native strings lend their UTF-8 as they are; others are made native first.
        if value.utf8.withContiguousStorageIfAvailable({ appendString(utf8: $0) }) == nil {
            var value = value
            value.withUTF8 { appendString(utf8: $0) }
        }
    }

    /// Writes the well-formed UTF-8 text in `text` as a JSON string.
    package mutating func appendString(utf8 text: UnsafeBufferPointer<UInt8>) {
        appendByte(UInt8(ascii: "\""))
        if let start = text.baseAddress {
            var runStart = 0
            for index in 0..<text.count {
                let byte = start[index]
                if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") { continue }
                appendBytes(start + runStart, count: index - runStart)
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): appendRaw(#"\""#)
                case UInt8(ascii: "\\"): appendRaw(#"\\"#)
                case 0x0A: appendRaw(#"\n"#)
                case 0x0D: appendRaw(#"\r"#)
                case 0x09: appendRaw(#"\t"#)
                default:
                    appendRaw(#"\u00"#)
                    appendByte(Self.hexDigit(byte >> 4))
                    appendByte(Self.hexDigit(byte & 0x0F))
                }
            }
            appendBytes(start + runStart, count: text.count - runStart)
        }
        appendByte(UInt8(ascii: "\""))
    }

    @inline(__always)
    private mutating func appendBytes(_ source: UnsafePointer<UInt8>, count: Int) {
        guard count > 0 else { return }
        position.initialize(from: source, count: count)
        position += count
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// Writes `seconds` since the Unix epoch as `ISO8601UTC.string(from:)` does, without
    /// quotes: always `ISO8601UTC.formattedLength` bytes.
    package mutating func appendTimestamp(_ seconds: Int64) {
        let (year, month, day, secondOfDay) = ISO8601UTC.fields(of: seconds)
        appendDigits(UInt64(year), count: 4)
        appendByte(UInt8(ascii: "-"))
        appendDigits(UInt64(month), count: 2)
        appendByte(UInt8(ascii: "-"))
        appendDigits(UInt64(day), count: 2)
        appendByte(UInt8(ascii: "T"))
        appendDigits(UInt64(secondOfDay / 3600), count: 2)
        appendByte(UInt8(ascii: ":"))
        appendDigits(UInt64(secondOfDay / 60 % 60), count: 2)
        appendByte(UInt8(ascii: ":"))
        appendDigits(UInt64(secondOfDay % 60), count: 2)
        appendByte(UInt8(ascii: "Z"))
    }

    /// Writes `value` as a fixed-point decimal, as `JSONWriter.appendDecimal` describes.
    package mutating func appendDecimal(_ value: Double, maxFractionDigits: Int) {
        guard value.isFinite else {
            appendByte(UInt8(ascii: "0"))
            return
        }
        let digits = min(max(maxFractionDigits, 0), 17)
        let scaled = value.magnitude * Self.doublePowerOfTen(digits)
        // Fast path: below 2^43 the scaled value carries at least 9 bits of fraction, so
        // scaling errors stay under 0.003 units. Away from a tie (x.5 within 0.01) those
        // errors cannot change the rounded result, which then equals the hand rounding of
        // the shortest decimal; close to a tie, decide on the decimal digits themselves.
        if scaled < 0x1p43 {
            // A truncating conversion, not rounded(.down), which would need libm.
            let whole = UInt64(scaled)
            let fraction = scaled - Double(whole)
            if (fraction - 0.5).magnitude > 0.01 {
                let units = whole + (fraction > 0.5 ? 1 : 0)
                appendFixedPoint(units, fractionDigits: digits, negative: value < 0)
                return
            }
        }
        appendDecimalFromShortestDigits(value, maxFractionDigits: digits)
    }

    /// Writes `units / 10^fractionDigits`, trailing fraction zeros dropped.
    private mutating func appendFixedPoint(_ units: UInt64, fractionDigits: Int, negative: Bool) {
        guard units != 0 else {
            appendByte(UInt8(ascii: "0"))
            return
        }
        if negative { appendByte(UInt8(ascii: "-")) }
        let scale = Self.integerPowerOfTen(fractionDigits)
        appendDigits(units / scale)
        var fraction = units % scale
        guard fraction != 0 else { return }
        var width = fractionDigits
        while fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        appendByte(UInt8(ascii: "."))
        appendDigits(fraction, count: width)
    }

    /// The slow path of `appendDecimal`: rounds the digits of `value.description`.
    private mutating func appendDecimalFromShortestDigits(_ value: Double, maxFractionDigits: Int) {
        // value.magnitude.description is "123.456", "1e-05" or "1.2345e+20": split it into
        // significant digits and the position of the decimal point among them.
        var digits: [UInt8] = []
        var point: Int?
        var exponent = 0
        var exponentNegative = false
        var inExponent = false
        for byte in value.magnitude.description.utf8 {
            if inExponent {
                if byte == UInt8(ascii: "-") {
                    exponentNegative = true
                } else if ByteScanner.isDigit(byte) {
                    exponent = exponent * 10 + Int(byte - UInt8(ascii: "0"))
                }
            } else if byte == UInt8(ascii: ".") {
                point = digits.count
            } else if byte == UInt8(ascii: "e") {
                inExponent = true
            } else {
                digits.append(byte - UInt8(ascii: "0"))
            }
        }
        var pointPosition = (point ?? digits.count) + (exponentNegative ? -exponent : exponent)
        while let first = digits.first, first == 0 {
            digits.removeFirst()
            pointPosition -= 1
        }
        // Keep the digits up to maxFractionDigits after the point; round on the next one.
        let keep = pointPosition + maxFractionDigits
        if keep < 0 {
            digits = []
        } else if keep < digits.count {
            let roundUp = digits[keep] >= 5
            digits.removeSubrange(keep...)
            if roundUp {
                var index = digits.count - 1
                while index >= 0 && digits[index] == 9 {
                    digits[index] = 0
                    index -= 1
                }
                if index >= 0 {
                    digits[index] += 1
                } else {
                    digits.insert(1, at: 0)
                    pointPosition += 1
                }
            }
        }
        while let last = digits.last, last == 0, digits.count > pointPosition {
            digits.removeLast()
        }
        guard digits.contains(where: { $0 != 0 }) else {
            appendByte(UInt8(ascii: "0"))
            return
        }
        if value < 0 { appendByte(UInt8(ascii: "-")) }
        if pointPosition <= 0 {
            appendByte(UInt8(ascii: "0"))
        } else {
            for index in 0..<pointPosition {
                appendByte(UInt8(ascii: "0") + (index < digits.count ? digits[index] : 0))
            }
        }
        if digits.count > pointPosition {
            appendByte(UInt8(ascii: "."))
            for _ in 0..<max(-pointPosition, 0) {
                appendByte(UInt8(ascii: "0"))
            }
            for digit in digits[max(pointPosition, 0)...] {
                appendByte(UInt8(ascii: "0") + digit)
            }
        }
    }

    /// Writes the decimal digits of `value`, no sign.
    @inline(__always)
    private mutating func appendDigits(_ value: UInt64) {
        appendDigits(value, count: Self.digitCount(value))
    }

    /// Writes the last `count` decimal digits of `value`, zero-padded on the left: two
    /// digits per division, from the right.
    @inline(__always)
    private mutating func appendDigits(_ value: UInt64, count: Int) {
        let pairs = Self.digitPairs
        var remaining = value
        var index = count
        while index >= 2 {
            let pair = Int(remaining % 100) &* 2
            remaining /= 100
            index &-= 2
            position[index] = pairs[pair]
            position[index &+ 1] = pairs[pair &+ 1]
        }
        if index == 1 {
            position[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining % 10)
        }
        position += count
    }

    /// How many decimal digits `value` has (1 for 0).
    @inline(__always)
    private static func digitCount(_ value: UInt64) -> Int {
        var count = 1
        var remaining = value
        while remaining >= 10_000 {
            remaining /= 10_000
            count &+= 4
        }
        if remaining >= 100 {
            count &+= remaining >= 1_000 ? 3 : 2
        } else if remaining >= 10 {
            count &+= 1
        }
        return count
    }

    /// "00" through "99", for writing two digits with one division.
    @inline(__always)
    private static var digitPairs: UnsafePointer<UInt8> {
        let pairs: StaticString = """
            00010203040506070809101112131415161718192021222324252627282930313233343536373839\
            40414243444546474849505152535455565758596061626364656667686970717273747576777879\
            8081828384858687888990919293949596979899
            """
        return pairs.utf8Start
    }

    /// 10^exponent for 0...17, exactly (5^17 < 2^53).
    @inline(__always)
    private static func doublePowerOfTen(_ exponent: Int) -> Double {
        Double(Int64(bitPattern: integerPowerOfTen(exponent)))
    }

    /// 10^exponent for 0...17.
    @inline(__always)
    private static func integerPowerOfTen(_ exponent: Int) -> UInt64 {
        // A switch of constants, which the compiler makes a table lookup.
        switch exponent {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        case 9: 1_000_000_000
        case 10: 10_000_000_000
        case 11: 100_000_000_000
        case 12: 1_000_000_000_000
        case 13: 10_000_000_000_000
        case 14: 100_000_000_000_000
        case 15: 1_000_000_000_000_000
        case 16: 10_000_000_000_000_000
        default: 100_000_000_000_000_000
        }
    }
}
