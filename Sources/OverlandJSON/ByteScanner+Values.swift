/// The values of the tokens `ByteScanner` scans: one decoding of strings and numbers for
/// every reader of JSON (the tree of `JSONParser`, the pull reader `JSONReader`).
extension ByteScanner {
    /// The text of the string scanned as `start..<end` (`scanString`'s range), its escapes
    /// decoded.
    func string(from start: Int, to end: Int, hasEscapes: Bool) -> String {
        if !hasEscapes {
            // Already checked to be well-formed UTF-8, so this copies without repair.
            return String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self)
        }
        // Escapes only ever shrink the text, so its length bounds the decoded length.
        return String(unsafeUninitializedCapacity: end - start) { output in
            var index = start
            var written = 0
            func put(_ byte: UInt8) {
                output[written] = byte
                written += 1
            }
            while index < end {
                let byte = base[index]
                guard byte == UInt8(ascii: "\\") else {
                    put(byte)
                    index += 1
                    continue
                }
                let escaped = base[index + 1]
                index += 2
                switch escaped {
                case UInt8(ascii: "b"): put(0x08)
                case UInt8(ascii: "f"): put(0x0C)
                case UInt8(ascii: "n"): put(0x0A)
                case UInt8(ascii: "r"): put(0x0D)
                case UInt8(ascii: "t"): put(0x09)
                case UInt8(ascii: "u"):
                    // The scanner has checked the digits and the pairing already.
                    var scalar = (try? hex4(at: index, escapeAt: index)) ?? 0xFFFD
                    index += 4
                    if scalar >= 0xD800 && scalar <= 0xDBFF {
                        let low = (try? hex4(at: index + 2, escapeAt: index)) ?? 0xDC00
                        index += 6
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    if scalar < 0x80 {
                        put(UInt8(scalar))
                    } else if scalar < 0x800 {
                        put(UInt8(0xC0 | scalar >> 6))
                        put(UInt8(0x80 | scalar & 0x3F))
                    } else if scalar < 0x10000 {
                        put(UInt8(0xE0 | scalar >> 12))
                        put(UInt8(0x80 | scalar >> 6 & 0x3F))
                        put(UInt8(0x80 | scalar & 0x3F))
                    } else {
                        put(UInt8(0xF0 | scalar >> 18))
                        put(UInt8(0x80 | scalar >> 12 & 0x3F))
                        put(UInt8(0x80 | scalar >> 6 & 0x3F))
                        put(UInt8(0x80 | scalar & 0x3F))
                    }
                default: put(escaped)  // '"', '\\' and '/'
                }
            }
            return written
        }
    }

    /// Converts the number text in `start..<end`, already checked against the grammar.
    func number(from start: Int, to end: Int) throws(JSONError) -> Double {
        var index = start
        let negative = base[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var mantissa: UInt64 = 0
        var exponent = 0
        var exact = true
        var seenPoint = false
        while index < end {
            let byte = base[index]
            if byte == UInt8(ascii: ".") {
                seenPoint = true
            } else if ByteScanner.isDigit(byte) {
                if mantissa < (UInt64.max - 9) / 10 {
                    mantissa = mantissa * 10 + UInt64(byte &- UInt8(ascii: "0"))
                    if seenPoint { exponent -= 1 }
                } else {
                    exact = false
                }
            } else {
                break  // 'e' or 'E'
            }
            index += 1
        }
        if index < end {
            index += 1
            var exponentNegative = false
            if base[index] == UInt8(ascii: "-") || base[index] == UInt8(ascii: "+") {
                exponentNegative = base[index] == UInt8(ascii: "-")
                index += 1
            }
            var explicit = 0
            while index < end {
                // Clamped: anything this large overflows or underflows a Double anyway.
                if explicit < 100_000 { explicit = explicit * 10 + Int(base[index] &- UInt8(ascii: "0")) }
                index += 1
            }
            exponent += exponentNegative ? -explicit : explicit
        }
        // Clinger's fast path: an integer below 2^53 and a power of ten up to 1e22 are both
        // exact doubles, so one correctly rounded multiply or divide gives the right answer.
        if exact && mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
            var value = Double(mantissa)
            if exponent < 0 {
                value /= ByteScanner.powersOfTen[-exponent]
            } else if exponent > 0 {
                value *= ByteScanner.powersOfTen[exponent]
            }
            return negative ? -value : value
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONError(.numberOutOfRange, at: start)
        }
        return value
    }

    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]
}
