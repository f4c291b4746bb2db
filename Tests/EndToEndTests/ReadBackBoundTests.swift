import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 32 item 1: read-back is bounded per run (requests, bytes, time) and says so in one
/// line when it stops, and one destination's read-back never holds another destination's
/// sending back. Two named destinations of one journal: `dawarich` (verify, its read API
/// hostile or hung) and `other` (a plain Overland receiver).
@Suite struct ReadBackBoundTests {
    private let start = StandInStore.now

    private func clock(_ minute: Int) -> [String: String?] { ["OVERLAND_TEST_NOW": String(start + Int64(minute) * 60)] }

    private func sync(_ sandbox: LogSandbox, minute: Int, _ extra: [String] = []) throws -> ToolResult {
        var sync = ToolRunner(product: "overland-sync")
        sync.environment = sandbox.logger.environment
        return try sync.run(["--journal", sandbox.journal, "--now"] + extra, environment: clock(minute))
    }

    /// The journal, and the two destinations (every record from the start).
    private func sandbox(dawarich: LocalServer, other: LocalServer) throws -> LogSandbox {
        let sandbox = try LogSandbox()
        try ReadBackJournal.append((0..<5).map { ReadBackJournal.Point(index: $0) }, to: sandbox.journal)
        let commands = [["destination", "add", "dawarich", dawarich.baseURL + "/api/v1/overland/batches", "--profile", "dawarich",
                         "--from-start", "--journal", sandbox.journal],
                        ["destination", "set", "dawarich", "token", "K-key"],
                        ["destination", "set", "dawarich", "verify", "true"],
                        ["destination", "add", "other", other.url, "--from-start", "--journal", sandbox.journal]]
        for command in commands {
            let result = try sandbox.overland.run(command)
            try #require(result.succeeded, "\(command): \(result)")
        }
        return sandbox
    }

    /// Dawarich's batches acknowledged; its points API as `points` answers.
    private func dawarich(points: @escaping @Sendable (LocalServer.Request) -> LocalServer.Behaviour) throws -> LocalServer {
        try LocalServer { _, request in
            request.method == "POST" ? StandInStore.reply(201, ["result": "ok"]) : points(request)
        }
    }

    @Test func aReadAPIThatNeverStopsPagingIsStoppedWithOneLine() throws {
        // Every page: one unrelated point, and 10,000 pages to come.
        let api = try dawarich { _ in
            StandInStore.reply(200, [["timestamp": 1, "latitude": "1.0", "longitude": "1.0"]], headers: [("X-Total-Pages", "10000")])
        }
        defer { api.stop() }
        let other = try LocalServer()
        defer { other.stop() }
        let sandbox = try sandbox(dawarich: api, other: other)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0)
        let result = try sync(sandbox, minute: 1)
        result.expectExit(75)
        let lines = result.stderrLines.filter { $0.contains("reading back: stopped after 4 requests") }
        #expect(lines.count == 1, "\(result)")
        let gets = api.requests.filter { $0.method == "GET" }.count
        #expect(gets <= 4, "5 points to check need at most 4 requests: \(gets)")
        let audit = try sandbox.overland.run(["destination", "audit", "dawarich", "--journal", sandbox.journal], environment: clock(2))
        #expect(audit.exitStatus == 75 && audit.stderrText.contains("reading back: stopped after"), "\(audit)")
        #expect(api.requests.filter { $0.method == "GET" }.count <= gets + 4, "the audit's day bounded too")
    }

    @Test func oneDestinationsReadBackNeverHoldsAnotherDestinationBack() throws {
        let api = try dawarich { _ in .hang }
        defer { api.stop() }
        let other = try LocalServer()
        defer { other.stop() }
        let sandbox = try sandbox(dawarich: api, other: other)
        #expect(try sync(sandbox, minute: 0).exitStatus == 0)
        #expect(other.requests.count == 1)
        // The next run reads dawarich back; its read API never answers.
        try ReadBackJournal.append((5..<10).map { ReadBackJournal.Point(index: $0) }, to: sandbox.journal)
        var runner = ToolRunner(product: "overland-sync")
        runner.environment = sandbox.logger.environment
        let hung = try runner.start(["--journal", sandbox.journal, "--now", "--to", "dawarich"], environment: clock(1))
        defer {
            hung.kill()
            _ = hung.wait()
        }
        #expect(waitUntil { api.requests.contains { $0.method == "GET" } }, "the read-back began")
        // Meanwhile, a run for the other destination sends.
        let result = try sync(sandbox, minute: 1, ["--to", "other", "--verbose"])
        result.expectExit(0)
        #expect(!result.stderrText.contains("another overland-sync"), "\(result)")
        #expect(other.requests.count == 2, "the new points reached the other destination")
        // A run for the destination being read back leaves it to that run, quietly.
        let same = try sync(sandbox, minute: 1, ["--to", "dawarich"])
        #expect(same.exitStatus == 0 && same.stderrText.isEmpty, "\(same)")
    }
}
