/// The token skippers behind `JSONValidator.isValidObject`.
///
/// Each takes a pointer to the first byte of a token and returns the pointer just past
/// it, or nil if the token is malformed or cut short. They enforce exactly the rules of
/// `ByteScanner` (which `checkObject` and the parser use) but report nothing, so that
/// they need no error values, and they read plain string bytes eight at a time. Those
/// that take `end` never read at or past it; the number and whitespace skippers take
/// none and rely on a byte that stops them, as `walk` guarantees.
extension JSONValidator {
    typealias BytePointer = UnsafePointer<UInt8>

    /// The eight bytes at `pointer` as one word, the first byte in the lowest bits.
    @inline(__always)
    static func word(at pointer: BytePointer) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
    }

    /// Bit 7 of each byte of `word` that is a quote, a backslash, a control character or
    /// not ASCII, plus possibly some bits above the lowest such byte (borrows only run
    /// upwards), so the lowest set bit marks the first byte a string run must stop at.
    @inline(__always)
    static func stringStops(in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let zeroQuote = (quotes &- ones) & ~quotes
        let zeroBackslash = (backslashes &- ones) & ~backslashes
        let control = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | control | word) & (ones &* 0x80)
    }

    /// Skips the string whose opening quote is at `quote`: escapes must be known (and
    /// `\u` surrogates paired), control characters are rejected and UTF-8 must be well-formed.
    @inline(always)
    static func skipString(at quote: BytePointer, end: BytePointer) -> BytePointer? {
        var cursor = quote + 1
        while true {
            if end - cursor >= 8 {
                let stops = stringStops(in: word(at: cursor))
                if stops == 0 {
                    cursor += 8
                    continue
                }
                cursor += stops.trailingZeroBitCount >> 3
            } else {
                guard cursor < end else { return nil }
                let byte = cursor.pointee
                if byte >= 0x20, byte < 0x80, byte != 0x22, byte != 0x5C {
                    cursor += 1
                    continue
                }
            }
            let byte = cursor.pointee
            if byte == 0x22 { return cursor + 1 }
            if byte == 0x5C {
                guard let next = skipEscape(at: cursor, end: end) else { return nil }
                cursor = next
            } else if byte < 0x20 {
                return nil
            } else {
                guard let next = skipMultibyteScalar(at: cursor, end: end) else { return nil }
                cursor = next
            }
        }
    }

    /// Skips the escape whose backslash is at `backslash`.
    static func skipEscape(at backslash: BytePointer, end: BytePointer) -> BytePointer? {
        guard end - backslash >= 2 else { return nil }
        switch backslash[1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return backslash + 2
        case UInt8(ascii: "u"):
            guard end - backslash >= 6, let unit = hex4(at: backslash + 2) else { return nil }
            if unit >= 0xDC00 && unit <= 0xDFFF { return nil }
            guard unit >= 0xD800 && unit <= 0xDBFF else { return backslash + 6 }
            // A high surrogate must be followed at once by an escaped low surrogate.
            guard end - backslash >= 12, backslash[6] == 0x5C, backslash[7] == UInt8(ascii: "u"),
                let low = hex4(at: backslash + 8), low >= 0xDC00 && low <= 0xDFFF
            else { return nil }
            return backslash + 12
        default:
            return nil
        }
    }

    /// The value of the four hex digits at `pointer`, which the caller has bounds-checked.
    @inline(__always)
    static func hex4(at pointer: BytePointer) -> UInt32? {
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = pointer[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Skips the multi-byte UTF-8 sequence whose lead byte is at `lead` (Unicode table
    /// 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
    static func skipMultibyteScalar(at lead: BytePointer, end: BytePointer) -> BytePointer? {
        guard let (length, second) = UTF8Lead.rule(for: lead.pointee) else { return nil }
        guard end - lead >= length else { return nil }
        guard second.contains(lead[1]) else { return nil }
        if length > 2 && lead[2] & 0xC0 != 0x80 { return nil }
        if length > 3 && lead[3] & 0xC0 != 0x80 { return nil }
        return lead + length
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// Skips the number that starts at `start` (a minus sign or a digit), following the
    /// RFC 8259 grammar: no leading zeros, digits on both sides of a point, digits after
    /// an exponent.
    ///
    /// Reads without bounds checks: the input must hold a byte that ends a number (the
    /// "}" that `walk` relies on) somewhere after `start`.
    @inline(always)
    static func skipNumber(at start: BytePointer) -> BytePointer? {
        var cursor = start
        if cursor.pointee == UInt8(ascii: "-") { cursor += 1 }
        if cursor.pointee == UInt8(ascii: "0") {
            cursor += 1
            if isDigit(cursor.pointee) { return nil }
        } else {
            // Integer parts are short (coordinates, small counts): go byte by byte.
            guard isDigit(cursor.pointee) else { return nil }
            cursor += 1
            while isDigit(cursor.pointee) { cursor += 1 }
        }
        if cursor.pointee == UInt8(ascii: ".") {
            cursor += 1
            guard isDigit(cursor.pointee) else { return nil }
            cursor += 1
            while isDigit(cursor.pointee) { cursor += 1 }
        }
        if cursor.pointee | 0x20 == UInt8(ascii: "e") {
            cursor += 1
            if cursor.pointee == UInt8(ascii: "+") || cursor.pointee == UInt8(ascii: "-") { cursor += 1 }
            guard isDigit(cursor.pointee) else { return nil }
            cursor += 1
            while isDigit(cursor.pointee) { cursor += 1 }
        }
        return cursor
    }

    /// Skips the `true`, `false` or `null` at `start`, whose first byte the caller has
    /// found to be a "t", an "f" or an "n".
    @inline(__always)
    static func skipLiteral(at start: BytePointer, end: BytePointer) -> BytePointer? {
        let available = end - start
        switch start.pointee {
        case UInt8(ascii: "t"):
            guard available >= 4, UnsafeRawPointer(start).loadUnaligned(as: UInt32.self) == literal("true") else { return nil }
            return start + 4
        case UInt8(ascii: "n"):
            guard available >= 4, UnsafeRawPointer(start).loadUnaligned(as: UInt32.self) == literal("null") else { return nil }
            return start + 4
        default:
            // "false": the "f" is already known, compare the four bytes after it.
            guard available >= 5, UnsafeRawPointer(start + 1).loadUnaligned(as: UInt32.self) == literal("alse") else { return nil }
            return start + 5
        }
    }

    /// Four ASCII bytes as they lie in memory, read as one native-order word.
    @inline(__always)
    static func literal(_ text: StaticString) -> UInt32 {
        let bytes = text.utf8Start
        return UInt32(littleEndian: UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24)
    }

    /// Whether `byte` is JSON whitespace: space, line feed, carriage return or tab.
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Moves `cursor` past JSON whitespace and returns the byte there.
    ///
    /// Reads without bounds checks: the input must hold a byte other than whitespace
    /// (the "}" that `walk` relies on) at or after `cursor`.
    @inline(__always)
    static func byteAfterWhitespace(_ cursor: inout BytePointer) -> UInt8 {
        var byte = cursor.pointee
        // Records rarely hold whitespace: test for a byte above space first.
        while byte <= 0x20 && isWhitespace(byte) {
            cursor += 1
            byte = cursor.pointee
        }
        return byte
    }

    /// Skips JSON whitespace.
    @inline(__always)
    static func skipWhitespace(from start: BytePointer, end: BytePointer) -> BytePointer {
        var cursor = start
        while cursor < end && isWhitespace(cursor.pointee) { cursor += 1 }
        return cursor
    }
}
