import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A small HTTP/1.1 server on 127.0.0.1 and an ephemeral port, whose answers a test
/// scripts: it records every complete request (method, target, headers, body) and answers
/// as the script says. The one stand-in receiver of the tests (library and end-to-end).
///
///     let server = try LocalServer()                      // {"result":"ok"} to everything
///     ... run overland-sync --url server.url ...
///     #expect(server.requests.count == 3)
public final class LocalServer: @unchecked Sendable {
    /// One request as received.
    public struct Request: Sendable {
        public var method: String
        public var uri: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        public var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    /// What the server does with a request.
    public enum Behaviour: Sendable {
        /// Answers with `status`, `headers` and `body` after `delay` (Content-Type
        /// application/json unless `headers` names one).
        case reply(status: Int, body: [UInt8], headers: [(String, String)] = [], delay: Duration = .zero)
        /// Sends the head and `sent` bytes of a body announced 1,000 bytes longer, then closes.
        case closeMidBody(sent: Int)
        /// Sends the head at once, then one body byte every `interval`, `count` times.
        case trickle(count: Int, interval: Duration)
        /// Closes the connection without answering.
        case close
        /// Never answers (the client gives up or is killed).
        case hang
    }

    public static let okBody = Array(#"{"result":"ok"}"#.utf8)
    /// `{"result":"ok"}` (or `body`) with status 200.
    public static func ok(_ body: String = #"{"result":"ok"}"#, delay: Duration = .zero) -> Behaviour {
        .ok(body, delay: delay)
    }
    /// `body` as text with `status`.
    public static func text(_ status: Int, _ body: String, headers: [(String, String)] = [],
                            delay: Duration = .zero) -> Behaviour {
        .text(status, body, headers: headers, delay: delay)
    }

    public typealias Script = @Sendable (Int, Request) -> Behaviour

    private let state: LocalServerState
    private let channel: Channel

    /// The port the server listens on.
    public let port: Int
    /// `http://127.0.0.1:PORT` (`https://` with TLS).
    public let baseURL: String
    /// `BASE/overland`, the endpoint the tests configure.
    public var url: String { baseURL + "/overland" }

    /// `recordBodies: false` keeps only the request heads (for benchmarks that would
    /// otherwise hold every body in memory). `tls` (PEM certificate chain and key files)
    /// makes it an HTTPS server.
    public init(host: String = "127.0.0.1", recordBodies: Bool = true, tls: (certificate: String, key: String)? = nil,
                _ script: @escaping Script = { _, _ in LocalServer.ok() }) throws {
        let sslContext = try tls.map { files in
            try NIOSSLContext(configuration: .makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(files.certificate).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: files.key, format: .pem))))
        }
        let state = LocalServerState(script: script)
        self.state = state
        channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                state.withLock { $0.connections += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(LocalServerHandler(state: state, keepBody: recordBodies))
                }
            }
            .bind(host: host, port: 0).wait()
        port = channel.localAddress!.port!
        baseURL = (tls == nil ? "http://" : "https://") + "127.0.0.1:\(port)"
    }

    deinit { stop() }

    /// Replaces the script.
    public func setScript(_ script: @escaping Script) { state.withLock { $0.script = script } }

    /// Every complete request received so far, in order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Forgets the requests received so far (the script's index starts again at 0).
    public func clearRequests() { state.withLock { $0.requests.removeAll() } }

    /// The TCP connections accepted so far (a client that keeps its connection alive
    /// makes one for many requests).
    public var connections: Int { state.withLock { $0.connections } }

    public func stop() { _ = try? channel.close().wait() }

    /// A port on which every connection is refused, for the rest of the run (RefusingPort).
    public static func closedPort() -> Int {
        RefusingPort.reserve()
    }

    /// A port that was free a moment ago (bound, then closed), for a server of another
    /// program (openssl s_server) to listen on.
    public static func freePort() throws -> Int {
        let server = try LocalServer()
        let port = server.port
        server.stop()
        return port
    }
}

extension LocalServer.Behaviour {
    /// `{"result":"ok"}` (or `body`) with status 200.
    public static func ok(_ body: String = #"{"result":"ok"}"#, delay: Duration = .zero) -> Self {
        .reply(status: 200, body: Array(body.utf8), delay: delay)
    }

    /// `body` as text with `status`.
    public static func text(_ status: Int, _ body: String, headers: [(String, String)] = [],
                            delay: Duration = .zero) -> Self {
        .reply(status: status, body: Array(body.utf8), headers: headers, delay: delay)
    }
}

/// The server's shared state (the event loop and the test both touch it).
final class LocalServerState: Sendable {
    struct Value {
        var script: LocalServer.Script
        var requests: [LocalServer.Request] = []
        /// TCP connections accepted.
        var connections = 0
    }

    private let value: Locked<Value>

    init(script: @escaping LocalServer.Script) { value = Locked(Value(script: script)) }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try value.withLock(body)
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
    private let keepBody: Bool
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(state: LocalServerState, keepBody: Bool) {
        self.state = state
        self.keepBody = keepBody
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.removeAll(keepingCapacity: true)
        case .body(let buffer):
            if keepBody { buffer.withUnsafeReadableBytes { body.append(contentsOf: $0) } }
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
            reply(status: status, bytes: bytes, extra: extra, after: delay, context: context)
        case .closeMidBody(let sent):
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: String(sent + 1000))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(repeating: UInt8(ascii: " "), count: sent)))), promise: nil)
            context.close(promise: nil)
        case .trickle(let count, let interval):
            trickle(count: count, every: interval, context: context)
        case .close:
            context.close(promise: nil)
        case .hang:
            break
        }
    }

    private func reply(status: Int, bytes: [UInt8], extra: [(String, String)], after delay: Duration,
                       context: ChannelHandlerContext) {
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
            context.eventLoop.scheduleTask(in: Self.amount(delay)) { write() }
        }
    }

    private func trickle(count: Int, every interval: Duration, context: ChannelHandlerContext) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: String(count))
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        let step = Self.amount(interval)
        let remaining = NIOLoopBoundBox(count, eventLoop: context.eventLoop)
        context.eventLoop.scheduleRepeatedTask(initialDelay: step, delay: step) { task in
            let context = bound.value
            guard remaining.value > 0, context.channel.isActive else {
                task.cancel()
                return
            }
            remaining.value -= 1
            context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: " ")))), promise: nil)
            if remaining.value == 0 {
                context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
            }
        }
    }

    private static func amount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
