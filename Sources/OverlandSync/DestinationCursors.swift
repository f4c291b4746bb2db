import OverlandJSON
import OverlandJournal

/// A destination's cursor in the configured journal: placed when the destination is added,
/// deleted (with its sync state) when it is removed. Both hold the journal's cursor lock
/// while they change the destinations file and the journal, so they never race a sync
/// run: during one they change nothing (`DestinationCursorError.syncRunning`: try later).
public enum DestinationCursors {
    /// Where a new destination starts.
    public struct Start: Sendable {
        public var journalPath: String
        /// False when no journal exists yet: the destination starts with the first point logged.
        public var journalExists: Bool
        public var next: UInt64 = 0
        public var end: UInt64 = 0
        /// The journal's first record (retention may have deleted those before).
        public var first: UInt64 = 0

        public func description(fromStart: Bool) -> String {
            guard journalExists else {
                return "no journal yet at \(journalPath): it gets every point from the first one logged"
            }
            if fromStart {
                return "starts at the journal's first record (\(next)): \(Plural.count(end - next, "record")) waiting to be sent to it"
            }
            return "starts at the journal's end (record \(end)): it gets the points logged from now on "
                + "(remove it and add it again with --from-start to send it the \(Plural.count(end - min(end, first), "record")) already there)"
        }
    }

    /// Places the cursor `name` at the end of the journal at `journalPath` (at its first
    /// record with `fromStart`), then runs `save` (which records the destination), all
    /// under the journal's cursor lock. A cursor left by an interrupted removal is
    /// replaced; when `save` fails, the new cursor is deleted again. Without
    /// `defaultConfigured` (no endpoint), the journal's first named cursor leaves no
    /// `cursors/default.json` behind: a destination that is not configured holds nothing.
    /// `origin` is copy detection as the sync runs it (`JournalOrigin.check`, this
    /// machine's registry and id), refusing a copy unless `acceptCopy`.
    public static func place(_ name: String, journalPath: String, fromStart: Bool, defaultConfigured: Bool,
                             origin: (Journal, _ acceptCopy: Bool) throws -> [String], then save: () throws -> Void) throws -> Start {
        guard PrivateFile.kind(journalPath) != .missing else {
            try save()
            return Start(journalPath: journalPath, journalExists: false)
        }
        let journal = try Journal(path: journalPath)
        let cursor = try cursorName(name)
        let lock = try lockCursors(journal)
        defer { withExtendedLifetime(lock) {} }
        let end = try journal.endSequence()
        let first = try journal.segments().first.map { min($0.firstSequence, end) } ?? end
        let next = fromStart ? first : end
        // Copy detection remembers how far this journal's cursor (the floor of every
        // destination's) has come, and refuses a journal whose floor went back as an
        // older copy. A destination starting from the start lowers the floor on purpose:
        // a journal this machine syncs as its own is registered with the lower floor.
        let ownJournal = fromStart && (try? origin(journal, false)) != nil
        try journal.removeCursor(for: cursor)
        try journal.removeState(SyncState.fileName(forDestination: name))
        let hadDefault = try journal.cursorNames().contains(.default)
        try journal.advanceCursor(for: cursor, to: next)
        if !defaultConfigured && !hadDefault { try journal.removeCursor(for: .default) }
        if next > first {
            // What it passes over is not "sent" to it (`overland journal stats`).
            var state = SyncState()
            state.startSequence = next
            try state.save(in: journal, as: SyncState.fileName(forDestination: name))
        }
        if ownJournal { _ = try? origin(journal, true) }
        do {
            try save()
        } catch {
            try? journal.removeCursor(for: cursor)
            throw error
        }
        return Start(journalPath: journalPath, journalExists: true, next: next, end: end, first: first)
    }

    /// Removes the destination `name`: under the journal's cursor lock (taken first, so
    /// that nothing changes while a sync runs: it is then refused with 75 and nothing is
    /// removed), runs `unconfigure` (which deletes it from destinations.json and returns
    /// the names of the destinations left), then deletes its cursor and sync state from
    /// the journal at `journalPath`, and the sealed segments every remaining reader has
    /// passed and that are older than `keepSeconds` (what only `name` still held). True
    /// when the cursor or the state was there.
    public static func release(_ name: String, journalPath: String, keepSeconds: Int64,
                               unconfigure: () throws -> [String]) throws -> Bool {
        guard PrivateFile.kind(journalPath) != .missing else {
            _ = try unconfigure()
            return false
        }
        let journal = try Journal(path: journalPath)
        let cursor = try cursorName(name)
        let lock = try lockCursors(journal)
        defer { withExtendedLifetime(lock) {} }
        let readers = try unconfigure()
        let stateFile = SyncState.fileName(forDestination: name)
        let held = try journal.cursorNames().contains(cursor) || (try journal.readState(stateFile)) != nil
        try journal.removeCursor(for: cursor)
        try journal.removeState(stateFile)
        if held {
            try journal.removeSentSegments(keepSeconds: keepSeconds, readers: readers.compactMap { CursorName($0) }, onlyReaders: true)
        }
        return held
    }

    private static func cursorName(_ name: String) throws -> CursorName {
        guard let cursor = CursorName(name) else { throw DestinationCursorError.invalidName(name) }
        return cursor
    }

    private static func lockCursors(_ journal: Journal) throws -> JournalLock {
        guard let lock = try journal.tryLockCursors() else { throw DestinationCursorError.syncRunning(journalPath: journal.path) }
        return lock
    }
}

/// Why a destination's cursor was not placed or released.
public enum DestinationCursorError: Error, Sendable, CustomStringConvertible {
    /// Not a destination name (`Destination.isValidName`).
    case invalidName(String)
    /// An overland-sync run holds the journal's cursors: nothing changed; try again.
    case syncRunning(journalPath: String)
    /// `destinations.json` has a destination of that name (added since it was checked).
    case exists(String)

    public var description: String {
        switch self {
        case .invalidName(let name): "invalid destination name '\(name)'"
        case .syncRunning(let path): "overland-sync is sending from \(path): try again when it ends"
        case .exists(let name): "destination '\(name)' exists"
        }
    }
}
