/// Appends compact JSON text to a byte buffer, one token at a time.
///
/// The writer checks nothing about structure: the caller writes the brackets, commas and
/// colons (usually as `appendRaw` literals) and the writer gets the tokens right:
/// string escaping, integers, and fixed-point decimals without exponent notation.
public struct JSONWriter: Sendable {
    /// The JSON text written so far.
    public var bytes: [UInt8]

    /// Creates a writer that appends to `bytes`.
    public init(bytes: [UInt8] = []) {
        self.bytes = bytes
    }

    /// Creates an empty writer with room for `capacity` bytes.
    public init(reservingCapacity capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends `literal` as it is, unchecked: for fixed fragments such as `{"type":`.
    @inline(__always)
    public mutating func appendRaw(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends `raw` as it is, unchecked: for JSON text that is already valid.
    public mutating func appendRaw(_ raw: some Sequence<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// Appends `value` as a JSON string: quoted, with `"`, `\` and control characters
    /// escaped (`\n`, `\r`, `\t`, otherwise `\u00XX`) and everything else, non-ASCII
    /// included, copied as UTF-8.
    public mutating func appendString(_ value: String) {
        var value = value
        value.withUTF8 { appendEscaped($0) }
    }

    /// Appends the UTF-8 text in `utf8` as a JSON string, escaped as `appendString` does;
    /// the bytes must be well-formed UTF-8.
    public mutating func appendString(utf8: UnsafeBufferPointer<UInt8>) {
        appendEscaped(utf8)
    }

    private mutating func appendEscaped(_ text: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        for index in 0..<text.count {
            let byte = text[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") { continue }
            if runStart < index {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<index]))
            }
            runStart = index + 1
            switch byte {
            case UInt8(ascii: "\""): appendRaw(#"\""#)
            case UInt8(ascii: "\\"): appendRaw(#"\\"#)
            case 0x0A: appendRaw(#"\n"#)
            case 0x0D: appendRaw(#"\r"#)
            case 0x09: appendRaw(#"\t"#)
            default:
                appendRaw(#"\u00"#)
                bytes.append(Self.hexDigit(byte >> 4))
                bytes.append(Self.hexDigit(byte & 0x0F))
            }
        }
        if runStart < text.count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// Appends `value` in decimal.
    public mutating func appendInteger(_ value: Int) {
        appendInteger(Int64(value))
    }

    /// Appends `value` in decimal.
    public mutating func appendInteger(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude)
    }

    /// Appends `true` or `false`.
    public mutating func appendBool(_ value: Bool) {
        if value { appendRaw("true") } else { appendRaw("false") }
    }

    /// Appends `null`.
    public mutating func appendNull() {
        appendRaw("null")
    }

    /// Appends the decimal digits of `value`, no sign.
    @inline(__always)
    private mutating func appendDigits(_ value: UInt64) {
        // 20 digits hold UInt64.max; fill from the right, then copy once.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var remaining = value
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
            } while remaining != 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Appends `value` as a fixed-point decimal with at most `maxFractionDigits` digits
    /// after the point (clamped to 0...17).
    ///
    /// The value is rounded half away from zero, as its shortest round-trip decimal (what
    /// `value.description` shows) would be by hand: 1.005 becomes "1.01" with two digits
    /// even though the nearest double lies a little below 1.005, and 45.49097500 becomes
    /// "45.490975". Trailing zeros, and a point left bare, are dropped; there is never an
    /// exponent, and a result of zero is "0", never "-0". A NaN or infinite value, which
    /// JSON cannot express, is written as "0": callers that can meet one must map it to
    /// something meaningful first.
    public mutating func appendDecimal(_ value: Double, maxFractionDigits: Int) {
        guard value.isFinite else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        let digits = min(max(maxFractionDigits, 0), 17)
        let scaled = value.magnitude * Self.doublePowersOfTen[digits]
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

    /// Appends `units / 10^fractionDigits`, trailing fraction zeros dropped.
    private mutating func appendFixedPoint(_ units: UInt64, fractionDigits: Int, negative: Bool) {
        guard units != 0 else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        if negative { bytes.append(UInt8(ascii: "-")) }
        let scale = Self.integerPowersOfTen[fractionDigits]
        appendDigits(units / scale)
        var fraction = units % scale
        guard fraction != 0 else { return }
        var width = fractionDigits
        while fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        bytes.append(UInt8(ascii: "."))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
        var position = start + width
        while fraction != 0 {
            position -= 1
            bytes[position] = UInt8(ascii: "0") + UInt8(fraction % 10)
            fraction /= 10
        }
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
            bytes.append(UInt8(ascii: "0"))
            return
        }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        if pointPosition <= 0 {
            bytes.append(UInt8(ascii: "0"))
        } else {
            for index in 0..<pointPosition {
                bytes.append(UInt8(ascii: "0") + (index < digits.count ? digits[index] : 0))
            }
        }
        if digits.count > pointPosition {
            bytes.append(UInt8(ascii: "."))
            if pointPosition < 0 {
                bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -pointPosition))
            }
            for digit in digits[max(pointPosition, 0)...] {
                bytes.append(UInt8(ascii: "0") + digit)
            }
        }
    }

    /// Appends `value` as compact JSON; object members are sorted by key so that the
    /// output is the same on every run.
    public mutating func appendValue(_ value: JSONValue) {
        switch value {
        case .null:
            appendNull()
        case .bool(let flag):
            appendBool(flag)
        case .number(let number):
            if let integer = exactInteger(number), integer.magnitude <= 1 << 53 {
                appendInteger(integer)
            } else if number.isFinite {
                // Swift's shortest round-trip form ("0.1", "1e-05", "1.5e+20") is valid JSON.
                bytes.append(contentsOf: number.description.utf8)
            } else {
                bytes.append(UInt8(ascii: "0"))
            }
        case .string(let text):
            appendString(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                appendValue(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                appendString(key)
                bytes.append(UInt8(ascii: ":"))
                appendValue(members[key]!)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private static let doublePowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
    ]

    private static let integerPowersOfTen: [UInt64] = [
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
        10_000_000_000, 100_000_000_000, 1_000_000_000_000, 10_000_000_000_000,
        100_000_000_000_000, 1_000_000_000_000_000, 10_000_000_000_000_000,
        100_000_000_000_000_000,
    ]
}
