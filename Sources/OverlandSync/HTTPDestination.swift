import OverlandJSON
import OverlandJournal
import OverlandProtocol

/// A destination with an HTTP receiver (any of `Receivers.table`'s `.http` entries): each
/// run makes a client (`HTTPClientTransport`, TLS verified) and drains through `SyncEngine`.
public struct HTTPDestination: DestinationSender {
    public let name: CursorName
    /// What and where to send.
    public let configuration: SyncConfiguration
    /// Hears after each delivered request.
    public var onProgress: (@Sendable (SyncProgress) -> Void)?
    /// Receives a delivered reply's `set`, unvalidated (nil: a `set` is ignored).
    public var onSet: (@Sendable (JSONValue) -> Void)?
    /// The runs' clocks.
    public var timing: SyncTiming

    public init(name: CursorName, configuration: SyncConfiguration, timing: SyncTiming = SyncTiming()) {
        self.name = name
        self.configuration = configuration
        self.timing = timing
    }

    public var refusal: String? {
        do { try configuration.validate() } catch { return error.description }
        return nil
    }

    public func run(journal: Journal, holding lock: JournalLock, sendNow: Bool, onIssue: JournalIssueHandler?) async -> SyncReport {
        do {
            return try await HTTPClientTransport.withTransport(configuration: configuration) { transport in
                await engine(journal, transport).run(holding: lock, sendNow: sendNow, onProgress: onProgress, onSet: onSet, onIssue: onIssue)
            }
        } catch {
            return SyncReport(outcome: .configurationError, message: "\(error)")
        }
    }

    public func preview(journal: Journal, onIssue: JournalIssueHandler?) throws -> DestinationPreview {
        guard let request = try engine(journal, NoTransport()).dryRun(onIssue: onIssue) else { return .nothingToSend }
        return .request(request)
    }

    private func engine(_ journal: Journal, _ transport: any Transport) -> SyncEngine {
        SyncEngine(journal: journal, configuration: configuration, transport: transport, cursor: name, timing: timing)
    }
}

/// For `preview`: a transport that is never asked to send.
private struct NoTransport: Transport {
    func send(_ request: SyncRequest, timeout: Duration) async throws -> HTTPReply {
        throw TransportError(.other, "dry run: nothing is sent")
    }
}
