import TestSupport
import Foundation
import OverlandJSON
import OverlandJournal
import OverlandProtocol
import OverlandSync

/// A journal in its own temporary directory, with the lines appended to it.
final class JournalFixture: @unchecked Sendable {
    let directory: String
    let journal: Journal
    private(set) var lines: [[UInt8]] = []
    private let appender: JournalAppender

    init(points: Int = 0, policy: JournalPolicy = JournalPolicy()) throws {
        directory = NSTemporaryDirectory() + "overland-sync-test-" + UUID().uuidString
        journal = try Journal(path: directory + "/journal", create: true, deviceID: "van")
        appender = try JournalAppender(journal: journal, policy: policy)
        try append(points: points)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Appends and commits `points` location records.
    func append(points: Int) throws {
        for _ in 0..<points {
            try append(line: Self.point(lines.count).jsonLine())
        }
        try appender.commit()
    }

    /// Appends and commits one record line as it is.
    func append(line: [UInt8], commit: Bool = false) throws {
        try appender.append(line)
        lines.append(line)
        if commit || appender.commitIsDue() { try appender.commit() }
    }

    func commit() throws {
        try appender.commit()
    }

    /// The `index`th test point: a drive along a line, one point a second.
    static func point(_ index: Int) -> LocationFeature {
        LocationFeature(
            longitude: -77.6963150 + Double(index) * 0.00001, latitude: 45.4909750 + Double(index % 1000) * 0.000003,
            timestamp: 1_700_000_000 + Int64(index), altitude: 12 + index % 7, speed: 4.25, course: index % 360,
            horizontalAccuracy: 5, verticalAccuracy: 8, speedAccuracy: 0.5, courseAccuracy: 4, motion: [.driving],
            batteryState: .unplugged, batteryLevel: 0.8, wifi: "", deviceID: "van")
    }

    var cursor: UInt64 { (try? journal.cursor()) ?? .max }

    var state: SyncState { (try? SyncState.load(journal: journal)) ?? SyncState() }

    func text(_ index: Int) -> String { String(decoding: lines[index], as: UTF8.self) }

    /// `{"locations":[lines in range]` without the closing brace, to compare a body's start.
    func locationsPrefix(_ range: Range<Int>) -> [UInt8] {
        var bytes = Array(#"{"locations":["#.utf8)
        for index in range {
            if index > range.lowerBound { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: lines[index])
        }
        bytes.append(UInt8(ascii: "]"))
        return bytes
    }
}

/// A wall clock a test sets by hand.
final class TestClock: Sendable {
    private let seconds = Locked<Int64>(1_800_000_000)
    var now: Int64 { seconds.current }
    func advance(_ delta: Int64) { seconds.withLock { $0 += delta } }
}

/// A monotonic clock a test moves by hand.
final class ManualClock: Sendable {
    private let offset = Locked(Duration.zero)
    private let origin = ContinuousClock.now
    var now: ContinuousClock.Instant { origin + offset.current }
    func advance(_ delta: Duration) { offset.withLock { $0 += delta } }
}

extension SyncConfiguration {
    /// A configuration for a fake transport (nothing listens at its endpoint) that sends
    /// at every run, 50 points a batch.
    static func fake() -> SyncConfiguration {
        var configuration = SyncConfiguration(endpoint: "http://127.0.0.1:9/in", token: "secret-token", deviceID: "van")
        configuration.sendIntervalSeconds = 0
        configuration.batchSize = 50
        return configuration
    }

    /// A configuration for `server` that sends at every run.
    static func test(_ server: LocalServer, path: String = "/overland", token: String? = "secret-token") -> SyncConfiguration {
        var configuration = SyncConfiguration(endpoint: server.baseURL + path, token: token, deviceID: "van")
        configuration.userAgent = "overland-sync/0.0.0-test"
        configuration.sendIntervalSeconds = 0
        // A guard against a hang, not a deadline: on a loaded two-core CI machine a reply's
        // parse waited past 60 s (deeplyNestedReplyIsNotAcknowledged, at load 6-8). The
        // tests about deadlines set their own short ones.
        configuration.requestTimeout = hangGuardSeconds
        configuration.connectTimeout = hangGuardSeconds
        configuration.batchSize = 50
        return configuration
    }
}

/// How long a test waits for an event before it calls it hung (seconds): never a measure
/// of speed, so generous that no load reaches it.
let hangGuardSeconds: Double = 600

/// Runs one sync of `fixture` against `configuration` through a real HTTP client.
func sync(
    _ fixture: JournalFixture, _ configuration: SyncConfiguration, clock: TestClock = TestClock(), sendNow: Bool = false,
    onProgress: ((SyncProgress) -> Void)? = nil, onSet: ((JSONValue) -> Void)? = nil
) async throws -> SyncReport {
    try await HTTPClientTransport.withTransport(configuration: configuration) { transport in
        let engine = SyncEngine(journal: fixture.journal, configuration: configuration, transport: transport,
                                wallClock: { clock.now }, random: { 0.5 })
        return await engine.run(sendNow: sendNow, onProgress: onProgress, onSet: onSet)
    }
}

/// Holds every request until the test opens the gate, then answers `{"result":"ok"}`: a
/// run that stays inside its request for as long as the test needs, whatever the load.
final class GatedTransport: Transport {
    private let gate = Locked<(open: Bool, held: [CheckedContinuation<Void, Never>], requests: Int)>((false, [], 0))
    private let arrival = AsyncStream<Void>.makeStream()
    /// One element as each request arrives; it ends at `endArrivals`.
    var arrivals: AsyncStream<Void> { arrival.stream }
    /// How many requests arrived.
    var requests: Int { gate.current.requests }

    func send(_ request: SyncRequest, timeout: Duration) async throws -> HTTPReply {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let goNow = gate.withLock { state -> Bool in
                state.requests += 1
                if state.open { return true }
                state.held.append(continuation)
                return false
            }
            arrival.continuation.yield()
            if goNow { continuation.resume() }
        }
        return HTTPReply(status: 200, headers: [SyncRequest.Header("Content-Type", "application/json")], body: Array(#"{"result":"ok"}"#.utf8))
    }

    /// Lets every held request and every later one through.
    func open() {
        let held = gate.withLock { state in
            state.open = true
            defer { state.held.removeAll() }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// Ends `arrivals` (the run is over: no request will come).
    func endArrivals() { arrival.continuation.finish() }
}
