import OverlandJSON
import OverlandJournal
import OverlandProtocol
import OverlandSync

/// Drains a journal to an MQTT broker from a destination's cursor: every location point,
/// in journal order, as an OwnTracks `location` message at QoS 1 (or, in the `latest`
/// mode, only the newest point, retained).
///
/// Publishes are pipelined: up to `inFlightWindow` points are published whose position
/// the cursor has not yet recorded. The cursor moves only past the contiguous prefix of
/// points whose PUBACK arrived (a PUBACK for a later point does not move it past an
/// earlier one still waiting), and is recorded after every batch of PUBACKs, so the
/// window slides: what they free is published at once. A broker lost mid-drain, or a
/// kill -9, therefore costs at most the window in points published again on the next
/// run: QoS 1 is "at least once".
///
/// Every wait is bounded: the connect timeout for the CONNACK, the request timeout for
/// each PUBACK (the oldest unacknowledged publish), `maxTime` for the run.
///
/// Not thread-safe: one task at a time. In `--watch`, the same sender keeps its connection
/// between drains and answers `TOPIC/cmd` while idle (see `idle`).
public final class MQTTSender: SyncDestination {
    public let journal: Journal
    public let destination: MQTTDestination
    private let cursor: MQTTCursor
    private let messages: OwnTracksMessages
    private let onIssue: JournalIssueHandler?
    /// The backoff and the clocks.
    public let timing: SyncTiming
    private var client: MQTTClient?
    /// Whether `TOPIC/cmd` is subscribed on the current connection.
    private var listening = false
    /// When `reportLocation` was last answered, and whether one came since that waits
    /// for its second to be up.
    private var lastReport: ContinuousClock.Instant?
    private var reportPending = false
    /// Messages on `TOPIC/cmd` dropped (over the count or the rate) and not said yet, and
    /// when that was last said.
    private var overflow = 0
    private var overflowSaid: ContinuousClock.Instant?
    /// Subscribe to `TOPIC/cmd` on connecting (for `--watch`): the connection is then made
    /// at the first run even when nothing is due, with a persistent session (clean session
    /// off, the stable client id) so that commands sent while it is away wait at the broker.
    public var listensForCommands = false
    /// Why the broker refused the subscription to `TOPIC/cmd` on this connection (a SUBACK
    /// of 0x80 or more), or nil: commands from it cannot arrive. The run that met it ends
    /// with `.retryLater` and this message, once its points are delivered.
    public private(set) var commandRefusal: String?
    /// Whether the connection is open (kept between runs in `--watch`).
    public var isConnected: Bool { client?.isConnected ?? false }

    public init(journal: Journal, destination: MQTTDestination, cursor: MQTTCursor,
                onIssue: JournalIssueHandler? = nil, timing: SyncTiming = SyncTiming()) {
        self.journal = journal
        self.destination = destination
        self.cursor = cursor
        self.onIssue = onIssue
        self.timing = timing
        messages = OwnTracksMessages(destination: destination)
    }

    /// One run for a caller that holds the journal's cursor lock (`DestinationsRun`):
    /// unless `sendNow`, nothing while the schedule every destination shares holds it
    /// (`SyncDestination`: sending off, the backoff, the send interval; a destination whose
    /// url or token changed since its failures is tried at once); then connects (or reuses
    /// the connection), publishes discovery when asked, then every waiting point. Never
    /// throws: the report says what happened, and its outcome maps to the exit status as
    /// HTTP's does (a refusal of the credentials is `.refused(status: 0)`, its message
    /// naming the CONNACK's reason).
    public func run(holding lock: JournalLock, sendNow: Bool = false) -> SyncReport {
        defer { withExtendedLifetime(lock) {} }
        let broker: MQTTBrokerURL
        do {
            broker = try destination.validate()
        } catch {
            return SyncReport(outcome: .configurationError, message: error.description + "; points kept")
        }
        switch begin(sendNow: sendNow) {
        case .failed(let report):
            return report
        case .held(let report, var opened):
            var held = listen(whileHeld: report, broker: broker, state: &opened.state)
            if held.outcome == .retryLater { saveState(opened.state, into: &held) }
            return finish(held, opened)
        case .due(var opened):
            let attemptedAt = timing.wallClock()
            var report = drain(broker: broker)
            record(report, attemptedAt: attemptedAt, in: &opened.state)
            if report.outcome != .nothingToSend || opened.state.consecutiveFailures > 0 || opened.destinationChanged {
                saveState(opened.state, into: &report)
            }
            // The points went; that commands cannot arrive is said once the rest is
            // recorded, and is not a failed delivery (no backoff).
            if let refusal = commandRefusal, report.outcome == .delivered || report.outcome == .nothingToSend {
                report.outcome = .retryLater
                report.message = refusal
            }
            return finish(report, opened)
        }
    }

    /// A run the schedule holds: in `--watch`, listening starts now, not at the first due
    /// send (commands wait for no one); unless the backoff holds it: a connection that
    /// failed is not tried again before the backoff says, as for a send. A failed attempt
    /// to listen is a failure like a send's (`recordFailure`: the backoff starts).
    private func listen(whileHeld held: SyncReport, broker: MQTTBrokerURL, state: inout SyncState) -> SyncReport {
        guard listensForCommands else { return held }
        if case .backingOff = held.outcome { return held }
        do {
            try connectIfNeeded(broker: broker)
        } catch {
            close(gracefully: false)
            let message = "commands: \(error)"
            state.lastAttempt = timing.wallClock()
            recordFailure(&state, message: message)
            return SyncReport(outcome: .retryLater, message: message)
        }
        if let refusal = commandRefusal { return SyncReport(outcome: .retryLater, message: refusal) }
        return held
    }

    /// What a drain did, into the destination's state: a delivery or a failure recorded
    /// as every destination records them (`SyncDestination`).
    private func record(_ report: SyncReport, attemptedAt: Int64, in state: inout SyncState) {
        state.skippedRecords += UInt64(report.skippedRecords + report.notCarriedRecords)
        // Points acknowledged before a failure or an interruption were delivered: the
        // last delivery is now, whatever ended the run.
        if report.sentRecords > 0 { state.lastSuccess = timing.wallClock() }
        switch report.outcome {
        case .delivered, .maxTimeReached:
            state.lastAttempt = attemptedAt
            recordDelivery(&state)
        case .retryLater, .refused, .configurationError:
            state.lastAttempt = attemptedAt
            recordFailure(&state, message: report.message ?? "failed")
        default:
            break
        }
    }

    /// The destination's cursor.
    public var cursorName: CursorName { cursor.name }

    /// The broker as `failures_against` records it: its url and the token.
    public var receiverFingerprint: String { SyncState.fingerprint(url: destination.url, token: destination.token) }

    /// The least time between two runs that send; nil when sending is off.
    public var sendIntervalSeconds: Int? { destination.sendIntervalSeconds }

    /// Connects when needed, publishes discovery, then the points.
    private func drain(broker: MQTTBrokerURL) -> SyncReport {
        var report = SyncReport(outcome: .nothingToSend)
        do {
            let waiting = try cursor.backlog(journal)
            if waiting == 0 && !destination.discovery && !listensForCommands {
                report.message = "nothing to send"
                return report
            }
            try connectIfNeeded(broker: broker)
            if destination.discovery { try publishDiscovery() }
            if destination.loggingMode.sendsEveryPoint { try drainAll(into: &report, onProgress: nil) } else { try drainLatest(into: &report) }
        } catch let error as MQTTError {
            close(gracefully: false)
            switch error {
            case .configuration(let message): report.outcome = .configurationError; report.message = message
            case .refused(let message): report.outcome = .refused(status: 0); report.message = message
            case .tryLater(let message): report.outcome = .retryLater; report.message = message
            }
        } catch let error as JournalError {
            close(gracefully: false)
            report.outcome = .journalError(error)
            report.message = error.description
        } catch {
            close(gracefully: false)
            report.outcome = .retryLater
            report.message = "\(error)"
        }
        report.backlog = (try? cursor.backlog(journal)) ?? 0
        if report.outcome == .configurationError, let message = report.message {
            report.message = message + "; \(Plural.count(report.backlog, "point")) kept"
        }
        if !listensForCommands { close(gracefully: true) }
        return report
    }

    /// Ends the connection: DISCONNECT when `gracefully` (the broker then drops the last
    /// will), else just the socket (the broker publishes the lwt).
    public func close(gracefully: Bool = true) {
        if gracefully { client?.disconnect() }
        client = nil
        listening = false
        commandRefusal = nil
    }

    // MARK: - Connection

    private func connectIfNeeded(broker: MQTTBrokerURL) throws {
        if let client, client.isConnected {
            if listensForCommands && !listening { try subscribeCommands(client) }
            return
        }
        client = nil
        var options = destination.clientOptions(broker: broker, will: messages.lastWill(connectedAt: timing.wallClock()))
        options.cleanSession = !listensForCommands
        if listensForCommands { options.topics = [messages.commandTopic] }
        let made = try MQTTClient(options: options)
        try made.connect()
        client = made
        if listensForCommands { try subscribeCommands(made) }
    }

    private func subscribeCommands(_ client: MQTTClient) throws(MQTTError) {
        let granted = try client.subscribe(messages.commandTopic)
        listening = true
        commandRefusal = granted >= 0x80 ? Self.subscriptionRefusal(granted, topic: messages.commandTopic) : nil
    }

    /// The message for a SUBACK that refused `topic`.
    static func subscriptionRefusal(_ code: Int32, topic: String) -> String {
        let hex = String(code, radix: 16)
        let why = code == 0x87 ? "not authorized" : code == 0x8F ? "topic filter invalid" : "refused"
        return "the broker refused the subscription to '\(topic)' (suback 0x\(hex): \(why)): "
            + "commands cannot arrive; allow this client to subscribe to it in the broker's acl"
    }

    /// Publishes one message and waits for its PUBACK (request timeout).
    private func publishAndWait(_ message: OwnTracksMessages.Message) throws(MQTTError) {
        guard let client else { throw .tryLater("not connected") }
        let mid = try client.publish(topic: message.topic, payload: message.payload, retain: message.retained)
        let deadline = ContinuousClock.now + .milliseconds(Int64(destination.requestTimeout * 1000))
        do {
            try client.pump(until: deadline) { !$0.isInFlight(mid) }
        } catch .tryLater(let text) where text.hasPrefix("no answer") {
            throw .tryLater("\(destination.displayBroker): no puback within \(Int(destination.requestTimeout)) s")
        }
        for acknowledgement in client.takeAcknowledgements() where acknowledgement.reason >= 0x80 {
            throw Self.publishRefusal(acknowledgement.reason, topic: message.topic)
        }
    }

    static func publishRefusal(_ reason: Int32, topic: String) -> MQTTError {
        switch reason {
        case 0x87: return .refused("the broker refused to take messages on '\(topic)': not authorized (check its acl)")
        case 0x90: return .configuration("the broker refused the topic '\(topic)': topic name invalid")
        default: return .tryLater("the broker did not take the message on '\(topic)' (reason code \(reason))")
        }
    }

    private func publishDiscovery() throws {
        try publishAndWait(messages.discovery())
    }

    // MARK: - all

    /// Publishes every record from the cursor with QoS 1, at most `inFlightWindow` messages
    /// beyond the place recorded, which moves after every batch of PUBACKs over what the
    /// broker acknowledged, in order: in the progress record at once, in the cursor file at
    /// most once a second and at the end (`DurabilityPacer`).
    ///
    /// Why after every batch, not every half window: the publishes that refill the window
    /// carry the TCP acknowledgement of the PUBACKs that freed it. A broker writes its
    /// PUBACKs one small packet each, and mosquitto leaves Nagle's algorithm on (its
    /// `set_tcp_nodelay` defaults to false): it sends the first, holds the rest until that
    /// one is acknowledged, and a client that sends nothing meanwhile acknowledges it only
    /// when its delayed-ACK timer fires (40 ms on Linux). Waiting for half a window stalled
    /// every half window that long: 100,000 points took 36 s instead of 3 s (bench/mqtt).
    private func drainAll(into report: inout SyncReport, onProgress: ((SyncProgress) -> Void)?) throws {
        guard let client else { throw MQTTError.tryLater("not connected") }
        let stopAt = destination.maxTime.map { ContinuousClock.now + .milliseconds(Int64($0 * 1000)) }
        let requestTimeout = Duration.milliseconds(Int64(destination.requestTimeout * 1000))
        var recorded = try cursor.read(journal)
        let reader = try journal.records(from: recorded, onIssue: onIssue)
        var window = MQTTInFlight(handledUpTo: recorded)
        var source = Source()
        var failure: Error?
        var pacer = DurabilityPacer()
        // However the drain ends, what was recorded is made durable (a throw already says why it ended).
        defer { if pacer.pending { try? cursor.makeDurable(journal, pacer: &pacer) } }

        func record() throws {
            guard window.handledUpTo > recorded else { return }
            try cursor.advance(journal, to: window.handledUpTo, pacer: &pacer)
            recorded = window.handledUpTo
            window.recordedHead = window.head
            onProgress?(SyncProgress(sentRecords: report.sentRecords, batches: report.batches, backlog: 0))
        }

        while true {
            try publish(from: reader, to: client, into: &window, source: &source, report: &report, stopAt: stopAt)
            if window.isEmpty && source.isDone { break }
            failure = exchange(with: client, &window)
            window.advance(&report)
            if failure != nil { break }
            try record()
            if let sent = window.oldestPublishedAt, ContinuousClock.now - sent > requestTimeout {
                failure = MQTTError.tryLater("\(destination.displayBroker): no puback within \(Int(destination.requestTimeout)) s")
                break
            }
        }
        try record()
        if pacer.pending { try cursor.makeDurable(journal, pacer: &pacer) }
        if let failure { throw failure }
        Self.concludeDrain(&report)
    }

    /// A drain's outcome once it ended without a failure: delivered when it sent or passed
    /// over records (sent ones in one batch), as it was otherwise.
    private static func concludeDrain(_ report: inout SyncReport) {
        if report.sentRecords > 0 {
            report.batches = 1
            if report.outcome != .maxTimeReached { report.outcome = .delivered }
        } else if report.skippedRecords + report.notCarriedRecords > 0 {
            report.outcome = .delivered
        }
    }

    /// Where the journal's records stand for `drainAll`: read to the end, or no more to
    /// publish (the run's time is up).
    private struct Source {
        var endOfJournal = false
        var stopPublishing = false
        var isDone: Bool { endOfJournal || stopPublishing }
    }

    /// Publishes records while the window has room, until the journal ends or the run's
    /// time is up (`report` then says `.maxTimeReached`).
    private func publish(from reader: JournalReader, to client: MQTTClient, into window: inout MQTTInFlight,
                         source: inout Source, report: inout SyncReport, stopAt: ContinuousClock.Instant?) throws {
        let limit = min(destination.inFlightWindow, client.receiveMaximum ?? Int.max)
        while !source.isDone, window.unrecorded < limit {
            if let stopAt, report.sentRecords + window.waiting > 0, ContinuousClock.now >= stopAt {
                source.stopPublishing = true
                report.outcome = .maxTimeReached
                return
            }
            guard let journalRecord = try reader.next() else {
                source.endOfJournal = true
                return
            }
            let recordMessages = messages.messages(forRecord: journalRecord.line[...], retainLocation: destination.pubRetain)
            if recordMessages.isEmpty { window.passOver(next: journalRecord.sequence + 1) }
            for (index, message) in recordMessages.enumerated() {
                let mid = try client.publish(topic: message.topic, payload: message.payload, retain: message.retained)
                window.published(mid: mid, next: index == recordMessages.count - 1 ? journalRecord.sequence + 1 : nil)
            }
        }
    }

    /// Lets the client work for up to 100 ms and takes the broker's acknowledgements into
    /// `window`; the error that ends the drain, if any (what was acknowledged before a
    /// lost connection still counts).
    private func exchange(with client: MQTTClient, _ window: inout MQTTInFlight) -> Error? {
        var failure: Error?
        do { try client.step(timeoutMilliseconds: 100) } catch { failure = error }
        for acknowledgement in client.takeAcknowledgements() {
            if acknowledgement.reason >= 0x80, window.isInFlight(acknowledgement.mid) {
                return Self.publishRefusal(acknowledgement.reason, topic: messages.deviceTopic)
            }
            window.acknowledge(acknowledgement.mid)
        }
        return failure
    }

    // MARK: - Read-back

    /// Publishes journal lines again (`MQTTResender`: points the broker's subscriber did not
    /// store), QoS 1 and not retained, each waiting for its PUBACK, at the pace its
    /// subscriber can take (`resend_rate`, `ResendPace`: the connection kept alive meanwhile); with
    /// `endingWithNewest` then the journal's newest point once more (retained with
    /// `pub_retain`): a subscriber that shows where the device is (Home Assistant) ends at
    /// the newest position, not at an old one sent again. Connects when needed and, unless
    /// it listens for commands, disconnects after.
    public func republish(_ lines: [ArraySlice<UInt8>], endingWithNewest: Bool = false) throws(MQTTError) {
        let broker = try destination.validate()
        defer { if !listensForCommands { close(gracefully: true) } }
        var pace = ResendPace(perSecond: destination.resendRate)
        do {
            try connectIfNeeded(broker: broker)
            for line in lines {
                for message in messages.messages(forRecord: line) {
                    try wait(until: pace.slot(now: timing.monotonicClock()))
                    try publishAndWait(message)
                }
            }
            if endingWithNewest, let newest = newestPoint() { try publishAndWait(messages.location(newest, retain: destination.pubRetain)) }
        } catch let error as MQTTError {
            close(gracefully: false)
            throw error
        } catch {
            close(gracefully: false)
            throw .tryLater("\(error)")
        }
    }

    /// Keeps the connection alive (keep-alive, PUBACKs) until `instant`.
    private func wait(until instant: ContinuousClock.Instant) throws(MQTTError) {
        guard let client else { throw .tryLater("not connected") }
        while true {
            let left = instant - timing.monotonicClock()
            guard left > .zero else { return }
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            try client.step(timeoutMilliseconds: Int32(max(1, min(100, milliseconds))))
        }
    }

    // MARK: - latest

    /// The newest point by time among those waiting, retained; the rest count as skipped.
    private func drainLatest(into report: inout SyncReport) throws {
        let from = try cursor.read(journal)
        let reader = try journal.records(from: from, onIssue: onIssue)
        var best: LocationFeature?
        var end = from
        while let record = try reader.next() {
            end = record.sequence + 1
            guard let point = try? LocationFeature(jsonLine: record.line) else { continue }
            if let found = best, point.timestamp < found.timestamp { continue }
            best = point
        }
        guard end > from else { return }
        if let best {
            try publishAndWait(messages.location(best, retain: true))
            report.sentRecords = 1
            report.batches = 1
        }
        report.skippedRecords = Int(end - from) - report.sentRecords
        try cursor.advance(journal, to: end)
        report.outcome = .delivered
    }

    // MARK: - Commands (--watch)

    /// What `idle` heard on `TOPIC/cmd`.
    public enum CommandOutcome: Sendable {
        /// `reportLocation` answered with the newest point (nil: the journal has none).
        case reportedLocation(published: Bool)
        /// `reportLocation` again within a second of the last answer: those of that second
        /// are answered once, when it is up.
        case reportedRecently
        /// `setConfiguration`: the `configuration` object, for the caller to apply; for a
        /// retained message, its fingerprint, for `rememberApplied` once it is applied.
        case setConfiguration(JSONValue, retained: String?)
        /// A retained `setConfiguration` already applied (the broker hands it over again
        /// on every subscription): not applied again.
        case alreadyApplied
        /// A message that is not a command this tool takes, or one the destination's
        /// `commands` does not allow, with why.
        case ignored(String)
    }

    /// Keeps the connection alive and answers commands until `deadline`, as the
    /// destination's `commands` allows: `reportLocation` publishes the journal's newest
    /// point at once (`t`:`r`); `setConfiguration` is handed to `onCommand` for the caller
    /// to validate and apply. Throws `.tryLater` when the connection is lost (the next
    /// drain reconnects).
    public func idle(until deadline: ContinuousClock.Instant, onCommand: (CommandOutcome) -> Void) throws(MQTTError) {
        guard let client, client.isConnected else { return }
        while ContinuousClock.now < deadline {
            try client.step(timeoutMilliseconds: 200)
            for message in client.takeMessages() where message.topic == messages.commandTopic {
                onCommand(try handle(command: message))
            }
            overflow += client.overflow
            // Said once, then at most every 10 s while a flood lasts.
            if overflow > 0, overflowSaid.map({ timing.monotonicClock() - $0 >= .seconds(10) }) ?? true {
                onCommand(.ignored("\(Plural.count(overflow, "message")) on '\(messages.commandTopic)' dropped unread: more than "
                                   + "\(MQTTSession.messagesPerSecond) a second or \(MQTTSession.messageLimit) waiting"))
                overflow = 0
                overflowSaid = timing.monotonicClock()
            }
            if reportPending, let last = lastReport, timing.monotonicClock() - last >= .seconds(1) {
                reportPending = false
                onCommand(try reportLocation())
            }
            for dropped in client.takeDropped() {
                onCommand(.ignored("a message of \(dropped.size) bytes on '\(PrintableText.sanitised(dropped.topic, allowLineBreaks: false))' dropped unread: "
                                   + "more than the \(client.options.maximumPacketSize) bytes this client takes"))
            }
        }
    }

    private func handle(command message: MQTTClient.Message) throws(MQTTError) -> CommandOutcome {
        let command: OwnTracksCommand
        do {
            command = try OwnTracksCommand(payload: message.payload)
        } catch {
            return .ignored(error.description)
        }
        switch command {
        case .reportLocation:
            guard destination.commands != .none else { return .ignored(notAllowed("reportLocation", needs: "report")) }
            // One answer a second: requests within a second of the last answer get one
            // more, when the second is up (`idle`), so a flood costs one point a second.
            if let last = lastReport, timing.monotonicClock() - last < .seconds(1) {
                reportPending = true
                return .reportedRecently
            }
            return try reportLocation()
        case .setConfiguration(let configuration):
            guard destination.commands == .all else { return .ignored(notAllowed("setConfiguration", needs: "all")) }
            guard message.retained else { return .setConfiguration(configuration, retained: nil) }
            let fingerprint = FNV1a.hex(String(decoding: message.payload, as: UTF8.self))
            if RetainedCommandState.load(journal: journal, destination: cursor.name.text) == fingerprint { return .alreadyApplied }
            return .setConfiguration(configuration, retained: fingerprint)
        case .unsupported(let action):
            return .ignored("command '\(action)' is not one this tool takes (reportLocation, setConfiguration)")
        }
    }

    /// Publishes the journal's newest point, `t`:`r`.
    private func reportLocation() throws(MQTTError) -> CommandOutcome {
        lastReport = timing.monotonicClock()
        guard let point = newestPoint() else { return .reportedLocation(published: false) }
        try publishAndWait(messages.location(point, retain: !destination.loggingMode.sendsEveryPoint || destination.pubRetain, trigger: "r"))
        return .reportedLocation(published: true)
    }

    /// Records that the retained command with `fingerprint` was applied: the broker's next
    /// copy of it (at every subscription) is passed over.
    public func rememberApplied(_ fingerprint: String) throws(JournalError) {
        try RetainedCommandState.save(fingerprint, journal: journal, destination: cursor.name.text)
    }

    private func notAllowed(_ action: String, needs: String) -> String {
        "\(action) not obeyed: destination '\(destination.name)' takes commands '\(destination.commands.rawValue)'; "
            + "'overland destination set \(destination.name) commands \(needs)' allows it"
    }

    /// The newest location by time in the journal's last segments.
    private func newestPoint() -> LocationFeature? {
        guard let record = try? journal.lastRecord(where: { line in (try? LocationFeature(jsonLine: line)) != nil }) else { return nil }
        return try? LocationFeature(jsonLine: record.line)
    }
}

extension MQTTDestination {
    /// `HOST:PORT` for messages, or the url as `RedactedURL` shows it when it does not parse.
    public var displayBroker: String { (try? MQTTBrokerURL(parsing: url))?.description ?? RedactedURL.shown(url) }
}
