import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A value behind a lock, for state shared with the server's event loop.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    var current: Value { withLock { $0 } }
}

/// A small HTTP/1.1 server on 127.0.0.1 and an ephemeral port whose answers a test
/// scripts, recording every request it receives.
final class TestServer: Sendable {
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
        case reply(status: Int, body: String, headers: [String: String] = [:], delay: Duration = .zero)
        /// Answers with raw bytes as the body.
        case replyBytes(status: Int, body: [UInt8])
        /// Sends the head and `sent` bytes of a body announced longer, then closes.
        case closeMidBody(sent: Int)
        /// Closes the connection without answering.
        case close
        /// Sends the head at once, then one body byte every `interval`, `count` times.
        case trickle(count: Int, interval: Duration)
    }

    static func ok(_ body: String = #"{"result":"ok"}"#) -> Behaviour { .reply(status: 200, body: body) }

    private let channel: Channel
    private let recorded = Locked<[Request]>([])
    private let script: Locked<@Sendable (Int, Request) -> Behaviour>

    /// The port the server listens on.
    let port: Int
    /// `http://127.0.0.1:PORT`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// `recordBodies: false` keeps only the request heads (for benchmarks that would
    /// otherwise hold every body in memory).
    /// `tls` (PEM certificate chain and key files) makes it an HTTPS server.
    init(recordBodies: Bool = true, tls: (certificate: String, key: String)? = nil,
         _ script: @escaping @Sendable (Int, Request) -> Behaviour = { _, _ in TestServer.ok() }) async throws {
        let sslContext = try tls.map { files in
            try NIOSSLContext(configuration: .makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(files.certificate).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: files.key, format: .pem))))
        }
        let recorded = self.recorded
        let box = Locked<@Sendable (Int, Request) -> Behaviour>(script)
        self.script = box
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(ScriptedHandler(keepBody: recordBodies) { request in
                        let index = recorded.withLock { requests in
                            requests.append(request)
                            return requests.count - 1
                        }
                        return box.current(index, request)
                    })
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress!.port!
    }

    /// Replaces the script.
    func setScript(_ script: @escaping @Sendable (Int, Request) -> Behaviour) {
        self.script.withLock { $0 = script }
    }

    /// Every request received so far, in order.
    var requests: [Request] { recorded.current }

    func stop() async {
        try? await channel.close()
    }

    /// A port on which every connection is refused, for the rest of the run (RefusingPort).
    static func closedPort() async throws -> Int {
        RefusingPort.reserve()
    }
}

private final class ScriptedHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let respond: @Sendable (TestServer.Request) -> TestServer.Behaviour
    private let keepBody: Bool
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(keepBody: Bool, _ respond: @escaping @Sendable (TestServer.Request) -> TestServer.Behaviour) {
        self.keepBody = keepBody
        self.respond = respond
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
            let request = TestServer.Request(method: "\(head.method)", uri: head.uri,
                                             headers: head.headers.map { ($0.name, $0.value) }, body: body)
            perform(respond(request), context: context, keepAlive: head.isKeepAlive)
        }
    }

    private func perform(_ behaviour: TestServer.Behaviour, context: ChannelHandlerContext, keepAlive: Bool) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let loop = context.eventLoop
        switch behaviour {
        case .reply(let status, let text, let extra, let delay):
            let write: @Sendable () -> Void = {
                let context = bound.value
                var headers = HTTPHeaders()
                headers.add(name: "Content-Length", value: String(text.utf8.count))
                headers.add(name: "Content-Type", value: "application/json")
                for (name, value) in extra { headers.add(name: name, value: value) }
                let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
                context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
                context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
                context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
            }
            if delay == .zero {
                write()
            } else {
                let (seconds, attoseconds) = delay.components
                loop.scheduleTask(in: .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)) { write() }
            }
        case .replyBytes(let status, let bytes):
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: String(bytes.count))
            let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        case .closeMidBody(let sent):
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: String(sent + 1000))
            let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(repeating: UInt8(ascii: " "), count: sent)))), promise: nil)
            context.close(promise: nil)
        case .close:
            context.close(promise: nil)
        case .trickle(let count, let interval):
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: String(count))
            let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)
            context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
            let (seconds, attoseconds) = interval.components
            let step = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            let remaining = NIOLoopBoundBox(count, eventLoop: loop)
            loop.scheduleRepeatedTask(initialDelay: step, delay: step) { task in
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
    }
}
