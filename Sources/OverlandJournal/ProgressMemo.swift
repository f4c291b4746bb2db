#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The progress record each reader last wrote through one `Journal` value, so that the
/// next one a run writes (a pipelining reader writes one per acknowledged batch) overwrites
/// it in place without reading the cursor file and the record again to find its base.
///
/// Sound because a reader's cursor file and record change only under the journal's cursor
/// lock, which the writing process holds for its run: within the process every other
/// write of a cursor file, the floor or a record goes through this `Journal` and forgets
/// what is remembered (`forgetAll`), so the next record is based on the files again.
final class ProgressMemo: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var written: [CursorName: ProgressRecord] = [:]

    init() { pthread_mutex_init(&mutex, nil) }

    deinit { pthread_mutex_destroy(&mutex) }

    /// The record last written for `name`, if nothing has changed the files since.
    func record(for name: CursorName) -> ProgressRecord? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return written[name]
    }

    func remember(_ record: ProgressRecord) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        written[record.name] = record
    }

    func forgetAll() {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        written.removeAll()
    }
}
