import TestSupport
import Foundation
import Testing
import OverlandJournal

#if canImport(Glibc)
import Glibc
#endif

/// Sync of a moved journal with the real `overland-sync` against a local server: whether a
/// move ran through, or was killed at any step and finished later, and whichever journal
/// is synced when, every point reaches the server exactly once across both journals.
@Suite struct MoveSyncTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var fault: String?
        /// How the sync of the target ends before the move is finished.
        var targetSync: Int32 = 0
        var testDescription: String { fault ?? "no crash" }
    }

    static let cases: [Case] = [
        Case(fault: nil),
        Case(fault: "move.after-intent"),
        Case(fault: "move.after-copy:2"),
        Case(fault: "move.after-verify:3"),
        Case(fault: "move.after-cursor:1"),
        Case(fault: "move.after-delete:4"),
    ]

    @Test(arguments: cases)
    func everyPointIsDeliveredExactlyOnceAcrossBothJournals(_ testCase: Case) async throws {
        let sandbox = try MoveSandbox(prefix: "overland-move-sync")
        let server = try PointServer()
        defer { server.stop() }
        let sync = SyncRunner(sandbox: sandbox, url: server.url)

        // A logger that has synced its first 60 points, then recorded 85 more offline.
        var lines = try MoveRecords.makeSource(at: sandbox.source, sealed: 3, perSegment: 20, active: 0, cursor: 0)
        let first = try sync.run(sandbox.source)
        #expect(first.succeeded, "\(first)")
        #expect(server.received.count == 60)
        let journal = try Journal(path: sandbox.source)
        let appender = try JournalAppender(journal: journal)
        for index in 60..<145 {
            let line = MoveRecords.line(index)
            lines.append(line)
            try appender.append(Array(line.utf8))
            if index % 20 == 19 { try appender.sealActive() }
        }
        try appender.commit()

        if let fault = testCase.fault {
            let crashed = try sandbox.move(fault: fault)
            #expect(crashed.termination == .signaled(SIGKILL), "\(crashed)")
            // The stick goes to another machine and is synced there before the move is
            // finished: what the target holds is complete and its own.
            let target = try sync.run(sandbox.target)
            target.expectExit(testCase.targetSync)
        }
        let moved = try sandbox.move()
        #expect(moved.succeeded, "\(moved)")
        for path in [sandbox.target, sandbox.source, sandbox.target] {
            let result = try sync.run(path)
            #expect(result.succeeded, "\(path): \(result)")
        }

        let expected = lines.map(Self.timestamp)
        let received = server.received
        var counts: [String: Int] = [:]
        for time in received { counts[time, default: 0] += 1 }
        let twice = counts.filter { $0.value > 1 }.keys.sorted()
        let missing = expected.filter { counts[$0] == nil }
        #expect(twice.isEmpty, "\(twice.count) points delivered more than once: \(twice.prefix(5))")
        #expect(missing.isEmpty, "\(missing.count) points never delivered: \(missing.prefix(5))")
        #expect(received.count == expected.count)
        #expect(try JournalView.read(sandbox.source)?.unsent.isEmpty == true)
        #expect(try JournalView.read(sandbox.target)?.unsent.isEmpty == true)
    }

    /// `overland-sync` runs the copy checks (`JournalOrigin.check`, which refuses a journal
    /// with a move pending).
    @Test(arguments: [
        "move.after-copy:2", "move.after-verify:3",
    ])
    func aSyncOfTheSourceWhileAMoveIsPendingSendsNothing(fault: String) async throws {
        let sandbox = try MoveSandbox(prefix: "overland-move-sync")
        let server = try PointServer()
        defer { server.stop() }
        let sync = SyncRunner(sandbox: sandbox, url: server.url)
        let lines = try MoveRecords.makeSource(at: sandbox.source, cursor: 0)
        #expect(try sandbox.move(fault: fault).termination == .signaled(SIGKILL))
        let refused = try sync.run(sandbox.source)
        #expect(!refused.succeeded && refused.stderrText.contains("move"), "\(refused)")
        #expect(server.received.isEmpty, "\(server.received.count) points sent from a journal with a move pending")
        // Both synced in any order once the move is finished: each point once.
        #expect(try sync.run(sandbox.target).succeeded)
        #expect(try sandbox.move().succeeded)
        #expect(try sync.run(sandbox.source).succeeded)
        #expect(try sync.run(sandbox.target).succeeded)
        #expect(server.received.sorted() == lines.map(Self.timestamp).sorted())
    }

    static func timestamp(_ line: String) -> String {
        let range = line.range(of: #""timestamp":""#)!
        return String(line[range.upperBound...].prefix(20))
    }
}

/// Runs `overland-sync --journal DIR --url URL --now` with the sandbox's settings.
struct SyncRunner {
    let sandbox: MoveSandbox
    let url: String

    func run(_ journal: String) throws -> ToolResult {
        var runner = ToolRunner(product: "overland-sync")
        runner.environment = MoveSandbox.environment(sandbox.directory)
        // The logger's device (the journals' manifests say "van"): the copy checks pass.
        runner.environment["OVERLAND_DEVICE_ID"] = "van"
        return try runner.run(["--journal", journal, "--url", url, "--now"])
    }
}

/// An Overland server on 127.0.0.1 (LocalServer) that answers every request
/// `{"result":"ok"}`; the timestamps of the points it received, in order.
final class PointServer: Sendable {
    private let server: LocalServer
    let url: String

    init() throws {
        server = try LocalServer()
        url = server.baseURL + "/"
    }

    /// Every point's timestamp, in the order received.
    var received: [String] {
        server.requests.flatMap { request -> [String] in
            let locations = (try? JSONScan.object(request.body))??["locations"] as? [[String: Any]] ?? []
            return locations.compactMap { ($0["properties"] as? [String: Any])?["timestamp"] as? String }
        }
    }

    func stop() { server.stop() }
}
