/// Walks the tokens of a JSON document held in contiguous memory.
///
/// Shared by `JSONParser` and `JSONValidator` so that both accept exactly the same
/// strings, numbers and literals. Every read is checked against `count`; nothing here
/// recurses.
struct ByteScanner {
    let base: UnsafePointer<UInt8>
    let count: Int
    var position: Int = 0

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < count {
            let byte = base[position]
            // Space is by far the most common; test it first.
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            position += 1
        }
    }

    /// The byte at `position`, or an `unexpectedEnd` error.
    @inline(__always)
    func current() throws(JSONError) -> UInt8 {
        guard position < count else { throw JSONError(.unexpectedEnd, at: count) }
        return base[position]
    }

    /// Consumes `expected` at `position` (after whitespace), or throws.
    @inline(__always)
    mutating func expect(_ expected: UInt8) throws(JSONError) {
        skipWhitespace()
        let byte = try current()
        guard byte == expected else { throw JSONError(.unexpectedByte(byte), at: position) }
        position += 1
    }

    /// Scans the string whose opening quote is at `position` and moves past its closing quote.
    ///
    /// Checks escapes (surrogates must pair up), rejects control characters and
    /// ill-formed UTF-8, and returns the byte range between the quotes.
    @inline(__always)
    mutating func scanString(maxBytes: Int) throws(JSONError) -> (start: Int, end: Int, hasEscapes: Bool) {
        let start = position + 1
        var index = start
        var hasEscapes = false
        while true {
            // The common case is a run of plain ASCII; keep that loop tight.
            while index < count {
                let byte = base[index]
                guard byte >= 0x20, byte < 0x80, byte != 0x22, byte != 0x5C else { break }
                index += 1
            }
            guard index < count else { throw JSONError(.unexpectedEnd, at: count) }
            let byte = base[index]
            if byte == 0x22 { break }
            if byte == 0x5C {
                hasEscapes = true
                index = try scanEscape(at: index)
            } else if byte < 0x20 {
                throw JSONError(.controlCharacter(byte), at: index)
            } else {
                index = try scanMultibyteScalar(at: index)
            }
        }
        if index - start > maxBytes { throw JSONError(.stringTooLong(limit: maxBytes), at: start) }
        position = index + 1
        return (start, index, hasEscapes)
    }

    /// Checks the escape whose backslash is at `index`; returns the index after it.
    private func scanEscape(at index: Int) throws(JSONError) -> Int {
        guard index + 1 < count else { throw JSONError(.unexpectedEnd, at: count) }
        switch base[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return index + 2
        case UInt8(ascii: "u"):
            let unit = try hex4(at: index + 2, escapeAt: index)
            if unit >= 0xDC00 && unit <= 0xDFFF { throw JSONError(.unpairedSurrogate, at: index) }
            guard unit >= 0xD800 && unit <= 0xDBFF else { return index + 6 }
            // A high surrogate must be followed at once by an escaped low surrogate:
            // a lone one cannot be represented in a String.
            guard index + 6 < count else { throw JSONError(.unexpectedEnd, at: count) }
            guard base[index + 6] == 0x5C else { throw JSONError(.unpairedSurrogate, at: index) }
            guard index + 7 < count else { throw JSONError(.unexpectedEnd, at: count) }
            guard base[index + 7] == UInt8(ascii: "u") else { throw JSONError(.unpairedSurrogate, at: index) }
            let low = try hex4(at: index + 8, escapeAt: index + 6)
            guard low >= 0xDC00 && low <= 0xDFFF else { throw JSONError(.unpairedSurrogate, at: index) }
            return index + 12
        default:
            throw JSONError(.invalidEscape, at: index)
        }
    }

    /// The value of the four hex digits at `index`.
    @inline(__always)
    func hex4(at index: Int, escapeAt escape: Int) throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard index + offset < count else { throw JSONError(.unexpectedEnd, at: count) }
            let byte = base[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default: throw JSONError(.invalidEscape, at: escape)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Checks the multi-byte UTF-8 sequence starting at `index` (Unicode table 3-7:
    /// no overlong forms, no surrogates, nothing above U+10FFFF); returns the index after it.
    private func scanMultibyteScalar(at index: Int) throws(JSONError) -> Int {
        guard let (length, second) = UTF8Lead.rule(for: base[index]) else { throw JSONError(.invalidUTF8, at: index) }
        guard index + length <= count else { throw JSONError(.unexpectedEnd, at: count) }
        guard second.contains(base[index + 1]) else { throw JSONError(.invalidUTF8, at: index) }
        var offset = 2
        while offset < length {
            guard base[index + offset] & 0xC0 == 0x80 else { throw JSONError(.invalidUTF8, at: index) }
            offset += 1
        }
        return index + length
    }

    /// Scans the number at `position` against the RFC 8259 grammar and moves past it.
    @inline(__always)
    mutating func scanNumber() throws(JSONError) {
        var index = position
        if base[index] == UInt8(ascii: "-") { index += 1 }
        guard index < count else { throw JSONError(.unexpectedEnd, at: count) }
        let first = base[index]
        if first == UInt8(ascii: "0") {
            index += 1
            if index < count && Self.isDigit(base[index]) { throw JSONError(.invalidNumber, at: position) }
        } else if Self.isDigit(first) {
            index = skipDigits(from: index + 1)
        } else {
            throw JSONError(.invalidNumber, at: position)
        }
        if index < count && base[index] == UInt8(ascii: ".") {
            index = try requireDigits(from: index + 1)
        }
        if index < count && (base[index] | 0x20) == UInt8(ascii: "e") {
            index += 1
            if index < count && (base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-")) {
                index += 1
            }
            index = try requireDigits(from: index)
        }
        position = index
    }

    @inline(__always)
    private func requireDigits(from index: Int) throws(JSONError) -> Int {
        guard index < count else { throw JSONError(.unexpectedEnd, at: count) }
        guard Self.isDigit(base[index]) else { throw JSONError(.invalidNumber, at: index) }
        return skipDigits(from: index + 1)
    }

    @inline(__always)
    private func skipDigits(from index: Int) -> Int {
        var index = index
        while index < count && Self.isDigit(base[index]) { index += 1 }
        return index
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// Consumes the literal `true`, `false` or `null` that starts at `position`.
    @inline(__always)
    mutating func scanLiteral(_ literal: StaticString) throws(JSONError) {
        let bytes = literal.utf8Start
        for offset in 0..<literal.utf8CodeUnitCount {
            let index = position + offset
            guard index < count else { throw JSONError(.unexpectedEnd, at: count) }
            guard base[index] == bytes[offset] else {
                throw JSONError(.unexpectedByte(base[index]), at: index)
            }
        }
        position += literal.utf8CodeUnitCount
    }
}

/// What a UTF-8 lead byte allows (Unicode table 3-7: no overlong forms, no surrogates,
/// nothing above U+10FFFF): the sequence's length and the range of its second byte (the
/// others are 0x80...0xBF). Nil for a byte that cannot lead a multi-byte sequence.
enum UTF8Lead {
    @inline(__always)
    static func rule(for lead: UInt8) -> (length: Int, second: ClosedRange<UInt8>)? {
        switch lead {
        case 0xC2...0xDF: return (2, 0x80...0xBF)
        case 0xE0: return (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: return (3, 0x80...0xBF)
        case 0xED: return (3, 0x80...0x9F)
        case 0xF0: return (4, 0x90...0xBF)
        case 0xF1...0xF3: return (4, 0x80...0xBF)
        case 0xF4: return (4, 0x80...0x8F)
        default: return nil
        }
    }
}
