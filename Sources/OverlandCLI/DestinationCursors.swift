import OverlandJournal
import OverlandSync

/// A destination's cursor in the configured journal: placed when the destination is added,
/// deleted (with its sync state) when it is removed. Both hold the journal's cursor lock,
/// so they never race a sync run.
enum DestinationCursors {
    /// Where a new destination starts.
    struct Start {
        var journalPath: String
        /// False when no journal exists yet: the destination starts with the first point logged.
        var journalExists: Bool
        var next: UInt64 = 0
        var end: UInt64 = 0

        func description(fromStart: Bool) -> String {
            guard journalExists else {
                return "no journal yet at \(journalPath): it gets every point from the first one logged"
            }
            if fromStart {
                return "starts at the journal's first record (\(next)): \(end - next) records wait to be sent to it"
            }
            return "starts at the journal's end (record \(end)): it gets the points logged from now on "
                + "(remove it and add it again with --from-start to send it the \(end - min(end, next)) records already there)"
        }
    }

    /// Places the cursor `name` at the end of the journal at `journalPath` (at its first
    /// record with `fromStart`), then runs `save` (which records the destination), all
    /// under the journal's cursor lock. A cursor left by an interrupted removal is
    /// replaced; when `save` fails, the new cursor is deleted again.
    static func place(_ name: String, journalPath: String, fromStart: Bool, then save: () throws -> Void) throws -> Start {
        guard StatusCommand.exists(journalPath) else {
            try save()
            return Start(journalPath: journalPath, journalExists: false)
        }
        let journal = try Journal(path: journalPath)
        let cursor = try cursorName(name)
        let lock = try lockCursors(journal)
        defer { withExtendedLifetime(lock) {} }
        let end = try journal.endSequence()
        let next = fromStart ? (try journal.segments().first.map { min($0.firstSequence, end) } ?? end) : end
        // Copy detection remembers how far this journal's cursor (the floor of every
        // destination's) has come, and refuses a journal whose floor went back as an
        // older copy. A destination starting from the start lowers the floor on purpose:
        // a journal this machine syncs as its own is registered with the lower floor.
        let ownJournal = fromStart && (try? JournalOrigin.check(journal: journal, acceptCopy: false)) != nil
        try journal.removeCursor(for: cursor)
        try journal.removeState(SyncState.fileName(forDestination: name))
        try journal.advanceCursor(for: cursor, to: next)
        if ownJournal { _ = try? JournalOrigin.check(journal: journal, acceptCopy: true) }
        do {
            try save()
        } catch {
            try? journal.removeCursor(for: cursor)
            throw error
        }
        return Start(journalPath: journalPath, journalExists: true, next: next, end: end)
    }

    /// Deletes the cursor `name` and its sync state from the journal at `journalPath`, then
    /// the sealed segments every remaining reader (`readers`) has passed and that are older
    /// than `keepSeconds` (what only `name` still held); true when the cursor or the state
    /// was there.
    static func release(_ name: String, journalPath: String, readers: [String], keepSeconds: Int64) throws -> Bool {
        guard StatusCommand.exists(journalPath) else { return false }
        let journal = try Journal(path: journalPath)
        let cursor = try cursorName(name)
        let lock = try lockCursors(journal)
        defer { withExtendedLifetime(lock) {} }
        let stateFile = SyncState.fileName(forDestination: name)
        let held = try journal.cursorNames().contains(cursor) || (try journal.readState(stateFile)) != nil
        try journal.removeCursor(for: cursor)
        try journal.removeState(stateFile)
        if held {
            try journal.removeSentSegments(keepSeconds: keepSeconds, readers: readers.compactMap { CursorName($0) })
        }
        return held
    }

    private static func cursorName(_ name: String) throws -> CursorName {
        guard let cursor = CursorName(name) else {
            throw CommandFailure("invalid destination name '\(name)'", status: .usage)
        }
        return cursor
    }

    private static func lockCursors(_ journal: Journal) throws -> JournalLock {
        guard let lock = try journal.tryLockCursors() else {
            throw CommandFailure("overland-sync is sending from \(journal.path): try again when it ends", status: .tryLater)
        }
        return lock
    }
}
