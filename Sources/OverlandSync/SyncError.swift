/// Why a sync could not even start, or could not keep its books.
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration cannot work (bad endpoint, batch size, trip, CA file).
    case configuration(String)
    /// The journal or the sync's state could not be read or written.
    case storage(String)

    /// A lower-case phrase.
    public var description: String {
        switch self {
        case .configuration(let message): message
        case .storage(let message): message
        }
    }
}
