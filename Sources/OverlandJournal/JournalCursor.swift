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
        guard bytes.count <= 1024 else { throw .untrusted(path: path, reason: "cursor is larger than 1024 bytes") }
        // A repeated key (`"next"` twice) means what each reader chooses: refused instead.
        // Unknown keys may hold any value a record may (section 9).
        let members: [(key: String, value: Range<Int>)]
        switch TopLevelMembers.checked(bytes) {
        case .members(let found): members = found
        case .refused(let reason): throw .untrusted(path: path, reason: "cursor is \(reason)")
        }
        guard let idText = TopLevelMembers.value("journal_id", in: members, of: bytes)?.string, let id = JournalID(hex: idText) else {
            throw .untrusted(path: path, reason: "cursor journal_id is not 32 hex digits")
        }
        // The parser's numbers are doubles, which cannot tell 2^53 + 1 from 2^53: the digits
        // themselves are read.
        guard let digits = TopLevelMembers.raw("next", in: members, of: bytes),
              let next = TopLevelMembers.plainInteger(digits), next <= Self.maxNext else {
            throw .untrusted(path: path, reason: "cursor next is not a record number (digits, 0 to 2^53)")
        }
        self.journalID = id
        self.next = next
        self.name = TopLevelMembers.value("name", in: members, of: bytes)?.string
    }
}
