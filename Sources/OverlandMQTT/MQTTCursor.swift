import OverlandJournal

/// The journal as one reader sees it: a destination's cursor, and the lock every reader
/// that moves a cursor or deletes segments holds. The sender uses the journal only through
/// this.
public struct MQTTCursor: Sendable {
    /// The destination's cursor name.
    public let name: String

    public init(name: String) {
        self.name = name
    }

    func lock(_ journal: Journal) throws(JournalError) -> JournalLock? {
        try journal.tryLock("sync.lock")
    }

    func read(_ journal: Journal) throws(JournalError) -> UInt64 {
        try journal.cursor()
    }

    func advance(_ journal: Journal, to next: UInt64) throws(JournalError) {
        try journal.advanceCursor(to: next)
    }

    func backlog(_ journal: Journal) throws(JournalError) -> UInt64 {
        try journal.backlog()
    }

    func removeSentSegments(_ journal: Journal, keepSeconds: Int64) throws(JournalError) {
        try journal.removeSentSegments(keepSeconds: keepSeconds)
    }
}
