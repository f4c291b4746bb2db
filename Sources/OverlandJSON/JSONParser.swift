/// A strict RFC 8259 parser from bytes to `JSONValue`.
///
/// Accepts any value at the top level, with optional surrounding whitespace, and nothing
/// after it. Rejects leading zeros, `NaN` and `Infinity`, unescaped control characters,
/// ill-formed UTF-8, unknown escapes and unpaired surrogate escapes (they cannot be held
/// in a `String`), and numbers too large for a `Double` (RFC 8259 section 6 allows such
/// a limit). A repeated object key keeps its last value. The parser does not recurse:
/// nesting costs heap, bounded by `JSONLimits.maxDepth`.
public enum JSONParser {
    /// Parses one JSON document held in `bytes`.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer,
        limits: JSONLimits = JSONLimits()
    ) throws(JSONError) -> JSONValue {
        guard bytes.count <= limits.maxBytes else {
            throw JSONError(.tooLarge(limit: limits.maxBytes), at: limits.maxBytes)
        }
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw JSONError(.unexpectedEnd, at: 0)
        }
        var parser = TreeBuilder(
            scanner: ByteScanner(base: base.assumingMemoryBound(to: UInt8.self), count: bytes.count),
            limits: limits
        )
        return try parser.parseDocument()
    }

    /// Parses one JSON document held in `bytes` (an array, a slice, a `String.UTF8View`...).
    public static func parse(
        _ bytes: some Collection<UInt8>,
        limits: JSONLimits = JSONLimits()
    ) throws(JSONError) -> JSONValue {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            parseCatching(UnsafeRawBufferPointer(buffer), limits: limits)
        }
        if let contiguous { return try contiguous.get() }
        return try Array(bytes).withUnsafeBytes { parseCatching($0, limits: limits) }.get()
    }

    /// Parses one JSON document held in `text`.
    public static func parse(_ text: String, limits: JSONLimits = JSONLimits()) throws(JSONError) -> JSONValue {
        var text = text
        return try text.withUTF8 { parseCatching(UnsafeRawBufferPointer($0), limits: limits) }.get()
    }

    // Closures of rethrowing stdlib functions lose the typed error; carry it in a Result.
    private static func parseCatching(_ bytes: UnsafeRawBufferPointer, limits: JSONLimits) -> Result<JSONValue, JSONError> {
        do {
            return .success(try parse(bytes, limits: limits))
        } catch {
            return .failure(error)
        }
    }
}

/// The working state of one parse: the scanner plus a stack of open containers.
private struct TreeBuilder {
    var scanner: ByteScanner
    let limits: JSONLimits

    // One entry per open container; `isObject` says which of the other stacks it uses.
    var isObject: [Bool] = []
    var arrays: [[JSONValue]] = []
    var objects: [[String: JSONValue]] = []
    var keys: [String] = []

    init(scanner: ByteScanner, limits: JSONLimits) {
        self.scanner = scanner
        self.limits = limits
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        while true {
            scanner.skipWhitespace()
            guard let value = try valueOrOpen(), let document = try hand(value) else { continue }
            scanner.skipWhitespace()
            guard scanner.position == scanner.count else {
                throw JSONError(.trailingData, at: scanner.position)
            }
            return document
        }
    }

    /// The value at the scanner: a scalar or an empty container; nil when it opened a
    /// container whose first value comes next.
    private mutating func valueOrOpen() throws(JSONError) -> JSONValue? {
        let byte = try scanner.current()
        switch byte {
        case UInt8(ascii: "{"):
            try open()
            scanner.skipWhitespace()
            if try scanner.current() == UInt8(ascii: "}") {
                scanner.position += 1
                return .object([:])
            }
            isObject.append(true)
            objects.append([:])
            keys.append(try parseKey())
            return nil
        case UInt8(ascii: "["):
            try open()
            scanner.skipWhitespace()
            if try scanner.current() == UInt8(ascii: "]") {
                scanner.position += 1
                return .array([])
            }
            isObject.append(false)
            arrays.append([])
            return nil
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try scanner.scanLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try scanner.scanLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try scanner.scanLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = scanner.position
            try scanner.scanNumber()
            return .number(try number(from: start, to: scanner.position))
        default:
            throw JSONError(.unexpectedByte(byte), at: scanner.position)
        }
    }

    /// A value is complete: hands it to the innermost open container, closing containers
    /// for as long as their closing bracket follows. The document when the outermost
    /// closed (or the value was all of it); nil when another value follows a comma.
    private mutating func hand(_ complete: JSONValue) throws(JSONError) -> JSONValue? {
        var value = complete
        while let inObject = isObject.last {
            scanner.skipWhitespace()
            let separator = try scanner.current()
            if inObject {
                objects[objects.count - 1][keys.removeLast()] = value
            } else {
                arrays[arrays.count - 1].append(value)
            }
            if separator == UInt8(ascii: ",") {
                scanner.position += 1
                if inObject { keys.append(try parseKey()) }
                return nil
            }
            guard separator == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                throw JSONError(.unexpectedByte(separator), at: scanner.position)
            }
            scanner.position += 1
            isObject.removeLast()
            value = inObject ? .object(objects.removeLast()) : .array(arrays.removeLast())
        }
        return value
    }

    /// Counts the container whose opening bracket is at `position` and moves past it.
    @inline(__always)
    private mutating func open() throws(JSONError) {
        guard isObject.count < limits.maxDepth else {
            throw JSONError(.tooDeep(limit: limits.maxDepth), at: scanner.position)
        }
        scanner.position += 1
    }

    /// Reads `"key" :` and leaves the scanner at the member's value.
    private mutating func parseKey() throws(JSONError) -> String {
        scanner.skipWhitespace()
        let byte = try scanner.current()
        guard byte == UInt8(ascii: "\"") else { throw JSONError(.unexpectedByte(byte), at: scanner.position) }
        let key = try parseString()
        try scanner.expect(UInt8(ascii: ":"))
        return key
    }

    private mutating func parseString() throws(JSONError) -> String {
        let (start, end, hasEscapes) = try scanner.scanString(maxBytes: limits.maxStringBytes)
        return scanner.string(from: start, to: end, hasEscapes: hasEscapes)
    }

    private func number(from start: Int, to end: Int) throws(JSONError) -> Double {
        try scanner.number(from: start, to: end)
    }
}
