/// Why no complete reply arrived.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: Sendable, Equatable {
        /// No connection (refused, unreachable, DNS, connect time-out).
        case connect
        /// The request did not complete in time.
        case timedOut
        /// The connection closed before the reply was complete.
        case connectionLost
        /// The reply body exceeded the limit.
        case replyTooLarge
        /// TLS failed (certificate not trusted, handshake).
        case tls
        /// The URL cannot be sent to.
        case invalidURL
        /// Anything else.
        case other
    }

    /// The kind of failure.
    public var kind: Kind
    /// A lower-case phrase.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
