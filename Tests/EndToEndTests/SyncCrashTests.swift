import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real `overland-sync` killed with SIGKILL mid-drain, at random moments and at its
/// named fault points, against a local server that records every body: after the drain is
/// finished every point has reached the server at least once, in order, and the only
/// repeats are the batch in flight at a kill, sent again byte for byte.
@Suite struct SyncCrashTests {
    static let token = "sync-crash-token-0f3c9a"

    /// A journal of `points` synthetic points, batch_size 50, and the server's URL.
    static func prepare(points: Int) throws -> ReliabilitySandbox {
        let sandbox = try ReliabilitySandbox(prefix: "overland-sync-crash")
        try sandbox.logEpochs(0..<points)
        try sandbox.writeSettings(#"{"main": {"batch_size": 50}}"#)
        return sandbox
    }

    /// A run over the sandbox's journal, or over a copy of it (`journal`): the tests copy
    /// one journal many times, which the sync's copy detection would rightly refuse.
    static func syncArguments(_ sandbox: ReliabilitySandbox, _ server: LocalServer, journal: String? = nil) -> [String] {
        ["--journal", journal ?? sandbox.journal, "--url", server.url, "--now"] + (journal == nil ? [] : ["--accept-copy"])
    }

    static var environment: [String: String?] { ["OVERLAND_TOKEN": token] }

    @Test func killedAtRandomMomentsMidDrain() throws {
        let chunk = 600
        var points = chunk
        let sandbox = try Self.prepare(points: points)
        var random = Soak.generator(0x5_C_C4A5)
        let delays = Locked(SeededGenerator(seed: random.next()))
        let server = try LocalServer { _, _ in
            LocalServer.ok(delay: .milliseconds(delays.withLock { Int.random(in: 0...4, using: &$0) }))
        }

        // How long a whole drain of one chunk takes here, to aim the kills inside one.
        let probe = try Self.prepare(points: chunk)
        let clock = ContinuousClock()
        let started = clock.now
        let whole = try probe.sync.run(Self.syncArguments(probe, server), environment: Self.environment)
        let drain = clock.now - started
        #expect(whole.succeeded, "\(whole)")
        server.clearRequests()
        let span = max(30, Int(drain.components.seconds * 1000 + drain.components.attoseconds / 1_000_000_000_000_000))

        let maximumKills = Soak.count(30)
        var kills = 0
        var cursor: UInt64 = 0
        var runs = 0
        while true {
            runs += 1
            // A drain that finished before enough kills gets more to send.
            if kills < maximumKills && cursor == UInt64(points) {
                try sandbox.logEpochs(points..<points + chunk)
                points += chunk
            }
            let child = try sandbox.sync.start(Self.syncArguments(sandbox, server), environment: Self.environment)
            var killed = false
            if kills < maximumKills {
                sleepMilliseconds(Int.random(in: 0...span, using: &random))
                if child.isRunning {
                    child.kill(SIGKILL)
                    killed = true
                }
            }
            let result = child.wait()
            if killed && result.termination == .signaled(SIGKILL) {
                kills += 1
            } else {
                #expect(result.succeeded, "run \(runs): \(result)")
            }
            // The cursor reads after every kill and never goes back.
            let now = try sandbox.cursor()
            #expect(now >= cursor && now <= UInt64(points), "run \(runs): cursor \(cursor) -> \(now)")
            cursor = now
            if kills >= maximumKills && result.succeeded && now == UInt64(points) { break }
            if runs > maximumKills * 4 + 20 {
                Issue.record("the drain did not finish after \(runs) runs")
                break
            }
        }
        #expect(try sandbox.verify().succeeded)
        let lines = try sandbox.records().records.map(\.line)
        #expect(JournalInvariant.check(try sandbox.records().records, context: "journal") == Array(0..<points))
        let delivery = Delivery(requests: server.requests, lines: lines)
        let resends = delivery.check(total: points, maximumResends: kills, context: "\(kills) kills")
        Figures.record("crash: overland-sync, kill -9 mid-drain", "kills", kills)
        Figures.record("crash: overland-sync, kill -9 mid-drain", "batches sent again (each the one in flight)", resends)
        Figures.record("crash: overland-sync, kill -9 mid-drain", "points delivered", points)
    }

    /// Every named point of the drain, at every batch: `sync.after-reply` (acknowledged,
    /// not yet recorded), `cursor.recorded` (recorded: in the progress record, or the
    /// cursor file for the first batch; journal-format.md section 9).
    @Test(arguments: ["sync.after-reply", "cursor.recorded"])
    func killedAtEveryFaultPointOfTheDrain(point: String) throws {
        let points = 400
        let batches = points / 50
        let base = try Self.prepare(points: points)
        let lines = try base.records().records.map(\.line)
        let server = try LocalServer()
        for nth in 1...batches {
            server.clearRequests()
            let journal = base.directory.appending("journal-\(nth)")
            try copyTree(base.journal, to: journal)
            let crashed = try base.sync.run(Self.syncArguments(base, server, journal: journal),
                                            environment: Self.environment.merging(["OVERLAND_FAULT_POINT": "\(point):\(nth)"]) { $1 })
            #expect(crashed.termination == .signaled(SIGKILL), "\(point):\(nth): \(crashed)")
            #expect(server.requests.count == nth, "\(point):\(nth): \(server.requests.count) requests")
            let cursor = try base.cursor(journal)
            // Recorded is the commit point of the cursor.
            let expected = point == "cursor.recorded" ? nth * 50 : (nth - 1) * 50
            #expect(cursor == UInt64(expected), "\(point):\(nth): cursor \(cursor)")
            let finished = try base.sync.run(Self.syncArguments(base, server, journal: journal), environment: Self.environment)
            #expect(finished.succeeded, "\(point):\(nth): \(finished)")
            #expect(try base.cursor(journal) == UInt64(points))
            let delivery = Delivery(requests: server.requests, lines: lines)
            let resends = delivery.check(total: points, maximumResends: 1, context: "\(point):\(nth)")
            #expect(resends == (point == "cursor.recorded" ? 0 : 1), "\(point):\(nth)")
            #expect(try base.verify(journal).succeeded)
            #expect(ReliabilitySandbox.files(under: journal).allSatisfy { !$0.hasSuffix(".tmp-cursor.json") })
        }
        Figures.record("crash: overland-sync, named fault points", "kills at \(point) (every batch)", batches)
    }

    /// The logger keeps appending while syncs are killed: nothing it committed is skipped
    /// by the cursor, and the final drain delivers everything.
    @Test func killedWhileTheLoggerAppends() throws {
        let sandbox = try Self.prepare(points: 100)
        let server = try LocalServer { _, _ in LocalServer.ok(delay: .milliseconds(2)) }
        var random = Soak.generator(0xA99E_4D5)
        let logger = try sandbox.log.start(["--journal", sandbox.journal, "--device-id", "reliability", "--commit-interval", "0.02"],
                                           stdin: true)
        var next = 100
        var kills = 0
        for _ in 0..<Soak.count(12) {
            logger.writeInput(Array(SyntheticDrive.text(next..<next + 40).utf8))
            next += 40
            let child = try sandbox.sync.start(Self.syncArguments(sandbox, server), environment: Self.environment)
            sleepMilliseconds(Int.random(in: 0...25, using: &random))
            if child.isRunning {
                child.kill(SIGKILL)
                kills += 1
            }
            _ = child.wait()
        }
        logger.writeInput(Array(SyntheticDrive.text(next..<next + 10).utf8))
        next += 10
        let logged = logger.wait()
        #expect(logged.succeeded, "\(logged)")
        let finished = try sandbox.sync.run(Self.syncArguments(sandbox, server), environment: Self.environment)
        #expect(finished.succeeded, "\(finished)")
        let lines = try sandbox.records().records.map(\.line)
        #expect(JournalInvariant.check(try sandbox.records().records, context: "logger") == Array(0..<next))
        #expect(try sandbox.cursor() == UInt64(lines.count))
        // Each record reached the server, in order; a batch in flight may come again, and
        // then with more points if the logger added some meanwhile.
        var delivered = 0
        for request in server.requests {
            guard let raw = Delivery.rawLocations(request.body) else {
                Issue.record("no locations: \(request.bodyText.prefix(200))")
                continue
            }
            let elements = Delivery.elements(of: raw)
            guard let first = elements.first, let start = lines.firstIndex(of: first) else {
                Issue.record("a request carries points that are not in the journal")
                continue
            }
            #expect(Array(lines[start..<min(lines.count, start + elements.count)]) == elements)
            #expect(start <= delivered, "a gap: request from \(start), delivered up to \(delivered)")
            delivered = max(delivered, start + elements.count)
        }
        #expect(delivered == lines.count)
        Figures.record("crash: overland-sync, kill -9 while overland-log appends", "kills", kills)
    }
}
