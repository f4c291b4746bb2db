import OverlandJournal

/// The destinations' stored marks (`SyncState.storedThrough`) as retention sees them: a
/// segment goes only when every destination that verifies has it stored (or refused).
public enum StoredMarks {
    /// The lowest stored mark among `readers` that have one, nil when none verifies. A
    /// state file that cannot be read holds nothing back (its cursor still does).
    public static func floor(_ journal: Journal, _ readers: [CursorName]) -> UInt64? {
        readers.compactMap { (try? SyncState.load(journal: journal, destination: $0.text))?.storedThrough }.min()
    }

    /// Forgets `reader`'s stored mark and resend counts, once verify is off for it: its
    /// mark no longer holds retention back. Writes only when there was one.
    public static func forget(_ journal: Journal, _ reader: CursorName) throws(JournalError) {
        var state = try SyncState.load(journal: journal, destination: reader.text)
        guard state.storedThrough != nil || !state.resends.isEmpty else { return }
        state.storedThrough = nil
        state.resends = [:]
        try state.save(in: journal, as: SyncState.fileName(forDestination: reader.text))
    }
}
