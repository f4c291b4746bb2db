import OverlandJSON

/// The top-level members of a small JSON object file (a cursor, the manifest) as written:
/// what the parser's values cannot tell, such as a repeated key (the parser keeps the last)
/// or a number's exact digits (the parser's numbers are doubles).
enum TopLevelMembers {
    /// The members of the top-level object of `bytes`, a document the parser accepted: each
    /// key (its escapes decoded) and the raw bytes of its value, in file order.
    static func of(_ bytes: [UInt8]) -> [(key: String, value: Range<Int>)]? {
        var index = 0
        func skipWhitespace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }
        func skipString() -> Range<Int> {  // index at the opening quote; returns the contents
            index += 1
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            defer { index += 1 }
            return start..<min(index, bytes.count)
        }
        func skipValue() -> Range<Int> {
            let start = index
            guard index < bytes.count else { return start..<index }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                _ = skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                repeat {
                    switch bytes[index] {
                    case UInt8(ascii: "\""): _ = skipString(); continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                    default: break
                    }
                    index += 1
                } while depth > 0 && index < bytes.count
            default:  // a number or a literal
                while index < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), 0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) {
                    index += 1
                }
            }
            return start..<index
        }
        var members: [(key: String, value: Range<Int>)] = []
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { break }
            let name = skipString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipWhitespace()
            let value = skipValue()
            guard case .string(let key)? = try? JSONParser.parse(bytes[(name.lowerBound - 1)..<(name.upperBound + 1)]) else {
                return nil
            }
            members.append((key, value))
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { break }
            index += 1
        }
        return members
    }

    /// Plain decimal digits without a leading zero (but for 0) as a number, nil on overflow.
    static func plainInteger(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 19, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              digits.first != UInt8(ascii: "0") || digits.count == 1 else { return nil }
        return digits.reduce(UInt64(0)) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
    }

    /// Whether no key repeats.
    static func keysAreUnique(_ members: [(key: String, value: Range<Int>)]) -> Bool {
        Set(members.map(\.key)).count == members.count
    }

    /// The deepest nesting a manifest or cursor may hold, the top object counting as 1: the
    /// records' bound (journal-format.md sections 2, 3 and 9), so that a later minor version
    /// may add a nested key without locking this one out.
    static let maxDepth = 64

    /// The members of a small JSON object file (the manifest, a cursor) read by the rules
    /// of section 3 for a record (RFC 8259, UTF-8, paired surrogate escapes, any number's
    /// magnitude, nesting at most `maxDepth`: what unknown keys may hold) with no key
    /// repeated; `.failure` says what is wrong. Only the known keys' values are parsed.
    static func checked(_ bytes: [UInt8]) -> Checked {
        let syntax = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONError) in try JSONValidator.checkObject(raw, maxDepth: maxDepth) }
        }
        if case .failure(let error) = syntax { return .refused("not one JSON object (\(error))") }
        guard let members = of(bytes), keysAreUnique(members) else { return .refused("not one JSON object without repeated keys") }
        return .members(members)
    }

    /// What `checked(_:)` found: the members, or why the file is not read.
    enum Checked {
        case members([(key: String, value: Range<Int>)])
        case refused(String)
    }

    /// The value of `key` (its last member) parsed, nil when absent.
    static func value(_ key: String, in members: [(key: String, value: Range<Int>)], of bytes: [UInt8]) -> JSONValue? {
        guard let range = members.last(where: { $0.key == key })?.value else { return nil }
        return try? JSONParser.parse(bytes[range], limits: JSONLimits(maxDepth: maxDepth, maxBytes: bytes.count))
    }

    /// The raw bytes of `key`'s value, nil when absent.
    static func raw(_ key: String, in members: [(key: String, value: Range<Int>)], of bytes: [UInt8]) -> ArraySlice<UInt8>? {
        members.last(where: { $0.key == key }).map { bytes[$0.value] }
    }
}
