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
        // A repeated key (`"next"` twice) means what each reader chooses: refused instead.
        guard let members = TopLevelMembers.of(bytes), TopLevelMembers.keysAreUnique(members) else {
            throw .untrusted(path: path, reason: "cursor repeats a key")
        }
        // The parser's numbers are doubles, which cannot tell 2^53 + 1 from 2^53: the digits
        // themselves are read.
        guard value["next"]?.double != nil, let digits = members.last(where: { $0.key == "next" }).map({ bytes[$0.value] }),
              let next = TopLevelMembers.plainInteger(digits), next <= Self.maxNext else {
            throw .untrusted(path: path, reason: "cursor next is not a record number (digits, 0 to 2^53)")
        }
        self.journalID = id
        self.next = next
        self.name = value["name"]?.string
    }
}
