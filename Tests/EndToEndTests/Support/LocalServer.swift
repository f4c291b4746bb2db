import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A small HTTP/1.1 server on 127.0.0.1 and an ephemeral port for the end-to-end tests of
/// `overland-sync`: it records every complete request (method, target, headers, body) and
/// answers as a script says. Synchronous API, for tests that drive child processes.
/// (Adapted from Tests/OverlandSyncTests/TestServer.swift, which belongs to another target.)
///
///     let server = try LocalServer()                      // {"result":"ok"} to everything
///     ... run overland-sync --url server.url ...
///     #expect(server.requests.count == 3)
final class LocalServer: @unchecked Sendable {
    /// One request as received.
    struct Request: Sendable {
        var method: String
        var uri: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    /// What the server does with a request.
    enum Behaviour: Sendable {
        /// Answers with `status`, `headers` and `body` after `delay`.
        case reply(status: Int, body: [UInt8], headers: [(String, String)] = [], delay: Duration = .zero)
        /// Closes the connection without answering.
        case close
        /// Never answers (the client gives up or is killed).
        case hang
    }

    static let okBody = Array(#"{"result":"ok"}"#.utf8)
    static func ok(delay: Duration = .zero) -> Behaviour { .reply(status: 200, body: okBody, delay: delay) }
    static func text(_ status: Int, _ body: String, headers: [(String, String)] = []) -> Behaviour {
        .reply(status: status, body: Array(body.utf8), headers: headers)
    }

    typealias Script = @Sendable (Int, Request) -> Behaviour

    private let state: LocalServerState
    private let channel: Channel

    /// The port the server listens on.
    let port: Int
    /// `http://127.0.0.1:PORT`.
    var baseURL: String { "http://127.0.0.1:\(port)" }
    /// `http://127.0.0.1:PORT/overland`, the endpoint the tests configure.
    var url: String { baseURL + "/overland" }

    init(host: String = "127.0.0.1", _ script: @escaping Script = { _, _ in LocalServer.ok() }) throws {
        let state = LocalServerState(script: script)
        self.state = state
        channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                state.withLock { $0.connections += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(LocalServerHandler(state: state))
                }
            }
            .bind(host: host, port: 0).wait()
        port = channel.localAddress!.port!
    }

    deinit { stop() }

    /// Replaces the script.
    func setScript(_ script: @escaping Script) { state.withLock { $0.script = script } }

    /// Every complete request received so far, in order.
    var requests: [Request] { state.withLock { $0.requests } }

    /// Forgets the requests received so far (the script's index starts again at 0).
    func clearRequests() { state.withLock { $0.requests.removeAll() } }

    /// The TCP connections accepted so far (a client that keeps its connection alive
    /// makes one for many requests).
    var connections: Int { state.withLock { $0.connections } }

    func stop() { _ = try? channel.close().wait() }

    /// A port on which every connection is refused, for the rest of the run (RefusingPort).
    static func closedPort() throws -> Int {
        RefusingPort.reserve()
    }

    /// A port that was free a moment ago (bound, then closed), for a server of another
    /// program (openssl s_server) to listen on.
    static func freePort() throws -> Int {
        let server = try LocalServer()
        let port = server.port
        server.stop()
        return port
    }
}

/// The server's shared state, behind a lock (the event loop and the test both touch it).
final class LocalServerState: @unchecked Sendable {
    struct Value {
        var script: LocalServer.Script
        var requests: [LocalServer.Request] = []
        /// TCP connections accepted.
        var connections = 0
    }

    private let lock = NSLock()
    private var value: Value

    init(script: @escaping LocalServer.Script) { value = Value(script: script) }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Records a request and asks the script what to do with it.
    func receive(_ request: LocalServer.Request) -> LocalServer.Behaviour {
        let (index, script) = withLock { value -> (Int, LocalServer.Script) in
            value.requests.append(request)
            return (value.requests.count - 1, value.script)
        }
        return script(index, request)
    }
}

private final class LocalServerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let state: LocalServerState
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(state: LocalServerState) { self.state = state }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.removeAll(keepingCapacity: true)
        case .body(let buffer):
            buffer.withUnsafeReadableBytes { body.append(contentsOf: $0) }
        case .end:
            guard let head else { return }
            let request = LocalServer.Request(method: "\(head.method)", uri: head.uri,
                                              headers: head.headers.map { ($0.name, $0.value) }, body: body)
            perform(state.receive(request), context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    private func perform(_ behaviour: LocalServer.Behaviour, context: ChannelHandlerContext) {
        switch behaviour {
        case .reply(let status, let bytes, let extra, let delay):
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            let write: @Sendable () -> Void = {
                let context = bound.value
                guard context.channel.isActive else { return }
                var headers = HTTPHeaders()
                headers.add(name: "Content-Length", value: String(bytes.count))
                if !extra.contains(where: { $0.0.lowercased() == "content-type" }) {
                    headers.add(name: "Content-Type", value: "application/json")
                }
                for (name, value) in extra { headers.add(name: name, value: value) }
                let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
                context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
                context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
                context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
            }
            if delay == .zero {
                write()
            } else {
                let (seconds, attoseconds) = delay.components
                context.eventLoop.scheduleTask(in: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)) { write() }
            }
        case .close:
            context.close(promise: nil)
        case .hang:
            break
        }
    }
}
