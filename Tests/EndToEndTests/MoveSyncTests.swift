import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
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
        let server = try await PointServer()
        defer { Task { await server.stop() } }
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
            #expect(target.succeeded || target.exitStatus == 66, "\(target)")
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
        let server = try await PointServer()
        defer { Task { await server.stop() } }
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

/// An Overland server on 127.0.0.1 that answers every request `{"result":"ok"}` and keeps
/// the timestamp of every point it received, in order.
final class PointServer: Sendable {
    private let channel: Channel
    private let points: PointLog
    let url: String

    init() async throws {
        let points = PointLog()
        self.points = points
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(PointHandler(points: points))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        url = "http://127.0.0.1:\(channel.localAddress!.port!)/"
    }

    /// Every point's timestamp, in the order received.
    var received: [String] { points.all }

    func stop() async {
        try? await channel.close()
    }
}

private final class PointHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let points: PointLog
    private var body: [UInt8] = []

    init(points: PointLog) {
        self.points = points
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            body.removeAll(keepingCapacity: true)
        case .body(let buffer):
            buffer.withUnsafeReadableBytes { body.append(contentsOf: $0) }
        case .end:
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
            let locations = object?["locations"] as? [[String: Any]] ?? []
            let times = locations.compactMap { ($0["properties"] as? [String: Any])?["timestamp"] as? String }
            points.append(times)
            let text = #"{"result":"ok"}"#
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: String(text.utf8.count))
            headers.add(name: "Content-Type", value: "application/json")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}

/// The points received, behind a lock (the server's event loop writes, the test reads).
final class PointLog: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [String] = []

    var all: [String] { lock.withLock { times } }

    func append(_ more: [String]) {
        lock.withLock { times.append(contentsOf: more) }
    }
}
