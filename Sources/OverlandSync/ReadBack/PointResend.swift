import OverlandJournal
import OverlandProtocol

/// `overland destination resend`: sends points acknowledged before again, once, through the
/// destination's own path (`ReadBackResender`: an HTTP receiver's own requests, a broker's
/// QoS 1 publishes), ending with the newest point acknowledged, as read-back's resends do.
/// Either every point of a time span, or only those the receiver does not hold
/// (`ReadBackAudit.Day.unheld`). The cursor and the read-back state are not touched: what
/// was sent again is confirmed by reading back (`overland destination audit`). Memory:
/// `batch` journal lines, or one audit group's points.
public struct PointResend: Sendable {
    public let journal: Journal
    public let cursorName: CursorName
    public let resender: any ReadBackResender
    public let timeout: Duration
    /// Points handed to the resender at once.
    public var batch = 500

    public init(journal: Journal, cursor: CursorName, resender: any ReadBackResender, timeout: Duration) {
        self.journal = journal
        self.cursorName = cursor
        self.resender = resender
        self.timeout = timeout
    }

    /// What was sent again: how many points, from when to when (Unix seconds).
    public struct Summary: Sendable, Equatable {
        public var points = 0
        public var first = Int64.max
        public var last = Int64.min

        mutating func note(_ time: Int64) {
            points += 1
            first = min(first, time)
            last = max(last, time)
        }
    }

    /// Sends again every point acknowledged (before the cursor) whose time is in `span`,
    /// in journal order, `onBatch` told after each batch.
    public func sendAll(in span: ClosedRange<Int64>, onBatch: (Summary) -> Void = { _ in }) async throws -> Summary {
        let cursor = try journal.cursor(for: cursorName)
        let records = try journal.records(from: 0)
        var summary = Summary()
        var lines: [ArraySlice<UInt8>] = []
        while let record = try records.next(), record.sequence < cursor {
            guard let point = try? LocationFeature(jsonLine: record.line), span.contains(point.timestamp) else { continue }
            lines.append(record.line)
            summary.note(point.timestamp)
            if lines.count == batch {
                try await resender.resend(lines, timeout: timeout)
                lines.removeAll(keepingCapacity: true)
                onBatch(summary)
            }
        }
        if !lines.isEmpty { try await resender.resend(lines, timeout: timeout) }
        try await finish(summary)
        return summary
    }

    /// Sends again what `audit` finds the receiver does not hold in `span`, a day at a time
    /// as the audit compares it; `onDay` gets each day as compared, before its points are sent.
    public func sendUnheld(by audit: ReadBackAudit, since: Int64?, until: Int64?,
                           onDay: (ReadBackAudit.Day) -> Void = { _ in }) async throws -> Summary {
        var summary = Summary()
        try await audit.run(since: since, until: until) { day in
            onDay(day)
            var start = 0
            while start < day.unheld.count {
                let slice = day.unheld[start..<min(start + batch, day.unheld.count)]
                try await resender.resend(slice.map(\.line), timeout: timeout)
                for point in slice { summary.note(point.time) }
                start += batch
            }
        }
        try await finish(summary)
        return summary
    }

    /// The resender's last step once something was sent (the newest point once more).
    private func finish(_ summary: Summary) async throws {
        guard summary.points > 0 else { return }
        try await resender.finish(timeout: timeout)
    }
}
