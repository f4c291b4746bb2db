import OverlandJSON
import OverlandJournal
import OverlandProtocol

/// `overland destination audit`: compares the receiver's store with every point still in
/// the journal (from `since`), a UTC day at a time: sent (acknowledged: before the cursor),
/// stored, missing (sent, and the receiver holds nothing at that second), moved (it holds
/// that second at another position), extra (it holds a point the journal does not have).
/// Memory: one day's answer (`answerLimit`) and one day's journal points at most.
public struct ReadBackAudit: Sendable {
    public let journal: Journal
    public let cursorName: CursorName
    public let deviceID: String
    public let reader: any ReadBackReader
    private let transport: any Transport
    private let requestTimeout: Duration
    private let wallClock: @Sendable () -> Int64
    /// Points one day's answer may hold at most.
    public var answerLimit = 200_000

    public init(journal: Journal, cursor: CursorName, deviceID: String, reader: any ReadBackReader,
                transport: any Transport, requestTimeout: Duration = .seconds(60),
                wallClock: @escaping @Sendable () -> Int64 = { Journal.currentTime() }) {
        self.journal = journal
        self.cursorName = cursor
        self.deviceID = deviceID
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

    /// The days from `since` (Unix seconds; nil: the journal's first point), oldest first,
    /// each handed to `onDay` as it is done.
    public func run(since: Int64?, onDay: (Day) -> Void) async throws {
        let cursor = try journal.cursor(for: cursorName)
        var session = ReadBackPass.Session(reader: reader, transport: transport, timeout: requestTimeout, answerLimit: answerLimit)
        let records = try journal.records(from: 0)
        var dayStart: Int64?
        var points: [LocationFeature] = []
        while let record = try records.next(), record.sequence < cursor {
            guard let point = try? LocationFeature(jsonLine: record.line), point.timestamp >= since ?? .min else { continue }
            let start = point.timestamp - ((point.timestamp % 86_400) + 86_400) % 86_400
            if let current = dayStart, current != start {
                onDay(try await compare(current, points, session: &session))
                points.removeAll(keepingCapacity: true)
            }
            dayStart = start
            points.append(point)
        }
        if let dayStart { onDay(try await compare(dayStart, points, session: &session)) }
    }

    /// One day: the receiver's points for the whole day against the journal's.
    private func compare(_ start: Int64, _ points: [LocationFeature], session: inout ReadBackPass.Session) async throws -> Day {
        var result = Day(start: start)
        result.sent = points.count
        let held = try await session.read(from: start, through: start + 86_399, now: wallClock())
            .filter { ($0.device == nil || $0.device == deviceID) && (!reader.keepsFixTime || ($0.time >= start && $0.time < start + 86_400)) }
        var unused = [Int64: [StoredPoint]]()
        for point in held { unused[point.time, default: []].append(point) }
        for point in points {
            var atSecond = unused[point.timestamp] ?? []
            if let index = atSecond.firstIndex(where: { $0.isAt(latitude: point.latitude, longitude: point.longitude) }) {
                atSecond.remove(at: index)
                unused[point.timestamp] = atSecond
                result.stored += 1
            } else if !reader.keepsFixTime, held.contains(where: { $0.isAt(latitude: point.latitude, longitude: point.longitude) }) {
                result.stored += 1
            } else if !atSecond.isEmpty {
                result.moved += 1
            } else {
                result.missing += 1
            }
        }
        result.extra = reader.keepsFixTime ? unused.values.reduce(0) { $0 + $1.count } : max(0, held.count - result.stored)
        return result
    }
}
