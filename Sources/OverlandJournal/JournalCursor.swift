import OverlandJSON

/// `cursor.json` (the floor) or `cursors/NAME.json` (one reader's cursor): the sequence
/// number of the first record not yet acknowledged. Replaced whole and durably, so after a
/// crash it is the old or the new value.
public struct JournalCursor: Sendable, Equatable {
    public var journalID: JournalID
    /// The first unsent record's sequence number.
    public var next: UInt64
    /// The reader's name, in a named cursor (`cursors/NAME.json`); nil in `cursor.json`.
    public var name: String?

    public init(journalID: JournalID, next: UInt64, name: String? = nil) {
        self.journalID = journalID
        self.next = next
        self.name = name
    }

    var encoded: [UInt8] {
        var writer = JSONWriter()
        writer.appendRaw("{\"journal_id\":")
        writer.appendString(journalID.description)
        writer.appendRaw(",\"next\":")
        writer.appendInteger(Int64(next))
        if let name {
            writer.appendRaw(",\"name\":")
            writer.appendString(name)
        }
        writer.appendRaw("}\n" as StaticString)
        return writer.bytes
    }

    /// The largest `next`: the cursor after a record numbered 2^53 - 1.
    public static let maxNext: UInt64 = 1 << 53

    /// Parses a cursor (journal-format.md section 9): a JSON object whose `journal_id` is 32
    /// hex digits and whose `next` is written as plain decimal digits, from 0 to 2^53. `name`
    /// is read when it is a string (a named cursor's reader compares it with the file name).
    init(parsing bytes: [UInt8], path: String) throws(JournalError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: JSONLimits(maxDepth: 64, maxBytes: 1024))
        } catch {
            throw .untrusted(path: path, reason: "cursor is not JSON (\(error))")
        }
        guard value.object != nil else { throw .untrusted(path: path, reason: "cursor is not a JSON object") }
        guard let idText = value["journal_id"]?.string, let id = JournalID(hex: idText) else {
            throw .untrusted(path: path, reason: "cursor journal_id is not 32 hex digits")
        }
        // The parser's numbers are doubles, which cannot tell 2^53 + 1 from 2^53: the digits
        // themselves are read.
        guard value["next"]?.double != nil, let digits = Self.topLevelLiteral(of: "next", in: bytes),
              let next = Self.plainInteger(digits), next <= Self.maxNext else {
            throw .untrusted(path: path, reason: "cursor next is not a record number (digits, 0 to 2^53)")
        }
        self.journalID = id
        self.next = next
        self.name = value["name"]?.string
    }

    /// Plain decimal digits without a leading zero (but for 0) as a number, nil on overflow.
    private static func plainInteger(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 19, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              digits.first != UInt8(ascii: "0") || digits.count == 1 else { return nil }
        return digits.reduce(UInt64(0)) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
    }

    /// The raw bytes of the value of `key` (written without escapes) in the top-level
    /// object of `bytes`, a document the parser accepted; the last one if the key repeats.
    private static func topLevelLiteral(of key: String, in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        let keyBytes = Array(key.utf8)
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
        var found: Range<Int>?
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
            if bytes[name].elementsEqual(keyBytes) { found = value }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { break }
            index += 1
        }
        return found.map { bytes[$0] }
    }
}
