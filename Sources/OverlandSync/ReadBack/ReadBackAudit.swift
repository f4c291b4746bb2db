import OverlandJSON
import OverlandJournal
import OverlandProtocol

/// `overland destination audit`: compares the receiver's store with every point still in
/// the journal (from `since`), a UTC day at a time: sent (acknowledged: before the cursor),
/// stored, missing (sent, and the receiver holds nothing at that second), moved (it holds
/// that second at another position), extra (it holds a point the journal does not have).
/// Memory: one day's answer (`answerLimit`) and `answerLimit` journal points at most.
public struct ReadBackAudit: Sendable {
    public let journal: Journal
    public let cursorName: CursorName
    /// How the destination sends: which device each point is filed under (`filedDevice`).
    public let configuration: SyncConfiguration
    public let reader: any ReadBackReader
    private let transport: any Transport
    private let requestTimeout: Duration
    private let wallClock: @Sendable () -> Int64
    /// Points one day's answer may hold at most.
    public var answerLimit = 200_000

    public init(journal: Journal, cursor: CursorName, configuration: SyncConfiguration, reader: any ReadBackReader,
                transport: any Transport, requestTimeout: Duration = .seconds(60),
                wallClock: @escaping @Sendable () -> Int64 = { Journal.currentTime() }) {
        self.journal = journal
        self.cursorName = cursor
        self.configuration = configuration
        self.reader = reader
        self.transport = transport
        self.requestTimeout = requestTimeout
        self.wallClock = wallClock
    }

    /// One day's comparison.
    public struct Day: Sendable, Equatable {
        /// The day's first second (UTC midnight).
        public var start: Int64
        public var sent = 0
        public var stored = 0
        public var missing = 0
        public var moved = 0
        public var extra = 0
        /// The points sent that the receiver does not hold at their second and position
        /// (missing or moved), in journal order: what `overland destination resend
        /// --missing` sends again.
        public var unheld: [Unheld] = []
        /// The records compared (every point of the day acknowledged).
        public var compared = RecordSet(limit: .max)
    }

    /// A point sent that the receiver does not hold: its record and journal line.
    public struct Unheld: Sendable, Equatable {
        public var sequence: UInt64
        public var line: ArraySlice<UInt8>
        /// The point's time (Unix seconds).
        public var time: Int64
    }

    /// The days from `since` through `until` (Unix seconds; nil: the journal's first point,
    /// its last), in date order whatever order the journal holds them in, each handed to
    /// `onDay` as it is done.
    /// The journal is read once to count the days' points, then once for each group of days
    /// holding at most `answerLimit` points together (memory: one group's points).
    public func run(since: Int64?, until: Int64? = nil, onDay: (Day) async throws -> Void) async throws {
        let span = (since ?? .min)...(until ?? .max)
        let counts = try dayCounts(span)
        var session = ReadBackPass.Session(reader: reader, transport: transport, timeout: requestTimeout, answerLimit: answerLimit)
        var group: [Int64] = []
        var total = 0
        for day in counts.keys.sorted() {
            if !group.isEmpty, total + counts[day, default: 0] > answerLimit {
                try await compare(days: group, span, session: &session, onDay: onDay)
                group.removeAll()
                total = 0
            }
            group.append(day)
            total += counts[day, default: 0]
        }
        if !group.isEmpty { try await compare(days: group, span, session: &session, onDay: onDay) }
    }

    /// The UTC day (its first second) of `time`.
    static func day(of time: Int64) -> Int64 { time - ((time % 86_400) + 86_400) % 86_400 }

    /// Calls `body` with every point acknowledged (before the cursor) whose time is in `span`.
    private func forEachSent(_ span: ClosedRange<Int64>, _ body: (ReadBackPass.Sent) -> Void) throws {
        let cursor = try journal.cursor(for: cursorName)
        let records = try journal.records(from: 0)
        while let record = try records.next(), record.sequence < cursor {
            guard let point = try? LocationFeature(jsonLine: record.line), span.contains(point.timestamp) else { continue }
            body(ReadBackPass.Sent(sequence: record.sequence, line: record.line, point: point))
        }
    }

    /// The points of each day.
    private func dayCounts(_ span: ClosedRange<Int64>) throws -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        try forEachSent(span) { counts[Self.day(of: $0.point.timestamp), default: 0] += 1 }
        return counts
    }

    /// The days `days` (in order), their points gathered in one read of the journal.
    private func compare(days: [Int64], _ span: ClosedRange<Int64>, session: inout ReadBackPass.Session,
                         onDay: (Day) async throws -> Void) async throws {
        let wanted = Set(days)
        var points: [Int64: [ReadBackPass.Sent]] = [:]
        try forEachSent(span) { sent in
            let day = Self.day(of: sent.point.timestamp)
            if wanted.contains(day) { points[day, default: []].append(sent) }
        }
        for day in days {
            // Each day's read bounded by what its points can need.
            session.budget = ReadBackBudget(points: points[day]?.count ?? 0)
            try await onDay(try await compare(day, points[day] ?? [], session: &session))
        }
    }

    /// One day: the receiver's points for the whole day against the journal's, each under
    /// the device it was filed under, by the pass's rule (`HeldPoints`). A point not held
    /// is moved when the receiver holds, at its second, a point that is a copy of none of
    /// the day's; missing otherwise. A point held twice (sent again), or held once and in
    /// the journal twice, is stored and not extra.
    private func compare(_ start: Int64, _ sent: [ReadBackPass.Sent], session: inout ReadBackPass.Session) async throws -> Day {
        var result = Day(start: start)
        result.sent = sent.count
        let filed = sent.map { (point: $0.point, device: configuration.filedDevice(of: $0.point)) }
        let devices = Set(filed.map(\.device))
        let answer = try await session.read(from: start, through: start + 86_399, now: wallClock())
            .filter { ($0.device == nil || devices.contains($0.device ?? "")) && (!reader.keepsFixTime || ($0.time >= start && $0.time < start + 86_400)) }
        let held = ReadBackPass.HeldPoints(answer, keepsFixTime: reader.keepsFixTime)
        let unclaimed = held.unclaimed(by: filed)
        let unclaimedSeconds = Set(unclaimed.map(\.time))
        for (entry, (point, device)) in zip(sent, filed) {
            result.compared.insert(entry.sequence)
            if held.holds(point, device: device) {
                result.stored += 1
                continue
            }
            if unclaimedSeconds.contains(point.timestamp) { result.moved += 1 } else { result.missing += 1 }
            result.unheld.append(Unheld(sequence: entry.sequence, line: entry.line, time: point.timestamp))
        }
        result.extra = unclaimed.count
        return result
    }
}

extension SyncState {
    /// What an audit found of `day`, for `overland status`: the records it compared before
    /// `settled` (the stored mark; the cursor when the destination does not verify) leave
    /// the refused records, those it found not held join them. What the sync's pass has
    /// not judged yet (from the stored mark on) stays the pass's.
    public mutating func record(audited day: ReadBackAudit.Day, before settled: UInt64) {
        for range in day.compared.ranges where range.lowerBound < settled {
            refused.remove(range.lowerBound..<min(range.upperBound, settled))
        }
        for point in day.unheld where point.sequence < settled { refused.insert(point.sequence) }
    }
}
