import OverlandProtocol

/// Sends one request and returns the server's reply. A reply of any status is returned,
/// not thrown: it is data the engine classifies. Only a failure to get a complete reply
/// (connection refused, time-out, connection dropped, reply too large, TLS) throws,
/// preferably a `TransportError`.
public protocol Transport: Sendable {
    /// Sends `request`; the whole exchange, reply body included, ends within `timeout`.
    func send(_ request: SyncRequest, timeout: Duration) async throws -> HTTPReply
}
