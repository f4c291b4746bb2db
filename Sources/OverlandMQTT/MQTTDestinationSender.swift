import OverlandJSON
import OverlandJournal
import OverlandProtocol
import OverlandSync

/// An MQTT destination as `DestinationsRun` runs it: each run goes to this process's
/// sender for the journal and destination (`MQTTSenders`, which keeps its connection
/// between runs in `--watch`), on a thread of its own (`BlockingWork`: the client waits
/// for the broker's answers).
public struct MQTTDestinationSender: DestinationSender {
    public let name: CursorName
    /// The destination's keys.
    public let destination: MQTTDestination
    /// Whether the connection stays open after the run and listens on `TOPIC/cmd`.
    public var keepOpen = false
    /// The runs' clocks.
    public var timing = SyncTiming()
    /// The senders of this process.
    public var senders = MQTTSenders.shared

    public init(name: CursorName, destination: MQTTDestination) {
        self.name = name
        self.destination = destination
    }

    public var refusal: String? {
        do { _ = try destination.validate() } catch { return error.description }
        return nil
    }

    public func run(journal: Journal, holding lock: JournalLock, sendNow: Bool, onIssue: JournalIssueHandler?) async -> SyncReport {
        await BlockingWork.run { [self] in
            senders.run(self, journal: journal, holding: lock, sendNow: sendNow, onIssue: onIssue)
        }
    }

    public func preview(journal: Journal, onIssue: JournalIssueHandler?) throws -> DestinationPreview {
        let waiting = Plural.count(try journal.backlog(for: name), "point")
        return .summary("would publish \(waiting) to \(destination.displayBroker) on '\(destination.deviceTopic)'")
    }
}
