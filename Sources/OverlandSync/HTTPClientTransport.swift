import AsyncHTTPClient
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix
import NIOSSL
import OverlandProtocol

/// The real transport: AsyncHTTPClient over HTTP/1.1 or HTTP/2, one client (and its
/// connection pool) for a whole run, so that batches reuse one connection.
///
/// - TLS verifies the server's certificate and name as every destination does (`TLSTrust`).
/// - Redirects are never followed: a POST that is redirected would lose its body or its
///   method in many clients, and following one could carry the `Authorization` header to
///   another host. A 3xx comes back as a reply, which the engine reports with its
///   `Location` so that the user can fix the endpoint.
/// - A refused connection fails at once (no retries inside the run: the next run retries,
///   after the backoff); connecting is bounded by `connectTimeout`, the whole exchange,
///   reply body included, by the deadline the engine passes, and an idle connection by
///   the request timeout too.
/// - The reply body is read up to `replyLimit` bytes (the request's own, when it has one);
///   a longer one is a failed attempt.
///
/// Call `shutdown()` when done; `withTransport` does it for you.
public final class HTTPClientTransport: Transport {
    private let client: HTTPClient
    private let replyLimit: Int

    /// Creates a client for `configuration` (TLS, timeouts, reply limit). Throws
    /// `SyncError.configuration` when the CA file cannot be used.
    public init(configuration: SyncConfiguration) throws(SyncError) {
        let tls = try TLSTrust.clientConfiguration(caFile: configuration.caFile)
        var clientConfiguration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,
            timeout: .init(connect: Self.timeAmount(configuration.connectTimeout),
                           read: Self.timeAmount(configuration.requestTimeout)),
            decompression: .disabled
        )
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        clientConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 1
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)
        replyLimit = configuration.replyLimit
    }

    /// Runs `body` with a transport for `configuration`, shutting it down afterwards.
    public static func withTransport<Result: Sendable>(
        configuration: SyncConfiguration,
        _ body: (HTTPClientTransport) async throws -> Result
    ) async throws -> Result {
        let transport = try HTTPClientTransport(configuration: configuration)
        do {
            let result = try await body(transport)
            try await transport.shutdown()
            return result
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    /// Closes the connections. Required before the transport is released.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    public func send(_ request: SyncRequest, timeout: Duration) async throws -> HTTPReply {
        var httpRequest = HTTPClientRequest(url: request.url)
        // A POST of points, or a read-back's GET (`ReadBackReader`), which has no body.
        httpRequest.method = request.method == "GET" ? .GET : .POST
        for header in request.headers {
            httpRequest.headers.add(name: header.name, value: header.value)
        }
        if httpRequest.method == .POST { httpRequest.body = .bytes(ByteBuffer(bytes: request.body)) }
        let prepared = httpRequest
        let client = client
        let limit = request.replyLimit ?? replyLimit
        let deadline = NIODeadline.now() + Self.timeAmount(timeout)
        do {
            // AsyncHTTPClient's deadline stops at the reply head; the race with a timer
            // bounds the body too (a server that trickles its reply costs a retry, not a hang).
            return try await withThrowingTaskGroup(of: HTTPReply?.self) { group in
                group.addTask {
                    let response = try await client.execute(prepared, deadline: deadline)
                    let body = try await response.body.collect(upTo: limit)
                    return HTTPReply(
                        status: Int(response.status.code),
                        headers: response.headers.map { SyncRequest.Header($0.name, $0.value) },
                        body: Array(body.readableBytesView)
                    )
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                let first = try await group.next()!
                group.cancelAll()
                guard let reply = first else { throw TransportError(.timedOut, Self.timedOutMessage(timeout)) }
                return reply
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw Self.classify(error, timeout: timeout, limit: limit, server: Self.hostAndPort(of: request.url))
        }
    }

    /// Maps the errors of AsyncHTTPClient, NIO and NIOSSL to a `TransportError`; `server`
    /// (`HOST:PORT`) names where a connection failed, in plain words: "cannot connect to
    /// 127.0.0.1:8080: connection refused".
    public static func classify(_ error: any Error, timeout: Duration, limit: Int, server: String) -> TransportError {
        func cannotConnect(_ why: String) -> TransportError { TransportError(.connect, "cannot connect to \(server): \(why)") }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return cannotConnect("timed out")
            case .deadlineExceeded, .readTimeout, .writeTimeout: return TransportError(.timedOut, timedOutMessage(timeout))
            case .remoteConnectionClosed: return TransportError(.connectionLost, connectionLostMessage)
            case .invalidURL, .emptyHost, .emptyScheme:
                return TransportError(.invalidURL, "cannot send to this url: \(error)")
            case .cancelled: return TransportError(.timedOut, timedOutMessage(timeout))
            default: return TransportError(.other, "request failed: \(error)")
            }
        }
        if error is NIOTooManyBytesError {
            return TransportError(.replyTooLarge, "reply larger than \(limit) bytes")
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return TransportError(.tls, tlsMessage(error, server: server))
        }
        if error is CancellationError {
            return TransportError(.timedOut, timedOutMessage(timeout))
        }
        if let channelError = error as? ChannelError, channelError == .eof || channelError == .ioOnClosedChannel {
            return TransportError(.connectionLost, connectionLostMessage)
        }
        if let error = error as? NIOConnectionError {
            // Every address tried failed: the first failure speaks for them (they are alike
            // for one host), and no address at all means the name did not resolve.
            if let first = error.connectionErrors.first { return cannotConnect(connectFailure(first.error)) }
            return cannotConnect("the name does not resolve (dns lookup failed)")
        }
        if error is SocketAddressError || error is SocketAddressError.UnknownHost { return cannotConnect("the name does not resolve (dns lookup failed)") }
        if error is IOError || error is ChannelError { return cannotConnect(connectFailure(error)) }
        return TransportError(.other, "request failed: \(error)")
    }

    /// Why one connection attempt failed, in a few plain words.
    public static func connectFailure(_ error: any Error) -> String {
        guard let error = error as? IOError else {
            if let error = error as? ChannelError, case .connectTimeout = error { return "timed out" }
            return "\(error)"
        }
        switch error.errnoCode {
        case ECONNREFUSED: return "connection refused"
        case ETIMEDOUT: return "timed out"
        case EHOSTUNREACH: return "host unreachable"
        case ENETUNREACH: return "network unreachable"
        case ECONNRESET: return "connection reset"
        case EACCES, EPERM: return "not permitted (a firewall?)"
        default: return String(cString: strerror(error.errnoCode)).lowercased()
        }
    }

    /// A TLS failure in plain words, naming the server.
    public static func tlsMessage(_ error: any Error, server: String) -> String {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "tls with \(server) failed: its certificate is not trusted (for a private ca, set ca_file or --ca-file)"
        }
        if text.lowercased().contains("wrong_version_number") {
            return "tls with \(server) failed: the server does not speak tls on this port (http:// instead of https://?)"
        }
        return "tls with \(server) failed: \(text)"
    }

    /// `HOST:PORT` of `url` (the scheme's port when none is given), without credentials.
    static func hostAndPort(of url: String) -> String {
        let lower = url.lowercased()
        let secure = lower.hasPrefix("https://")
        let rest = url.drop { $0 != "/" }.drop { $0 == "/" }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        let hostEnd = hostPort.hasPrefix("[") ? (hostPort.firstIndex(of: "]").map { hostPort.index(after: $0) } ?? hostPort.endIndex)
                                              : (hostPort.firstIndex(of: ":") ?? hostPort.endIndex)
        if hostEnd < hostPort.endIndex, hostPort[hostEnd] == ":" { return String(hostPort) }
        return "\(hostPort[..<hostEnd]):\(secure ? 443 : 80)"
    }

    private static let connectionLostMessage = "the server closed the connection before the reply was complete"

    private static func timedOutMessage(_ timeout: Duration) -> String {
        "no complete reply within \(timeout.components.seconds) s"
    }

    static func timeAmount(_ seconds: Double) -> TimeAmount {
        .nanoseconds(Int64(min(max(seconds, 0.001), 86_400) * 1e9))
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(max(0, min(seconds, 86_400)) * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
