import OverlandJournal

/// Copy detection as `overland-sync` and `destination add --from-start` run it: with the
/// registry under the home directory (`defaultRegistryPath`).
extension JournalOrigin {
    /// Refuses a journal that looks like a copy (`check(_:registry:machine:acceptCopy:)`,
    /// `JournalOriginError`), `machine` being this machine's hashed id. Returns warnings when
    /// the registry cannot be used: the checks then fall back to the pending-move check alone.
    public static func check(_ journal: Journal, machine: String?, acceptCopy: Bool) throws -> [String] {
        guard let registry = defaultRegistryPath() else {
            if let intent = try journal.pendingMove() { throw JournalOriginError.movePending(intent) }
            return ["no home directory: copies of journals are not detected"]
        }
        do {
            try check(journal, registry: registry, machine: machine, acceptCopy: acceptCopy)
            return []
        } catch .registry(let cause) {
            if let intent = try journal.pendingMove() { throw JournalOriginError.movePending(intent) }
            return ["copies of journals are not detected: \(cause)"]
        }
    }

    /// Records the journal's cursor in the default registry after a sync run (best effort:
    /// returns a warning).
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
