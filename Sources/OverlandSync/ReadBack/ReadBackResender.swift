import OverlandJournal
import OverlandProtocol

/// Sends points again that a receiver did not store (`ReadBackPass`), as the destination
/// sends them: an HTTP receiver in its own requests (`HTTPResender`), an MQTT broker as
/// QoS 1 publishes (OverlandMQTT's `MQTTResender`). Throws when a resend is not
/// acknowledged: the points stay unsettled for the next run. What was sent again is read
/// back once it has settled, by a later run (`ReadBackPass`).
public protocol ReadBackResender: Sendable {
    /// How the points went, for the run's line (" through the broker"), or "".
    var route: String { get }
    /// Whether they go through a broker, which may drop what it acknowledged: a point
    /// missing after its resends is then not known refused by the receiver.
    var sendsThroughBroker: Bool { get }
    /// Sends the journal lines `lines` again; `timeout` bounds each request.
    func resend(_ lines: [ArraySlice<UInt8>], timeout: Duration) async throws
    /// Called once at the end of a pass that sent points again (a broker: the newest
    /// point once more, the position a tracker should show).
    func finish(timeout: Duration) async throws
}

extension ReadBackResender {
    public var route: String { "" }
    public var sendsThroughBroker: Bool { false }
    public func finish(timeout: Duration) async throws {}
}

/// Resending to an HTTP receiver: the receiver's own requests (its batch rule and
/// encoder), each of which must be acknowledged; then the newest point acknowledged once
/// more, as a broker's resends end (a tracker shows the newest position, not the last old
/// point sent again).
public struct HTTPResender: ReadBackResender {
    let configuration: SyncConfiguration
    let transport: any Transport
    let journal: Journal
    let cursor: CursorName

    public init(configuration: SyncConfiguration, transport: any Transport, journal: Journal, cursor: CursorName) {
        self.configuration = configuration
        self.transport = transport
        self.journal = journal
        self.cursor = cursor
    }

    public func finish(timeout: Duration) async throws {
        let acknowledged = try journal.cursor(for: cursor)
        // Only an acknowledged point: one past the cursor is the next drain's, in order.
        guard let newest = try journal.lastRecord(where: { (try? LocationFeature(jsonLine: $0)) != nil }),
              newest.sequence < acknowledged else { return }
        try await resend([newest.line], timeout: timeout)
    }

    public func resend(_ lines: [ArraySlice<UInt8>], timeout: Duration) async throws {
        guard let receiver = configuration.makeReceiver() else { throw ReadBackError("no receiver for resending") }
        let size: Int
        switch receiver.batchRule {
        case .batches(let batch): size = batch
        case .onePerRequest, .newestOnly: size = 1
        }
        var start = 0
        while start < lines.count {
            var encoder = receiver.makeEncoder()
            for line in lines[start..<min(start + size, lines.count)] { _ = encoder.append(line) }
            start += size
            let http = try await transport.send(encoder.finish(current: nil, newest: nil), timeout: timeout)
            let reply = Reply(status: http.status, body: http.body, acknowledgement: receiver.acknowledgement)
            guard reply.outcome == .delivered else {
                throw ReadBackError("sending missing points again was not acknowledged (HTTP \(http.status))")
            }
        }
    }
}
