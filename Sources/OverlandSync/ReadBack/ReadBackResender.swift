import OverlandJournal
import OverlandProtocol

/// Sends points again that a receiver did not store (`ReadBackPass`), as the destination
/// sends them: an HTTP receiver in its own requests (`HTTPResender`), an MQTT broker as
/// QoS 1 publishes (OverlandMQTT's `MQTTResender`). Throws when a resend is not
/// acknowledged: the points stay unsettled for the next run.
public protocol ReadBackResender: Sendable {
    /// Whether what was sent again can be read back at once. False for a broker: it
    /// acknowledges a publish before its subscriber (the Recorder, Home Assistant) has it,
    /// so what it was sent is read back by the next run, never by the run that sent it.
    var readsBackAtOnce: Bool { get }
    /// Sends the journal lines `lines` again; `timeout` bounds each request.
    func resend(_ lines: [ArraySlice<UInt8>], timeout: Duration) async throws
    /// Called once at the end of a pass that sent points again (a broker: the newest
    /// point once more, the position a tracker should show).
    func finish(timeout: Duration) async throws
}

extension ReadBackResender {
    public func finish(timeout: Duration) async throws {}
}

/// Resending to an HTTP receiver: the receiver's own requests (its batch rule and
/// encoder), each of which must be acknowledged.
public struct HTTPResender: ReadBackResender {
    let configuration: SyncConfiguration
    let transport: any Transport

    public init(configuration: SyncConfiguration, transport: any Transport) {
        self.configuration = configuration
        self.transport = transport
    }

    public var readsBackAtOnce: Bool { true }

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
