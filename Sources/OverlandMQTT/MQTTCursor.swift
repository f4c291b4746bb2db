import OverlandJournal
import OverlandSync

/// The journal as one MQTT destination sees it: its named cursor (journal-format.md,
/// section 9). The sender uses the journal only through this and the journal's reader.
/// Cursor writes go through `CursorWrites`, in turn with the other destinations of the run.
public struct MQTTCursor: Sendable {
    /// The destination's cursor name.
    public let name: CursorName

    public init(name: CursorName) {
        self.name = name
    }

    func read(_ journal: Journal) throws(JournalError) -> UInt64 {
        try journal.cursor(for: name)
    }

    func advance(_ journal: Journal, to next: UInt64) throws(JournalError) {
        try CursorWrites.advance(journal, name, to: next)
    }

    func backlog(_ journal: Journal) throws(JournalError) -> UInt64 {
        try journal.backlog(for: name)
    }
}
