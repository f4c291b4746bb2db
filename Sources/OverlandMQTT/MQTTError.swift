/// Why talking to a broker failed, sorted by what the user can do about it.
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The settings cannot work: a bad broker url, topic, CA file, protocol version (exit 78).
    case configuration(String)
    /// The broker refused the credentials: bad user name or password, not authorized (exit 77).
    case refused(String)
    /// Worth trying later: the broker is unreachable, the connection was lost, an answer did
    /// not come in time, TLS failed (exit 75). Nothing is lost: what was not acknowledged waits.
    case tryLater(String)

    /// One lower-case line.
    public var description: String {
        switch self {
        case .configuration(let message), .refused(let message), .tryLater(let message): message
        }
    }
}
