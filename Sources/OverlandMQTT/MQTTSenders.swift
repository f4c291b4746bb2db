#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandJournal
import OverlandSync

/// The MQTT senders of this process, one per journal and destination: a `--watch` run keeps
/// each connection open between runs and answers `TOPIC/cmd` while it waits (`idle`).
public final class MQTTSenders: @unchecked Sendable {
    /// The process's senders.
    public static let shared = MQTTSenders()

    private var mutex = pthread_mutex_t()
    private var senders: [String: MQTTSender] = [:]
    private var refused = false

    private init() { pthread_mutex_init(&mutex, nil) }

    /// Set when a broker refused the subscription to `TOPIC/cmd`: `--watch` then ends (75)
    /// after the pass, rather than wait for commands that cannot arrive.
    public var commandsRefused: Bool { locked { refused } }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }

    /// One run of `sender`'s destination (the caller holds the journal's cursor lock). With
    /// `keepOpen` the connection stays for the next run and listens on `TOPIC/cmd`.
    func run(_ sender: MQTTDestinationSender, journal: Journal, holding lock: JournalLock, sendNow: Bool,
             onIssue: JournalIssueHandler?) -> SyncReport {
        let key = journal.path + "\n" + sender.name.text
        let open: MQTTSender = locked {
            var open = senders[key]
            if open?.destination != sender.destination {
                open?.close()
                open = MQTTSender(journal: journal, destination: sender.destination, cursor: MQTTCursor(name: sender.name),
                                  onIssue: onIssue, timing: sender.timing)
            }
            senders[key] = sender.keepOpen ? open : nil
            return open!
        }
        open.listensForCommands = sender.keepOpen
        let report = open.run(holding: lock, sendNow: sendNow)
        if sender.keepOpen, open.commandRefusal != nil { locked { refused = true } }
        return report
    }

    /// Publishes `lines` again for `sender`'s destination (read-back's resends; see
    /// `MQTTSender.republish`), on the
    /// connection a `--watch` run keeps open, else on one of their own.
    func republish(_ sender: MQTTDestinationSender, journal: Journal, lines: [ArraySlice<UInt8>],
                   endingWithNewest: Bool) throws(MQTTError) {
        let key = journal.path + "\n" + sender.name.text
        let open = locked { senders[key].flatMap { $0.destination == sender.destination ? $0 : nil } }
            ?? MQTTSender(journal: journal, destination: sender.destination, cursor: MQTTCursor(name: sender.name), timing: sender.timing)
        try open.republish(lines, endingWithNewest: endingWithNewest)
    }

    /// Waits `duration`, answering commands on every open connection meanwhile: each
    /// outcome goes to `onCommand` (with its sender, for `rememberApplied`); a connection
    /// lost goes to `onLost` and is dropped (the next run reconnects). Without
    /// connections, a plain sleep.
    public func idle(for duration: Duration, onCommand: (MQTTSender, MQTTSender.CommandOutcome) -> Void,
                     onLost: (MQTTSender, MQTTError) -> Void) async throws {
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            let open = locked { senders }
            if open.isEmpty {
                try await Task.sleep(until: deadline)
                return
            }
            for (key, sender) in open.sorted(by: { $0.key < $1.key }) {
                let slice = min(deadline, ContinuousClock.now + .milliseconds(max(50, 500 / open.count)))
                do {
                    try sender.idle(until: slice) { onCommand(sender, $0) }
                } catch {
                    onLost(sender, error)
                    sender.close(gracefully: false)
                }
                if !sender.isConnected { locked { if senders[key] === sender { senders[key] = nil } } }
            }
            try Task.checkCancellation()
            await Task.yield()
        }
    }
}
