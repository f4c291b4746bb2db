/// Why a document was rejected, and the byte offset where that was found.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Equatable {
        /// A byte that cannot appear here.
        case unexpectedByte(UInt8)
        /// The input ended inside a value.
        case unexpectedEnd
        /// Arrays and objects nested deeper than the limit.
        case tooDeep(limit: Int)
        /// The document is longer than the limit.
        case tooLarge(limit: Int)
        /// A string is longer than the limit.
        case stringTooLong(limit: Int)
        /// A string holds bytes that are not well-formed UTF-8.
        case invalidUTF8
        /// A backslash escape that JSON does not define, or a malformed `\u` escape.
        case invalidEscape
        /// A `\u` escape of a UTF-16 surrogate that is not part of a valid pair.
        case unpairedSurrogate
        /// An unescaped control character (below 0x20) inside a string.
        case controlCharacter(UInt8)
        /// A number that does not follow the JSON grammar (leading zero, missing digits).
        case invalidNumber
        /// A number too large in magnitude for a `Double`.
        case numberOutOfRange
        /// Bytes other than whitespace after the value.
        case trailingData
        /// The document is valid JSON but not of the kind required (an object).
        case notAnObject
    }

    /// What was wrong.
    public let reason: Reason
    /// The offset, from the start of the input, of the byte where the problem was found.
    public let offset: Int

    /// Creates an error.
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// A short lower-case phrase, such as "unexpected byte 0x7d at offset 12".
    public var description: String {
        let what: String
        switch reason {
        case .unexpectedByte(let byte): what = "unexpected byte 0x\(Self.hex(byte))"
        case .unexpectedEnd: what = "unexpected end of input"
        case .tooDeep(let limit): what = "nesting deeper than \(limit)"
        case .tooLarge(let limit): what = "document larger than \(limit) bytes"
        case .stringTooLong(let limit): what = "string longer than \(limit) bytes"
        case .invalidUTF8: what = "invalid utf-8 in string"
        case .invalidEscape: what = "invalid escape in string"
        case .unpairedSurrogate: what = "unpaired surrogate escape in string"
        case .controlCharacter(let byte): what = "unescaped control character 0x\(Self.hex(byte)) in string"
        case .invalidNumber: what = "invalid number"
        case .numberOutOfRange: what = "number out of range"
        case .trailingData: what = "trailing data after value"
        case .notAnObject: what = "document is not an object"
        }
        return "\(what) at offset \(offset)"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return byte < 16 ? "0" + digits : digits
    }
}
