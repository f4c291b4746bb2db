#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandJournal

/// Serialises the cursor writes of the destinations one process sends to at the same
/// time (`DestinationsRun`): moving a named cursor rewrites the journal's floor
/// (`cursor.json`, through one temporary file name), so two destinations acknowledged at
/// the same moment must not write it at once. The cursor lock keeps other processes out;
/// this keeps the tasks of one run in turn.
public enum CursorWrites {
    private final class Lock: @unchecked Sendable {
        var mutex = pthread_mutex_t()
        init() { pthread_mutex_init(&mutex, nil) }
    }

    private static let lock = Lock()

    /// Moves `journal`'s cursor `name` to `next`, alone among this process's cursor writes;
    /// `durably: false` records it in the reader's progress record alone, leaving the cursor
    /// file to `makeDurable` (paced by `DurabilityPacer`).
    public static func advance(_ journal: Journal, _ name: CursorName, to next: UInt64, durably: Bool = true) throws(JournalError) {
        pthread_mutex_lock(&lock.mutex)
        defer { pthread_mutex_unlock(&lock.mutex) }
        try journal.advanceCursor(for: name, to: next, durably: durably)
    }

    /// Makes the place of `name` durable: its cursor file written there, durably, and the floor.
    public static func makeDurable(_ journal: Journal, _ name: CursorName) throws(JournalError) {
        pthread_mutex_lock(&lock.mutex)
        defer { pthread_mutex_unlock(&lock.mutex) }
        try journal.syncCursor(for: name)
    }
}
