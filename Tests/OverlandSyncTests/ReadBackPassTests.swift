import Foundation
import OverlandJSON
import OverlandJournal
import OverlandProtocol
import Testing

@testable import OverlandSync

/// `ReadBackPass` against an in-memory Recorder (`RecorderTransport`): what is compared,
/// what is sent again, and the bounds of one run.
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
        var readsBackAtOnce: Bool { false }
        var lines: [[UInt8]] { lock.withLock { published } }

        func resend(_ lines: [ArraySlice<UInt8>], timeout: Duration) async throws {
            lock.withLock { published += lines.map(Array.init) }
        }
    }

    private func pass(_ fixture: JournalFixture, _ transport: RecorderTransport, chunk: Int = 500, resendLimit: Int = 5_000,
                      resender: (any ReadBackResender)? = nil) throws -> ReadBackPass {
        var configuration = SyncConfiguration(endpoint: "http://127.0.0.1:8083/pub", token: "bob:pw", deviceID: "van")
        configuration.wireProtocol = .owntracks
        configuration.profile = .owntracksRecorder
        let reader = try ReadBackReaders.reader(for: configuration, verifyURL: nil, verifyToken: nil)
        var pass = ReadBackPass(journal: fixture.journal, cursor: .default, configuration: configuration, reader: reader,
                                transport: transport, resender: resender)
        pass.chunkSize = chunk
        pass.resendLimit = resendLimit
        return pass
    }

    @Test func comparesInChunksAndResendsWhatIsMissing() async throws {
        let fixture = try JournalFixture(points: 30)
        try CursorWrites.advance(fixture.journal, .default, to: 30)
        let transport = RecorderTransport { $0 % 7 != 0 }
        // Acknowledged but never sent here: the pass finds all 30 missing and sends them.
        let report = try await pass(fixture, transport, chunk: 10).run(runStart: 0)
        #expect(report.unfinished == nil && report.refused == nil)
        #expect(report.checked == 30 && report.stored == 30 && report.storedThrough == 30)
        #expect(transport.stored == 30)
        #expect(transport.gets >= 3, "one read a chunk at least")
        #expect(fixture.state.storedThrough == 30 && fixture.state.resends.isEmpty)
    }

    @Test func theResendsOfOneRunAreBounded() async throws {
        let fixture = try JournalFixture(points: 30)
        try CursorWrites.advance(fixture.journal, .default, to: 30)
        let transport = RecorderTransport { _ in false }
        let report = try await pass(fixture, transport, chunk: 10, resendLimit: 10).run(runStart: 0)
        #expect(transport.posts == 10, "no more than the limit")
        #expect(report.unfinished?.contains("next run") == true)
        #expect(report.storedThrough == 0 && report.refused == nil)
        #expect(fixture.state.resends.count == 10 && fixture.state.resends.values.allSatisfy { $0 == 1 })
    }

    @Test func aPointMissingAfterTwoResendsIsRefusedOnce() async throws {
        let fixture = try JournalFixture(points: 12)
        try CursorWrites.advance(fixture.journal, .default, to: 12)
        let transport = RecorderTransport { _ in false }
        let report = try await pass(fixture, transport).run(runStart: 0)
        let refused = try #require(report.refused)
        #expect(refused.count == 12 && refused.firstTime == 1_700_000_000 && refused.lastTime == 1_700_000_011)
        #expect(refused.cause == .fractionalSpeed, "every point has speed 4.25, and none was stored")
        #expect(transport.posts == 24)
        #expect(fixture.state.refusedRecords == 12 && fixture.state.storedThrough == 12)
        // Nothing left to compare: a second pass asks nothing.
        let again = try await pass(fixture, transport).run(runStart: 0)
        #expect(again.checked == 0 && transport.posts == 24)
    }

    // MARK: Through a broker

    @Test func throughABrokerARunReadsBackOnlyWhatEarlierRunsPublished() async throws {
        let fixture = try JournalFixture(points: 30)
        try CursorWrites.advance(fixture.journal, .default, to: 30)
        let transport = RecorderTransport { _ in false }
        // This run's drain published all 30 (it began at 0): nothing is read back yet.
        try ReadBackPass.begin(fixture.journal, .default, runStart: 0)
        let own = try await pass(fixture, transport, resender: BrokerResender()).run(runStart: 0)
        #expect(own.checked == 0 && transport.gets == 0 && own.unfinished == nil)
        #expect(fixture.state.storedThrough == 0)
    }

    @Test func throughABrokerWhatIsSentAgainIsReadBackByTheNextRun() async throws {
        let fixture = try JournalFixture(points: 30)
        try CursorWrites.advance(fixture.journal, .default, to: 30)
        let transport = RecorderTransport { _ in false }
        try ReadBackPass.begin(fixture.journal, .default, runStart: 0)
        // The Recorder holds the first 10 of what an earlier run published.
        for index in 0..<10 {
            let point = JournalFixture.point(index)
            transport.hold(StoredPoint(time: point.timestamp, latitude: point.latitude, longitude: point.longitude))
        }
        let broker = BrokerResender()
        let first = try await pass(fixture, transport, chunk: 10, resender: broker).run(runStart: 30)
        #expect(first.checked == 30 && first.stored == 10 && first.resent == 20 && first.resentForNextRun == 20)
        #expect(first.unfinished == "20 points the receiver did not hold sent again through the broker")
        #expect(first.storedThrough == 10, "the mark stops before the first chunk sent again")
        #expect(broker.lines.count == 20)
        #expect(fixture.state.resends.count == 20 && fixture.state.resends.values.allSatisfy { $0 == 1 })
        // The broker delivers; the next run finds them stored.
        for line in broker.lines {
            let point = try LocationFeature(jsonLine: line[...])
            transport.hold(StoredPoint(time: point.timestamp, latitude: point.latitude, longitude: point.longitude))
        }
        let second = try await pass(fixture, transport, chunk: 10, resender: broker).run(runStart: 30)
        #expect(second.unfinished == nil && second.resent == 0 && second.storedThrough == 30)
        #expect(fixture.state.resends.isEmpty && fixture.state.refusedRecords == 0)
    }

    @Test func throughABrokerAPointStillMissingAfterTwoRunsOfResendsIsRefusedOnce() async throws {
        let fixture = try JournalFixture(points: 20)
        try CursorWrites.advance(fixture.journal, .default, to: 20)
        let transport = RecorderTransport { _ in false }
        try ReadBackPass.begin(fixture.journal, .default, runStart: 0)
        let broker = BrokerResender()
        for _ in 0..<2 {
            let run = try await pass(fixture, transport, chunk: 10, resender: broker).run(runStart: 20)
            #expect(run.refused == nil && run.resentForNextRun == 20 && run.storedThrough == 0)
        }
        let last = try await pass(fixture, transport, chunk: 10, resender: broker).run(runStart: 20)
        #expect(last.refused?.count == 20 && last.resent == 0 && last.storedThrough == 20)
        #expect(fixture.state.refusedRecords == 20, "the second chunk, compared behind a held one, counted once")
        #expect(broker.lines.count == 40)
    }
}
