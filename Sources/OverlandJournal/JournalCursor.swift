import OverlandJSON

/// `cursor.json`: the sequence number of the first record not yet acknowledged by the
/// server. Replaced whole and durably, so after a crash it is the old or the new value.
public struct JournalCursor: Sendable, Equatable {
    public var journalID: JournalID
    /// The first unsent record's sequence number.
    public var next: UInt64

    public init(journalID: JournalID, next: UInt64) {
        self.journalID = journalID
        self.next = next
    }

    var encoded: [UInt8] {
        var writer = JSONWriter()
        writer.appendRaw("{\"journal_id\":")
        writer.appendString(journalID.description)
        writer.appendRaw(",\"next\":")
        writer.appendInteger(Int64(next))
        writer.appendRaw("}\n" as StaticString)
        return writer.bytes
    }

    init(parsing bytes: [UInt8], path: String) throws(JournalError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: JSONLimits(maxDepth: 2, maxBytes: 1024))
        } catch {
            throw .untrusted(path: path, reason: "cursor is not JSON (\(error))")
        }
        guard let idText = value["journal_id"]?.string, let id = JournalID(hex: idText) else {
            throw .untrusted(path: path, reason: "cursor journal_id is not 32 hex digits")
        }
        guard let number = value["next"]?.double, SequenceNumber.isValidEnd(number) else {
            throw .untrusted(path: path, reason: "cursor next is not a record number (0 to 2^53)")
        }
        self.journalID = id
        self.next = UInt64(number)
    }
}
