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

    /// Moves the cursor durably (one write a run: the `latest` mode).
    func advance(_ journal: Journal, to next: UInt64) throws(JournalError) {
        try CursorWrites.advance(journal, name, to: next)
    }

    /// Records the place in the destination's progress record (a kill -9 keeps it) and makes
    /// it durable when `pacer` says so: at most once a second, as `overland-sync`'s HTTP
    /// destinations do (journal-format.md section 9, "A reader that pipelines").
    func advance(_ journal: Journal, to next: UInt64, pacer: inout DurabilityPacer) throws(JournalError) {
        try CursorWrites.advance(journal, name, to: next, durably: false)
        if pacer.wrote() { try makeDurable(journal, pacer: &pacer) }
    }

    /// Makes the place recorded so far durable (the cursor file written there).
    func makeDurable(_ journal: Journal, pacer: inout DurabilityPacer) throws(JournalError) {
        try CursorWrites.makeDurable(journal, name)
        pacer.madeDurable()
    }

    func backlog(_ journal: Journal) throws(JournalError) -> UInt64 {
        try journal.backlog(for: name)
    }
}
