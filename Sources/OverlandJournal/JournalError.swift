/// Why a journal operation failed. Messages are lower-case phrases that name the file.
public enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed on a path.
    case io(operation: String, path: String, reason: String, code: Int32)
    /// A file in the journal is not what the format allows (a symlink, a bad name, a
    /// manifest or cursor that does not parse, a file of the wrong journal).
    case untrusted(path: String, reason: String)
    /// The journal's directory could be written by other users (world-writable, or another
    /// user's): its records cannot be trusted until its permissions are fixed.
    case exposed(path: String, reason: String)
    /// The directory is not a journal, or a journal of a newer format.
    case notAJournal(path: String, reason: String)
    /// A record handed to the journal is not one JSON object line within the size limit.
    case invalidRecord(reason: String)
    /// An earlier write or sync failed: this appender stopped trusting its segment.
    case poisoned(path: String)
    /// Appending would number a record past `SequenceNumber.limit`: the journal is full.
    case full(path: String, next: UInt64)

    public var description: String {
        switch self {
        case .io(let operation, let path, let reason, _):
            return "\(operation) '\(path)': \(reason.lowercased())"
        case .untrusted(let path, let reason), .exposed(let path, let reason):
            return "refusing '\(path)': \(reason)"
        case .notAJournal(let path, let reason):
            return "'\(path)' is not a usable journal: \(reason)"
        case .invalidRecord(let reason):
            return "invalid record: \(reason)"
        case .poisoned(let path):
            return "an earlier write to '\(path)' failed; reopen the journal to continue"
        case .full(let path, let next):
            return "journal '\(path)' is full: its next record would be number \(next), and record numbers end below 2^53 (\(SequenceNumber.limit)); log into a new journal"
        }
    }

    /// True for failures of the storage itself (disk full, I/O error, permission), as
    /// opposed to bad data.
    public var isIOError: Bool {
        switch self {
        case .io, .poisoned: return true
        default: return false
        }
    }
}
