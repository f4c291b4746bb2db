/// A syntax-only check that bytes hold exactly one JSON object, building nothing.
///
/// It applies the grammar of `JSONParser` (same strings, escapes, UTF-8 and number rules)
/// with one difference: it does not convert numbers, so it accepts a number too large for
/// a `Double` (such as `1e400`) that the parser rejects. Whitespace around the object is
/// allowed; anything else around it is not. Nesting is tracked in a small scratch buffer,
/// never by recursion.
public enum JSONValidator {
    /// Whether `bytes` hold exactly one JSON object nested at most `maxDepth` deep.
    public static func isValidObject(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 64) -> Bool {
        do {
            try checkObject(bytes, maxDepth: maxDepth)
            return true
        } catch {
            return false
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

    @inline(__always)
    private static func skipKey(_ scanner: inout ByteScanner) throws(JSONError) {
        scanner.skipWhitespace()
        let byte = try scanner.current()
        guard byte == UInt8(ascii: "\"") else { throw JSONError(.unexpectedByte(byte), at: scanner.position) }
        _ = try scanner.scanString(maxBytes: Int.max)
        try scanner.expect(UInt8(ascii: ":"))
    }
}
