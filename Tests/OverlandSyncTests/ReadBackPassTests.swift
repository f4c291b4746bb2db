import Foundation
import OverlandJSON
import OverlandJournal
import OverlandProtocol
import Testing

@testable import OverlandSync

/// `ReadBackPass` against an in-memory Recorder (`RecorderTransport`): what is compared,
/// what is sent again, the bounds of one run, and the settle time (`Clock`: each pass
/// reads its own instant).
@Suite struct ReadBackPassTests {
    /// An OwnTracks Recorder in memory: `/pub` keeps what `keep` allows, `/api/0/locations`
    /// answers from what it kept (the shapes of recorder http.c, as docs/receivers.md cites).
    final class RecorderTransport: Transport, @unchecked Sendable {
        private let lock = NSLock()
        private var held: [StoredPoint] = []
        private(set) var posts = 0
        private(set) var gets = 0
        let keep: @Sendable (Int) -> Bool

        init(keep: @escaping @Sendable (Int) -> Bool) { self.keep = keep }

        var stored: Int { lock.withLock { held.count } }

        /// Holds `point` as if a broker had fed it.
        func hold(_ point: StoredPoint) { lock.withLock { held.append(point) } }

        func send(_ request: SyncRequest, timeout: Duration) async throws -> HTTPReply {
            lock.withLock {
                let query = Dictionary((URLComponents(string: request.url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                                       uniquingKeysWith: { first, _ in first })
                if request.method == "GET" {
                    gets += 1
                    let from = query["from"].flatMap { ISO8601UTC.parse($0 + "Z") } ?? .max
                    let to = query["to"].flatMap { ISO8601UTC.parse($0 + "Z") } ?? .min
                    let data = held.filter { $0.time >= from && $0.time <= to }
                        .map { #"{"_type":"location","tst":\#($0.time),"lat":\#($0.latitude),"lon":\#($0.longitude)}"# }
                    return HTTPReply(status: 200, body: Array(#"{"data":[\#(data.joined(separator: ","))],"status":200}"#.utf8))
                }
                posts += 1
                if keep(posts), let message = try? JSONParser.parse(request.body),
                   let tst = message["tst"]?.double, let lat = message["lat"]?.double, let lon = message["lon"]?.double {
                    held.append(StoredPoint(time: Int64(tst), latitude: lat, longitude: lon))
                }
                return HTTPReply(status: 200, body: Array("[]".utf8))
            }
        }
    }

    /// A broker's resends: kept here, to be fed to the Recorder when the test says
    /// (a broker acknowledges before its subscriber has the message).
    final class BrokerResender: ReadBackResender, @unchecked Sendable {
        private let lock = NSLock()
        private var published: [[UInt8]] = []
        var route: String { " through the broker" }
        var lines: [[UInt8]] { lock.withLock { published } }

        func resend(_ lines: [ArraySlice<UInt8>], timeout: Duration) async throws {
            lock.withLock { published += lines.map(Array.init) }
        }
    }

    /// The passes' clock, stepped by the test.
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var seconds: Int64 = 1_800_000_000
        var now: Int64 { lock.withLock { seconds } }
        func advance(_ by: Int64) { lock.withLock { seconds += by } }
    }

    /// The Recorder's settle time: a pass this long after a resend reads it back.
    static let settle: Int64 = 30

    private func pass(_ fixture: JournalFixture, _ transport: RecorderTransport, clock: Clock, chunk: Int = 500,
                      resendLimit: Int = 2_000, resender: (any ReadBackResender)? = nil) throws -> ReadBackPass {
        var configuration = SyncConfiguration(endpoint: "http://127.0.0.1:8083/pub", token: "bob:pw", deviceID: "van")
        configuration.wireProtocol = .owntracks
        configuration.profile = .owntracksRecorder
        let reader = try ReadBackReaders.reader(for: configuration, verifyURL: nil, verifyToken: nil)
        #expect(reader.settleSeconds == Self.settle)
        var pass = ReadBackPass(journal: fixture.journal, cursor: .default, configuration: configuration, reader: reader,
                                transport: transport, resender: resender, wallClock: { clock.now })
        pass.chunkSize = chunk
        pass.resendLimit = resendLimit
        return pass
    }

    private func hold(_ transport: RecorderTransport, _ indexes: Range<Int>) {
        for index in indexes {
            let point = JournalFixture.point(index)
            transport.hold(StoredPoint(time: point.timestamp, latitude: point.latitude, longitude: point.longitude))
        }
    }

    @Test func comparesInChunksAndReadsWhatWasSentAgainOnlyOnceSettled() async throws {
        let fixture = try JournalFixture(points: 30)
        try CursorWrites.advance(fixture.journal, .default, to: 30)
        let clock = Clock()
        let transport = RecorderTransport { _ in true }
        hold(transport, 0..<20)
        let first = try await pass(fixture, transport, clock: clock, chunk: 10).run(runStart: 0)
        #expect(first.checked == 30 && first.stored == 20 && first.resent == 10 && first.storedThrough == 20)
        #expect(transport.posts == 11, "the 10 missing, then the newest once more")
        #expect(transport.gets == 3, "one read a chunk")
        // Within the settle time: what was sent again is not read.
        clock.advance(Self.settle - 1)
        let early = try await pass(fixture, transport, clock: clock, chunk: 10).run(runStart: 0)
        #expect(early.checked == 0 && early.waiting == 10 && transport.gets == 3 && early.storedThrough == 20)
        clock.advance(1)
        let settled = try await pass(fixture, transport, clock: clock, chunk: 10).run(runStart: 0)
        #expect(settled.checked == 10 && settled.stored == 10 && settled.storedThrough == 30 && settled.unfinished == nil)
        #expect(fixture.state.storedThrough == 30 && fixture.state.resends.isEmpty && fixture.state.resentAt == nil)
    }

    @Test func whatARunAcknowledgedIsReadOnceSettled() async throws {
        let fixture = try JournalFixture(points: 30)
        try CursorWrites.advance(fixture.journal, .default, to: 30)
        let clock = Clock()
        let transport = RecorderTransport { _ in true }
        try ReadBackPass.begin(fixture.journal, .default, acknowledged: 0..<10, now: clock.now - Self.settle)
        try ReadBackPass.begin(fixture.journal, .default, acknowledged: 10..<30, now: clock.now)
        hold(transport, 0..<30)
        let report = try await pass(fixture, transport, clock: clock, chunk: 10).run(runStart: 0)
        #expect(report.checked == 10 && report.storedThrough == 10 && report.waiting == 20)
        clock.advance(Self.settle)
        let later = try await pass(fixture, transport, clock: clock, chunk: 10).run(runStart: 0)
        #expect(later.checked == 20 && later.storedThrough == 30 && fixture.state.acknowledgedAt.isEmpty)
    }

    @Test func theResendsOfOneRunAreBounded() async throws {
        let fixture = try JournalFixture(points: 30)
        try CursorWrites.advance(fixture.journal, .default, to: 30)
        let transport = RecorderTransport { _ in false }
        let report = try await pass(fixture, transport, clock: Clock(), chunk: 10, resendLimit: 10).run(runStart: 0)
        #expect(transport.posts == 11, "no more than the limit, and the newest once more")
        #expect(report.unfinished?.contains("next run") == true)
        #expect(report.storedThrough == 0 && report.refused == nil)
        #expect(fixture.state.resends.count == 10 && fixture.state.resends.values.allSatisfy { $0 == 1 })
    }

    @Test func aPointMissingAtThreeSettledReadsIsRefusedOnce() async throws {
        let fixture = try JournalFixture(points: 12)
        try CursorWrites.advance(fixture.journal, .default, to: 12)
        let clock = Clock()
        let transport = RecorderTransport { _ in false }
        for _ in 0..<2 {
            let run = try await pass(fixture, transport, clock: clock).run(runStart: 0)
            #expect(run.refused == nil && run.resent == 12)
            clock.advance(Self.settle)
        }
        let report = try await pass(fixture, transport, clock: clock).run(runStart: 0)
        let refused = try #require(report.refused)
        #expect(refused.count == 12 && refused.firstTime == 1_700_000_000 && refused.lastTime == 1_700_000_011)
        #expect(refused.cause == nil && refused.noneHeld, "nothing stored: no property sets them apart")
        #expect(transport.posts == 26)
        #expect(fixture.state.refusedRecords == 12 && fixture.state.storedThrough == 12)
        // Nothing left to compare: a second pass asks nothing.
        let again = try await pass(fixture, transport, clock: clock).run(runStart: 0)
        #expect(again.checked == 0 && transport.posts == 26)
    }

    @Test func aStoredMarkBeyondTheCursorStartsReadingBackAgain() async throws {
        let fixture = try JournalFixture(points: 20)
        try CursorWrites.advance(fixture.journal, .default, to: 20)
        var state = SyncState()
        state.storedThrough = 1 << 53
        try state.save(in: fixture.journal)
        let transport = RecorderTransport { _ in true }
        hold(transport, 0..<20)
        let report = try await pass(fixture, transport, clock: Clock(), chunk: 10).run(runStart: 20)
        #expect(report.checked == 20 && report.storedThrough == 20 && report.notes.count == 1)
        #expect(fixture.state.storedThrough == 20)
    }

    // MARK: Through a broker

    @Test func throughABrokerARunReadsBackOnlyWhatEarlierRunsPublished() async throws {
        let fixture = try JournalFixture(points: 30)
        try CursorWrites.advance(fixture.journal, .default, to: 30)
        let clock = Clock()
        let transport = RecorderTransport { _ in false }
        // This run's drain published all 30 (it began at 0): nothing is read back yet.
        try ReadBackPass.begin(fixture.journal, .default, acknowledged: 0..<30, now: clock.now)
        let own = try await pass(fixture, transport, clock: clock, resender: BrokerResender()).run(runStart: 0)
        #expect(own.checked == 0 && transport.gets == 0 && own.unfinished == nil)
        #expect(fixture.state.storedThrough == 0)
    }

    @Test func throughABrokerWhatIsSentAgainIsReadBackByALaterRun() async throws {
        let fixture = try JournalFixture(points: 30)
        try CursorWrites.advance(fixture.journal, .default, to: 30)
        let clock = Clock()
        let transport = RecorderTransport { _ in false }
        try ReadBackPass.begin(fixture.journal, .default, acknowledged: 0..<30, now: clock.now - Self.settle)
        // The Recorder holds the first 10 of what an earlier run published.
        hold(transport, 0..<10)
        let broker = BrokerResender()
        let first = try await pass(fixture, transport, clock: clock, chunk: 10, resender: broker).run(runStart: 30)
        #expect(first.checked == 30 && first.stored == 10 && first.resent == 20)
        #expect(first.unfinished == "20 points the receiver did not hold sent again through the broker")
        #expect(first.storedThrough == 10, "the mark stops before the first chunk sent again")
        #expect(broker.lines.count == 20)
        #expect(fixture.state.resends.count == 20 && fixture.state.resends.values.allSatisfy { $0 == 1 })
        // The broker delivers; a run once they settled finds them stored.
        for line in broker.lines {
            let point = try LocationFeature(jsonLine: line[...])
            transport.hold(StoredPoint(time: point.timestamp, latitude: point.latitude, longitude: point.longitude))
        }
        clock.advance(Self.settle)
        let second = try await pass(fixture, transport, clock: clock, chunk: 10, resender: broker).run(runStart: 30)
        #expect(second.unfinished == nil && second.resent == 0 && second.storedThrough == 30)
        #expect(fixture.state.resends.isEmpty && fixture.state.refusedRecords == 0)
    }

    @Test func throughABrokerAPointStillMissingAfterTwoRunsOfResendsIsRefusedOnce() async throws {
        let fixture = try JournalFixture(points: 20)
        try CursorWrites.advance(fixture.journal, .default, to: 20)
        let clock = Clock()
        let transport = RecorderTransport { _ in false }
        try ReadBackPass.begin(fixture.journal, .default, acknowledged: 0..<20, now: clock.now - Self.settle)
        let broker = BrokerResender()
        for _ in 0..<2 {
            let run = try await pass(fixture, transport, clock: clock, chunk: 10, resender: broker).run(runStart: 20)
            #expect(run.refused == nil && run.resent == 20 && run.storedThrough == 0)
            clock.advance(Self.settle)
        }
        let last = try await pass(fixture, transport, clock: clock, chunk: 10, resender: broker).run(runStart: 20)
        #expect(last.refused?.count == 20 && last.resent == 0 && last.storedThrough == 20)
        #expect(fixture.state.refusedRecords == 20, "the second chunk, compared behind a held one, counted once")
        #expect(broker.lines.count == 40)
    }

    // MARK: One matching rule, the pass's and the audit's

    /// What the pass and the audit find of the same journal against the same store: the
    /// records each finds not held (the pass sends them again), and how many each finds stored.
    private func passAndAudit(_ fixture: JournalFixture, _ transport: RecorderTransport,
                              records: UInt64) async throws -> (pass: [UInt64], audit: ReadBackAudit.Day) {
        try CursorWrites.advance(fixture.journal, .default, to: records)
        let clock = Clock()
        let pass = try self.pass(fixture, transport, clock: clock)
        let audit = ReadBackAudit(journal: fixture.journal, cursor: .default, configuration: pass.configuration, reader: pass.reader,
                                  transport: transport, wallClock: { clock.now })
        var days: [ReadBackAudit.Day] = []
        try await audit.run(since: nil) { days.append($0) }
        let day = try #require(days.first)
        #expect(days.count == 1)
        let report = await pass.run(runStart: 0)
        #expect(report.stored == day.stored, "the pass and the audit find as many stored")
        return (fixture.state.resends.keys.sorted(), day)
    }

    @Test func aDuplicateIsHeldAlikeByThePassAndTheAudit() async throws {
        let fixture = try JournalFixture(points: 4)
        // The journal holds point 1 twice (records 1 and 4); the receiver holds it twice too,
        // and point 2 not at all.
        try fixture.append(line: JournalFixture.point(1).jsonLine(), commit: true)
        let transport = RecorderTransport { _ in false }
        hold(transport, 0..<2)
        hold(transport, 1..<2)
        hold(transport, 3..<4)
        let (resent, day) = try await passAndAudit(fixture, transport, records: 5)
        #expect(resent == [2], "the pass holds both copies of point 1")
        #expect(day.unheld.map(\.sequence) == resent, "the audit finds not held what the pass sends again")
        #expect(day.stored == 4 && day.missing == 1 && day.moved == 0 && day.extra == 0,
                "a point held twice and in the journal twice is stored, never extra")
    }

    @Test func aPointBesideAnotherInItsSecondIsMissingInWhateverOrder() async throws {
        // Two points in one second at two positions; the receiver holds only one of them. The
        // one it lacks is missing (the point held at that second is the other's), whichever
        // the journal has first: the audit once said moved for the first and missing for the
        // second, by the order it met them.
        for heldFirst in [true, false] {
            let fixture = try JournalFixture(points: 0)
            var other = JournalFixture.point(0)
            other.latitude += 0.001
            let held = JournalFixture.point(0)
            for point in heldFirst ? [held, other] : [other, held] { try fixture.append(line: point.jsonLine(), commit: true) }
            let transport = RecorderTransport { _ in false }
            hold(transport, 0..<1)
            let (resent, day) = try await passAndAudit(fixture, transport, records: 2)
            #expect(resent == [heldFirst ? 1 : 0])
            #expect(day.unheld.map(\.sequence) == resent)
            #expect(day.stored == 1 && day.missing == 1 && day.moved == 0 && day.extra == 0, "held first: \(heldFirst)")
        }
    }
}
