/// A pull reader of one JSON document: its tokens in order, with no tree built.
///
/// For the hot paths that want a few known members of a small document (a journal
/// record): they read the members they know and `skip` the rest, instead of hashing every
/// key into a dictionary. It accepts exactly what `JSONParser` accepts under the same
/// limits (the same `ByteScanner` scans each token and the same decoding gives its value),
/// so a document read here is one the parser would have read, and each value the same.
public struct JSONReader {
    /// A string's bytes in the document, between its quotes.
    public struct Text: Sendable, Equatable {
        let start: Int
        let end: Int
        /// Whether it holds escapes (its bytes are then not its text).
        public let hasEscapes: Bool
    }

    public enum Token: Sendable, Equatable {
        case objectStart, objectEnd, arrayStart, arrayEnd
        /// An object member's key; its value is the next token.
        case key(Text)
        case string(Text)
        case number(Double)
        case bool(Bool)
        case null
        /// The document is complete (nothing but whitespace after it).
        case end
    }

    private enum Expect { case value, firstValueOrEnd, firstKeyOrEnd, key, afterValue }

    private var scanner: ByteScanner
    private let limits: JSONLimits
    /// One bit per open container, set for an object; `depth` of them are open.
    private var objects: UInt64 = 0
    private var depth = 0
    private var expect = Expect.value

    /// Reads `bytes` with `body`; false when `body` gives false or the document breaks a
    /// rule of `JSONParser` (or `limits`, whose `maxDepth` is at most 64). Not generic over
    /// what `body` finds (it keeps that itself), so that a call costs no type metadata.
    public static func read(
        _ bytes: ArraySlice<UInt8>, limits: JSONLimits, _ body: (inout JSONReader) throws(JSONError) -> Bool
    ) -> Bool {
        precondition(limits.maxDepth <= 64, "JSONReader keeps at most 64 levels")
        guard bytes.count <= limits.maxBytes else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return false }
            var reader = JSONReader(scanner: ByteScanner(base: base, count: buffer.count), limits: limits)
            return (try? body(&reader)) ?? false
        }
    }

    private init(scanner: ByteScanner, limits: JSONLimits) {
        self.scanner = scanner
        self.limits = limits
    }

    /// The next token; throws where `JSONParser` would.
    public mutating func next() throws(JSONError) -> Token {
        scanner.skipWhitespace()
        switch expect {
        case .afterValue:
            guard depth > 0 else {
                guard scanner.position == scanner.count else { throw JSONError(.trailingData, at: scanner.position) }
                return .end
            }
            let byte = try scanner.current()
            let inObject = objects & (1 << (depth - 1)) != 0
            if byte == UInt8(ascii: ",") {
                scanner.position += 1
                if inObject { return try key() }
                return try value()
            }
            guard byte == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                throw JSONError(.unexpectedByte(byte), at: scanner.position)
            }
            return close(inObject)
        case .firstKeyOrEnd:
            if try scanner.current() == UInt8(ascii: "}") { return close(true) }
            return try key()
        case .firstValueOrEnd:
            if try scanner.current() == UInt8(ascii: "]") { return close(false) }
            return try value()
        case .key:
            return try key()
        case .value:
            return try value()
        }
    }

    /// Skips the value whose first token was `token` (a whole container after its start).
    public mutating func skip(_ token: Token) throws(JSONError) {
        guard token == .objectStart || token == .arrayStart else { return }
        let level = depth
        while depth >= level { _ = try next() }
    }

    /// The text of a string or key.
    public func string(_ text: Text) -> String {
        scanner.string(from: text.start, to: text.end, hasEscapes: text.hasEscapes)
    }

    /// Whether a key or string is `literal` (its escapes decoded).
    public func text(_ text: Text, is literal: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        if text.hasEscapes { return string(text).utf8.elementsEqual(expected) }
        return bytes(text).elementsEqual(expected)
    }

    /// The bytes of a key or string as they stand in the document (escapes not decoded),
    /// valid while the document is being read.
    public func bytes(_ text: Text) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: scanner.base + text.start, count: text.end - text.start)
    }

    private mutating func close(_ inObject: Bool) -> Token {
        scanner.position += 1
        depth -= 1
        objects &= ~(1 << depth)
        expect = .afterValue
        return inObject ? .objectEnd : .arrayEnd
    }

    private mutating func key() throws(JSONError) -> Token {
        scanner.skipWhitespace()
        let byte = try scanner.current()
        guard byte == UInt8(ascii: "\"") else { throw JSONError(.unexpectedByte(byte), at: scanner.position) }
        let (start, end, hasEscapes) = try scanner.scanString(maxBytes: limits.maxStringBytes)
        try scanner.expect(UInt8(ascii: ":"))
        expect = .value
        return .key(Text(start: start, end: end, hasEscapes: hasEscapes))
    }

    private mutating func value() throws(JSONError) -> Token {
        scanner.skipWhitespace()
        let byte = try scanner.current()
        expect = .afterValue
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < limits.maxDepth else { throw JSONError(.tooDeep(limit: limits.maxDepth), at: scanner.position) }
            scanner.position += 1
            let isObject = byte == UInt8(ascii: "{")
            if isObject { objects |= 1 << depth }
            depth += 1
            expect = isObject ? .firstKeyOrEnd : .firstValueOrEnd
            return isObject ? .objectStart : .arrayStart
        case UInt8(ascii: "\""):
            let (start, end, hasEscapes) = try scanner.scanString(maxBytes: limits.maxStringBytes)
            return .string(Text(start: start, end: end, hasEscapes: hasEscapes))
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
            return .number(try scanner.number(from: start, to: scanner.position))
        default:
            throw JSONError(.unexpectedByte(byte), at: scanner.position)
        }
    }
}
