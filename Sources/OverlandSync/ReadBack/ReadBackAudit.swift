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
    }

    /// The days from `since` (Unix seconds; nil: the journal's first point), in date
    /// order whatever order the journal holds them in, each handed to `onDay` as it is done.
    /// The journal is read once to count the days' points, then once for each group of days
    /// holding at most `answerLimit` points together (memory: one group's points).
    public func run(since: Int64?, onDay: (Day) -> Void) async throws {
        let counts = try dayCounts(since: since)
        var session = ReadBackPass.Session(reader: reader, transport: transport, timeout: requestTimeout, answerLimit: answerLimit)
        var group: [Int64] = []
        var total = 0
        for day in counts.keys.sorted() {
            if !group.isEmpty, total + counts[day, default: 0] > answerLimit {
                try await compare(days: group, since: since, session: &session, onDay: onDay)
                group.removeAll()
                total = 0
            }
            group.append(day)
            total += counts[day, default: 0]
        }
        if !group.isEmpty { try await compare(days: group, since: since, session: &session, onDay: onDay) }
    }

    /// The UTC day (its first second) of `time`.
    static func day(of time: Int64) -> Int64 { time - ((time % 86_400) + 86_400) % 86_400 }

    /// Calls `body` with every point acknowledged (before the cursor) from `since`.
    private func forEachSent(since: Int64?, _ body: (LocationFeature) -> Void) throws {
        let cursor = try journal.cursor(for: cursorName)
        let records = try journal.records(from: 0)
        while let record = try records.next(), record.sequence < cursor {
            guard let point = try? LocationFeature(jsonLine: record.line), point.timestamp >= since ?? .min else { continue }
            body(point)
        }
    }

    /// The points of each day.
    private func dayCounts(since: Int64?) throws -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        try forEachSent(since: since) { counts[Self.day(of: $0.timestamp), default: 0] += 1 }
        return counts
    }

    /// The days `days` (in order), their points gathered in one read of the journal.
    private func compare(days: [Int64], since: Int64?, session: inout ReadBackPass.Session, onDay: (Day) -> Void) async throws {
        let wanted = Set(days)
        var points: [Int64: [LocationFeature]] = [:]
        try forEachSent(since: since) { point in
            let day = Self.day(of: point.timestamp)
            if wanted.contains(day) { points[day, default: []].append(point) }
        }
        for day in days {
            // Each day's read bounded by what its points can need.
            session.budget = ReadBackBudget(points: points[day]?.count ?? 0)
            onDay(try await compare(day, points[day] ?? [], session: &session))
        }
    }

    /// One day: the receiver's points for the whole day against the journal's, each under
    /// the device it was filed under. A second copy of a stored point (a resend the first
    /// copy made unnecessary) is neither missing nor extra.
    private func compare(_ start: Int64, _ points: [LocationFeature], session: inout ReadBackPass.Session) async throws -> Day {
        var result = Day(start: start)
        result.sent = points.count
        let devices = Set(points.map(configuration.filedDevice(of:)))
        let held = try await session.read(from: start, through: start + 86_399, now: wallClock())
            .filter { ($0.device == nil || devices.contains($0.device ?? "")) && (!reader.keepsFixTime || ($0.time >= start && $0.time < start + 86_400)) }
        let bySecond = Dictionary(grouping: held, by: \.time)
        var unused = bySecond
        for point in points {
            let device = configuration.filedDevice(of: point)
            func matches(_ stored: StoredPoint) -> Bool {
                stored.isAt(latitude: point.latitude, longitude: point.longitude) && (stored.device == nil || stored.device == device)
            }
            let atSecond = unused[point.timestamp] ?? []
            if atSecond.contains(where: matches) || (!reader.keepsFixTime && held.contains(where: matches)) {
                // Every copy at once: a point held twice (sent again) is stored, not extra.
                unused[point.timestamp] = atSecond.filter { !matches($0) }
                result.stored += 1
            } else if reader.keepsFixTime, bySecond[point.timestamp]?.contains(where: matches) == true {
                result.stored += 1  // the journal holds this point twice
            } else if !atSecond.isEmpty {
                result.moved += 1
            } else {
                result.missing += 1
            }
        }
        result.extra = reader.keepsFixTime ? unused.values.reduce(0) { $0 + $1.count }
            : max(0, held.count - Self.copies(of: points, in: held))
        return result
    }

    /// How many of `held` are copies of `points` (matched by position, where the receiver
    /// keeps no fix time): every copy of a point sent, however often it was sent.
    private static func copies(of points: [LocationFeature], in held: [StoredPoint]) -> Int {
        held.filter { stored in points.contains { stored.isAt(latitude: $0.latitude, longitude: $0.longitude) } }.count
    }
}
