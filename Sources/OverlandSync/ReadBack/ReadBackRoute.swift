import OverlandJournal
import OverlandProtocol

/// How a destination is read back and sent to again, as its sender knows it
/// (`DestinationSender.readBackRoute`): what the read-back after a drain
/// (`ReadBackAfterDrain`), `destination audit` and `destination resend` share, so that none
/// of them asks which kind of sender it holds.
public struct ReadBackRoute: Sendable {
    /// What the pass knows the destination by (its device id, how it is sent: the refusals'
    /// fingerprint) and reads through (the CA file, the timeouts).
    public let configuration: SyncConfiguration
    /// A broker's destination: what it publishes, read back from what the broker feeds;
    /// nil for an HTTP receiver.
    public let broker: ReadBackTarget.Broker?
    private let makeResender: @Sendable (Journal, any Transport) -> any ReadBackResender

    /// A route reading through `configuration` and sending again through `resender`.
    public init(configuration: SyncConfiguration, broker: ReadBackTarget.Broker?,
                resender: @escaping @Sendable (Journal, any Transport) -> any ReadBackResender) {
        self.configuration = configuration
        self.broker = broker
        self.makeResender = resender
    }

    /// The reader of the receiver's store at `verifyURL` with `verifyToken`, or why there
    /// is none (a configuration problem: what to set).
    public func reader(verifyURL: String?, verifyToken: String?) throws(ReadBackError) -> any ReadBackReader {
        try ReadBackReaders.reader(for: configuration, verifyURL: verifyURL, verifyToken: verifyToken, broker: broker)
    }

    /// How points go to the destination again: its own path (`transport` for an HTTP receiver).
    public func resender(journal: Journal, transport: any Transport) -> any ReadBackResender {
        makeResender(journal, transport)
    }

    /// Runs `body` with an HTTP transport for the destination's read API (and an HTTP
    /// receiver's resends).
    public func withTransport<Value: Sendable>(_ body: @escaping @Sendable (any Transport) async throws -> Value) async throws -> Value {
        try await HTTPClientTransport.withTransport(configuration: configuration) { try await body($0) }
    }
}

extension HTTPDestination {
    /// Read back through its read API, sent to again in its own requests.
    public var route: ReadBackRoute {
        let configuration = configuration
        let cursor = name
        return ReadBackRoute(configuration: configuration, broker: nil) { journal, transport in
            HTTPResender(configuration: configuration, transport: transport, journal: journal, cursor: cursor)
        }
    }

    public var readBackRoute: ReadBackRoute? { route }
}
