import OverlandJournal

/// What differs between destinations: how the points travel. One conformance per carrier
/// in `Receivers.table` (OverlandProtocol): `HTTPDestination` for every HTTP receiver
/// (through `SyncEngine`), OverlandMQTT's `MQTTDestinationSender` for an MQTT broker. What
/// they share (the schedule, the backoff, the state file, `failures_against`) is
/// `SyncDestination`, which both senders' engines conform to. `DestinationsRun` runs them.
public protocol DestinationSender: Sendable {
    /// The destination's name: its cursor and its state file.
    var name: CursorName { get }
    /// Why it cannot work, found before anything is sent (a configuration error), or nil.
    var refusal: String? { get }
    /// One run of this destination, for a caller that holds the journal's cursor lock:
    /// the schedule, then what waits, from its cursor. Never throws: the report says what
    /// happened. `sendNow` passes the send interval and the backoff.
    func run(journal: Journal, holding lock: JournalLock, sendNow: Bool, onIssue: JournalIssueHandler?) async -> SyncReport
    /// What the first send would be (`--dry-run`): takes no lock and changes nothing.
    func preview(journal: Journal, onIssue: JournalIssueHandler?) throws -> DestinationPreview
    /// How it is read back and sent to again (`verify true`, audit, resend); nil for a
    /// destination that cannot be (a refused one).
    var readBackRoute: ReadBackRoute? { get }
}

extension DestinationSender {
    public var readBackRoute: ReadBackRoute? { nil }
}

/// What a destination would send first, for `--dry-run`.
public enum DestinationPreview: Sendable {
    /// Nothing waits.
    case nothingToSend
    /// The first HTTP request, its token redacted.
    case request(SyncRequest)
    /// A sentence for the others ("would publish 5 points to HOST:PORT on 'TOPIC'").
    case summary(String)
}
