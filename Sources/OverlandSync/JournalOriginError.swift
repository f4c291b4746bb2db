import OverlandJournal

/// Why a sync of a journal was refused: it may be a copy whose records another copy sends.
public enum JournalOriginError: Error, Sendable, CustomStringConvertible {
    /// A move of this journal was interrupted; its records may already be in the target.
    case movePending(JournalMoveIntent)
    /// The same journal id was synced from another path that still holds it.
    case secondPath(id: JournalID, registered: String, current: String)
    /// The cursor is behind the one this machine saw for this journal id.
    case olderCopy(id: JournalID, registeredNext: UInt64, next: UInt64, registered: String)
    /// New here, created on another machine, not by `move`.
    case foreignMachine(id: JournalID, device: String)
    /// The registry could not be read or written.
    case registry(JournalError)

    public var description: String {
        switch self {
        case .movePending(let intent):
            return intent.description + "; until then this journal is not synced (its records may be in the target already)"
        case .secondPath(let id, let registered, let current):
            return "journal \(id) was synced from '\(registered)', which still holds it: '\(current)' is a copy, and syncing both "
                + "uploads the same points twice. Sync only one copy and delete the other; if '\(registered)' will never be "
                + "synced again, pass --accept-copy"
        case .olderCopy(let id, let registeredNext, let next, let registered):
            return "journal \(id) was already synced up to record \(registeredNext) (from '\(registered)'), but this copy's "
                + "cursor is at \(next): it is an older copy, and syncing it uploads records \(next)..<\(registeredNext) again. "
                + "Pass --accept-copy to send them anyway"
        case .foreignMachine(let id, let device):
            let made = device.isEmpty ? "" : " (for device '\(device)')"
            return "journal \(id) was created on another machine\(made) and not by 'overland journal move': "
                + "it looks like a hand copy, and if the original is synced too, points are uploaded twice. Use "
                + "'overland journal move' to carry journals; pass --accept-copy if the original will never be synced"
        case .registry(let error):
            return "cannot use the journal registry: \(error)"
        }
    }
}
