import OverlandJournal
import OverlandRecorder
import OverlandSync

extension JournalOrigin {
    /// Copy detection with this machine's hashed id (`check(_:machine:acceptCopy:)`):
    /// a journal refused is a data error (65).
    public static func check(journal: Journal, acceptCopy: Bool) throws -> [String] {
        try check(journal, machine: UniqueID.ofThisMachine(), acceptCopy: acceptCopy)
    }
}
