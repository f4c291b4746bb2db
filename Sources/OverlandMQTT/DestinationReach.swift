import OverlandJournal
import OverlandProtocol
import OverlandSettings
import OverlandSync

/// A destination as `destination audit` and `destination resend` reach it: as the sync
/// sends to it (`DestinationSenders`) and reads it back (its sender's `ReadBackRoute`).
public struct DestinationReach: Sendable {
    public let destination: Destination
    public let route: ReadBackRoute
    public let cursor: CursorName

    /// `destination` as `senders` send to it (the sync's sender of its carrier, whatever
    /// the sync would refuse of it: the command refuses that first).
    public init(_ destination: Destination, senders: DestinationSenders) {
        self.destination = destination
        cursor = CursorName(destination.name) ?? .default
        switch Receivers.carrier(of: destination.wireProtocol, url: destination.url) {
        case .mqttBroker: route = MQTTDestinationSender(name: cursor, destination: senders.mqtt(destination)).route
        case .http, nil: route = HTTPDestination(name: cursor, configuration: senders.http(destination)).route
        }
    }

    /// Whether it is sent to through a broker.
    public var throughBroker: Bool { route.broker != nil }

    /// The reader of the receiver's store, or why there is none (what to set).
    public func reader() throws(ReadBackError) -> any ReadBackReader {
        try route.reader(verifyURL: destination.verifyURL, verifyToken: destination.verifyToken)
    }

    /// The destination's own lock (`DestinationsRun.destinationLockName`), held while a sync
    /// sends to it or reads it back; nil when another process holds it.
    public func lock(_ journal: Journal) throws(JournalError) -> JournalLock? {
        try journal.tryLock(DestinationsRun.destinationLockName(cursor))
    }

    /// `text` with the destination's secrets (url, token, read token) taken out.
    public func hiding(_ text: String) -> String {
        SecretRedaction.hiding(url: destination.url, token: destination.token,
                               others: destination.verifyToken.map { [$0] } ?? [], in: text)
    }

    /// What the receiver holds of every point still in `journal` from `since` through
    /// `until`, a day at a time (`ReadBackAudit`), read with `reader`.
    public func audit(_ journal: Journal, reader: any ReadBackReader, since: Int64?, until: Int64?,
                      wallClock: @escaping @Sendable () -> Int64) async throws -> [ReadBackAudit.Day] {
        try await route.withTransport { transport in
            var days: [ReadBackAudit.Day] = []
            try await audit(journal, reader: reader, transport: transport, wallClock: wallClock)
                .run(since: since, until: until) { days.append($0) }
            return days
        }
    }

    /// The audit of `journal` through `transport` with `reader`.
    private func audit(_ journal: Journal, reader: any ReadBackReader, transport: any Transport,
                       wallClock: @escaping @Sendable () -> Int64) -> ReadBackAudit {
        ReadBackAudit(journal: journal, cursor: cursor, configuration: route.configuration, reader: reader,
                      transport: transport, wallClock: wallClock)
    }

    /// Keeps what the audit found not held (`days`) in the destination's state
    /// (`SyncState.refused`): `overland status` then counts what the audit counted. Call
    /// it holding the destination's lock.
    public func keep(_ days: [ReadBackAudit.Day], in journal: Journal) throws(JournalError) {
        var state = try SyncState.load(journal: journal, destination: destination.name)
        // What the sync's pass has not judged yet (from the stored mark on) stays the pass's.
        let settled: UInt64
        if let storedThrough = state.storedThrough { settled = storedThrough } else { settled = try journal.cursor(for: cursor) }
        let before = state
        for day in days { state.record(audited: day, before: settled) }
        if state != before { try state.save(in: journal, as: SyncState.fileName(forDestination: destination.name)) }
    }

    /// Sends again, once, what `reader` finds the receiver does not hold in `span` (with
    /// `reader`), or every point acknowledged in it (without), through the destination's
    /// own path; `onDay` hears each day compared, `onBatch` each batch sent.
    public func resend(_ journal: Journal, reader: (any ReadBackReader)?, since: Int64?, until: Int64?,
                       wallClock: @escaping @Sendable () -> Int64,
                       onDay: @escaping @Sendable (ReadBackAudit.Day) -> Void,
                       onBatch: @escaping @Sendable (PointResend.Summary) -> Void) async throws -> PointResend.Summary {
        let timeout = Duration.milliseconds(Int64(route.configuration.requestTimeout * 1000))
        return try await route.withTransport { transport in
            let resend = PointResend(journal: journal, cursor: cursor, resender: route.resender(journal: journal, transport: transport),
                                     timeout: timeout)
            if let reader {
                return try await resend.sendUnheld(by: audit(journal, reader: reader, transport: transport, wallClock: wallClock),
                                                   since: since, until: until, onDay: onDay)
            }
            return try await resend.sendAll(in: (since ?? .min)...(until ?? .max), onBatch: onBatch)
        }
    }
}
