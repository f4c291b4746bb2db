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
        value.withUTF8 { appendString(utf8: $0) }
    }

    /// Appends the UTF-8 text in `utf8` as a JSON string, escaped as `appendString` does;
    /// the bytes must be well-formed UTF-8.
    public mutating func appendString(utf8: UnsafeBufferPointer<UInt8>) {
        append(atMost: UnsafeJSONCursor.escapedLength(utf8)) { $0.appendString(utf8: utf8) }
    }

    /// Appends `value` in decimal.
    public mutating func appendInteger(_ value: Int) {
        appendInteger(Int64(value))
    }

    /// Appends `value` in decimal.
    public mutating func appendInteger(_ value: Int64) {
        append(atMost: UnsafeJSONCursor.maximumIntegerLength) { $0.appendInteger(value) }
    }

    /// Appends `true` or `false`.
    public mutating func appendBool(_ value: Bool) {
        if value { appendRaw("true") } else { appendRaw("false") }
    }

    /// Appends `null`.
    public mutating func appendNull() {
        appendRaw("null")
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
        append(atMost: UnsafeJSONCursor.maximumDecimalLength(value)) {
            $0.appendDecimal(value, maxFractionDigits: maxFractionDigits)
        }
    }

    /// Reserves room for `maximumCount` bytes at the end of `bytes`, lets `write` fill
    /// some of it through a cursor, and keeps what it wrote: one capacity and uniqueness
    /// check for a run of tokens. `write` must not go past `maximumCount` bytes.
    @inlinable
    package mutating func append(atMost maximumCount: Int, _ write: (inout UnsafeJSONCursor) -> Void) {
        bytes.append(addingCapacity: maximumCount) { span in
            span.withUnsafeMutableBufferPointer { buffer, initializedCount in
                let start = buffer.baseAddress.unsafelyUnwrapped
                var cursor = UnsafeJSONCursor(start)
                write(&cursor)
                let written = cursor.position - start
                // Too late to undo an overrun, but not too late to stop before it spreads.
                precondition(written <= maximumCount, "JSON cursor wrote past its reservation")
                initializedCount = written
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
}
