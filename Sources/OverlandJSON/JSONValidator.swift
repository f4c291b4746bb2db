/// A syntax-only check that bytes hold exactly one JSON object, building nothing.
///
/// It applies the grammar of `JSONParser` (same strings, escapes, UTF-8 and number rules)
/// with one difference: it does not convert numbers, so it accepts a number too large for
/// a `Double` (such as `1e400`) that the parser rejects. Whitespace around the object is
/// allowed; anything else around it is not. Nesting is tracked in a small scratch buffer,
/// never by recursion.
///
/// `isValidObject` runs for every journal record written or read, so it has its own walk
/// over raw pointers that only answers yes or no (`JSONValidator+Tokens.swift`);
/// `checkObject` says what is wrong and where, through `ByteScanner` like the parser.
/// The two must accept exactly the same documents: `JSONValidatorEdgeCaseTests` compares them.
public enum JSONValidator {
    /// Whether `bytes` hold exactly one JSON object nested at most `maxDepth` deep.
    public static func isValidObject(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 64) -> Bool {
        guard maxDepth > 0, let base = bytes.baseAddress, bytes.count > 0 else { return false }
        let start = base.assumingMemoryBound(to: UInt8.self)
        let first = skipWhitespace(from: start, end: start + bytes.count)
        guard first < start + bytes.count, first.pointee == UInt8(ascii: "{") else { return false }
        // The object must end with the last non-whitespace byte, a "}". The walk stops
        // there (trailing whitespace is fine, so not looking at it changes nothing), and
        // that brace is the sentinel that lets it skip whitespace and digits unchecked.
        var last = start + bytes.count - 1
        while isWhitespace(last.pointee) { last -= 1 }  // Stops at `first` at the latest.
        guard last.pointee == UInt8(ascii: "}") else { return false }
        return withUnsafeTemporaryAllocation(of: Bool.self, capacity: maxDepth) { isObject in
            walk(from: first, end: last + 1, isObject: isObject)
        }
    }

    /// Whether `bytes` (an array, a slice...) hold exactly one JSON object nested at most `maxDepth` deep.
    public static func isValidObject(_ bytes: some Collection<UInt8>, maxDepth: Int = 64) -> Bool {
        if let result = bytes.withContiguousStorageIfAvailable({
            isValidObject(UnsafeRawBufferPointer($0), maxDepth: maxDepth)
        }) {
            return result
        }
        return Array(bytes).withUnsafeBytes { isValidObject($0, maxDepth: maxDepth) }
    }

    /// Checks that `bytes` hold exactly one JSON object nested at most `maxDepth` deep,
    /// throwing the first problem found.
    public static func checkObject(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 64) throws(JSONError) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { throw JSONError(.unexpectedEnd, at: 0) }
        var scanner = ByteScanner(base: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        scanner.skipWhitespace()
        guard try scanner.current() == UInt8(ascii: "{") else {
            throw JSONError(.notAnObject, at: scanner.position)
        }
        guard maxDepth > 0 else { throw JSONError(.tooDeep(limit: maxDepth), at: scanner.position) }
        let outcome = withUnsafeTemporaryAllocation(of: Bool.self, capacity: maxDepth) { isObject -> JSONError? in
            do throws(JSONError) {
                try check(&scanner, isObject: isObject)
                return nil
            } catch {
                return error
            }
        }
        if let outcome { throw outcome }
    }

    /// Walks the document; `isObject[level]` records what kind each open container is.
    @inline(__always)
    private static func check(_ scanner: inout ByteScanner, isObject: UnsafeMutableBufferPointer<Bool>) throws(JSONError) {
        let maxDepth = isObject.count
        var depth = 0
        nextValue: while true {
            scanner.skipWhitespace()
            let byte = try scanner.current()
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < maxDepth else { throw JSONError(.tooDeep(limit: maxDepth), at: scanner.position) }
                scanner.position += 1
                scanner.skipWhitespace()
                let object = byte == UInt8(ascii: "{")
                if try scanner.current() == (object ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    scanner.position += 1
                } else {
                    isObject[depth] = object
                    depth += 1
                    if object { try skipKey(&scanner) }
                    continue nextValue
                }
            case UInt8(ascii: "\""):
                _ = try scanner.scanString(maxBytes: Int.max)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try scanner.scanNumber()
            case UInt8(ascii: "t"):
                try scanner.scanLiteral("true")
            case UInt8(ascii: "f"):
                try scanner.scanLiteral("false")
            case UInt8(ascii: "n"):
                try scanner.scanLiteral("null")
            default:
                throw JSONError(.unexpectedByte(byte), at: scanner.position)
            }

            // A value is complete: expect a comma or the closing bracket of its container.
            while depth > 0 {
                scanner.skipWhitespace()
                let separator = try scanner.current()
                let object = isObject[depth - 1]
                if separator == UInt8(ascii: ",") {
                    scanner.position += 1
                    if object { try skipKey(&scanner) }
                    continue nextValue
                }
                guard separator == (object ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw JSONError(.unexpectedByte(separator), at: scanner.position)
                }
                scanner.position += 1
                depth -= 1
            }
            break
        }
        scanner.skipWhitespace()
        guard scanner.position == scanner.count else { throw JSONError(.trailingData, at: scanner.position) }
    }

    /// The yes-or-no twin of `check`, over raw pointers with the token skippers of
    /// `JSONValidator+Tokens.swift`. Keys and string values share one string scan
    /// (`expectKey` says which this is), so that it is inlined once, not twice.
    ///
    /// `end - 1` holds a "}". Memory safety rests on this invariant: wherever the walk reads
    /// `cursor.pointee` without comparing with `end`, `cursor` is at most `end - 1`. It holds
    /// because every token, and every whitespace or digit run, stops at that brace at the
    /// latest, and a token other than "}" that lies inside `end` ends before `end - 1`; so
    /// only consuming a "}" can bring `cursor` to `end`, and the loop that consumes closing
    /// brackets checks for that before it reads again.
    private static func walk(from start: BytePointer, end: BytePointer, isObject: UnsafeMutableBufferPointer<Bool>) -> Bool {
        let maxDepth = isObject.count
        var depth = 0
        var inObject = false
        var expectKey = false
        var cursor = start
        nextValue: while true {
            let byte = byteAfterWhitespace(&cursor)
            if byte == UInt8(ascii: "\"") {
                guard let next = skipString(at: cursor, end: end) else { return false }
                cursor = next
                if expectKey {
                    guard byteAfterWhitespace(&cursor) == UInt8(ascii: ":") else { return false }
                    cursor += 1
                    expectKey = false
                    continue nextValue
                }
            } else {
                if expectKey { return false }
                switch byte {
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    guard let next = skipNumber(at: cursor) else { return false }
                    cursor = next
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard depth < maxDepth else { return false }
                    cursor += 1
                    let object = byte == UInt8(ascii: "{")
                    if byteAfterWhitespace(&cursor) != (object ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        isObject[depth] = object
                        depth += 1
                        inObject = object
                        expectKey = object
                        continue nextValue
                    }
                    cursor += 1
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    guard let next = skipLiteral(at: cursor, end: end) else { return false }
                    cursor = next
                default:
                    return false
                }
            }

            // A value is complete: expect a comma or the closing bracket of its container.
            while depth > 0 {
                // Only a "}" just consumed (closing this value or an empty object) can
                // have brought `cursor` to `end`.
                guard cursor < end else { return false }
                let separator = byteAfterWhitespace(&cursor)
                cursor += 1
                if separator == UInt8(ascii: ",") {
                    expectKey = inObject
                    continue nextValue
                }
                guard separator == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
                depth -= 1
                inObject = depth > 0 && isObject[depth - 1]
            }
            return cursor == end
        }
    }

    @inline(__always)
    private static func skipKey(_ scanner: inout ByteScanner) throws(JSONError) {
        scanner.skipWhitespace()
        let byte = try scanner.current()
        guard byte == UInt8(ascii: "\"") else { throw JSONError(.unexpectedByte(byte), at: scanner.position) }
        _ = try scanner.scanString(maxBytes: Int.max)
        try scanner.expect(UInt8(ascii: ":"))
    }
}
