import OverlandJournal
import OverlandProtocol
import OverlandSync

/// Read-back's resends for an MQTT destination (`ReadBackPass`): the missing points are
/// published again through the broker, QoS 1, on a thread of their own (`BlockingWork`).
/// The broker acknowledges a publish before its subscriber has it: what is sent again is
/// read back once settled, by a later run, as every resend is.
public struct MQTTResender: ReadBackResender {
    let sender: MQTTDestinationSender
    let journal: Journal

    public init(sender: MQTTDestinationSender, journal: Journal) {
        self.sender = sender
        self.journal = journal
    }

    public var route: String { " through the broker" }
    public var sendsThroughBroker: Bool { true }

    public func resend(_ lines: [ArraySlice<UInt8>], timeout: Duration) async throws {
        try await republish(lines, endingWithNewest: false)
    }

    /// The newest point once more: a tracker shows it, not the last old point sent again.
    public func finish(timeout: Duration) async throws {
        try await republish([], endingWithNewest: true)
    }

    private func republish(_ lines: [ArraySlice<UInt8>], endingWithNewest: Bool) async throws {
        let outcome = await BlockingWork.run { [sender, journal] () -> MQTTError? in
            do throws(MQTTError) {
                try sender.senders.republish(sender, journal: journal, lines: lines, endingWithNewest: endingWithNewest)
                return nil
            } catch {
                return error
            }
        }
        if let outcome { throw ReadBackError("sending missing points again through the broker failed: \(outcome)") }
    }
}
