import OverlandJournal
import OverlandRecorder
import OverlandSync

/// Copy detection for the sync command, with this machine's registry and id.
extension JournalOrigin {
    /// Refuses to sync a journal that looks like a copy (see `JournalOrigin.check`), with
    /// this machine's registry and hashed machine id. Returns warnings when the registry cannot
    /// be used (the checks then fall back to the pending-move check alone). Exit status 65
    /// on refusal.
    public static func check(journal: Journal, acceptCopy: Bool) throws -> [String] {
        guard let registry = defaultRegistryPath() else {
            if let intent = try journal.pendingMove() {
                throw CommandFailure(JournalOriginError.movePending(intent).description, status: .dataError)
            }
            return ["no home directory: copies of journals are not detected"]
        }
        do {
            try check(journal, registry: registry, machine: UniqueID.ofThisMachine(), acceptCopy: acceptCopy)
            return []
        } catch {
            if case .registry(let cause) = error {
                if let intent = try journal.pendingMove() {
                    throw CommandFailure(JournalOriginError.movePending(intent).description, status: .dataError)
                }
                return ["copies of journals are not detected: \(cause)"]
            }
            throw CommandFailure(error.description, status: .dataError)
        }
    }

    /// Records the journal's cursor after a sync run (best effort: returns a warning).
    public static func record(journal: Journal) -> String? {
        guard let registry = defaultRegistryPath() else { return nil }
        do {
            try record(journal, registry: registry)
            return nil
        } catch {
            return "cannot update the journal registry: \(error)"
        }
    }
}
