import NIOCore
import NIOPosix
import NIOSSL
import OverlandJSON
import OverlandProtocol
import OverlandSync

/// One connection to an MQTT broker (MQTT 3.1.1 or 5), on SwiftNIO: TCP, or TLS through
/// NIOSSL for `mqtts://` with the trust rule of every destination (`TLSTrust`). One socket,
/// to the broker; what it reads is bounded (`MQTTFrameDecoder`, `MQTTSession`) and
/// acknowledged on NIO's event loop (`MQTTChannelHandler`).
///
/// The caller's thread publishes (appended to one write, sent at the next `step`), and
/// waits in `step` or `pump` for what the broker said, every wait bounded by a deadline.
/// Not thread-safe: one task uses a client at a time.
public final class MQTTClient {
    /// A message received on a subscribed topic.
    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        public var retained: Bool
    }

    public let options: MQTTClientOptions
    private let session: MQTTSession
    private let tls: NIOSSLContext?
    private var channel: Channel?
    /// Publishes written since the last flush: one write for many.
    private var pending: [UInt8] = []
    /// The QoS 1 packet ids in `pending`.
    private var pendingIDs: [UInt16] = []
    private var nextPacketID: UInt16 = 0
    private var connected = false
    /// Messages not kept since the last `takeMessages` (over the count or the rate).
    public private(set) var overflow = 0

    /// A client for `options`, not yet connected. Throws `.configuration` when the CA file
    /// cannot be used or a password comes without a user name.
    public init(options: MQTTClientOptions) throws(MQTTError) {
        self.options = options
        session = MQTTSession(topics: options.topics)
        if options.username == nil, options.password != nil {
            throw .configuration("a password (token) needs a user name: set 'username'")
        }
        guard options.broker.usesTLS else {
            tls = nil
            return
        }
        do {
            tls = try NIOSSLContext(configuration: try TLSTrust.clientConfiguration(caFile: options.caFile))
        } catch let error as SyncError {
            throw .configuration(error.description)
        } catch {
            throw .configuration("tls: cannot set up: \(error)")
        }
    }

    deinit { channel?.close(promise: nil) }

    // MARK: - Connecting

    /// Connects and waits for the broker's CONNACK, at most `connectTimeout` seconds.
    /// Throws `.tryLater` ("cannot connect to HOST:PORT: ...") when the broker cannot be
    /// reached or does not answer, `.refused` for refused credentials, `.configuration` for
    /// a protocol version or client id the broker refuses.
    public func connect() throws(MQTTError) {
        let deadline = ContinuousClock.now + .milliseconds(Int64(options.connectTimeout * 1000))
        let broker = options.broker
        let made = try open(deadline: deadline)
        channel = made
        made.writeAndFlush(made.allocator.buffer(bytes: MQTTPacket.connect(options)), promise: nil)
        do {
            try pump(until: deadline) { $0.session.connack != nil }
        } catch .tryLater(let message) {
            // A refusal is often followed at once by the broker closing: the refusal says why.
            if let connack = session.connack, connack.code != 0 { throw Self.refusal(Int32(connack.code), broker: broker) }
            throw .tryLater(message.hasPrefix("tls with") ? message
                            : "cannot connect to \(broker): \(message.hasPrefix("no answer") ? "no connack within \(Self.seconds(options.connectTimeout)) s" : message)")
        }
        guard let connack = session.connack else { throw .tryLater("cannot connect to \(broker): no connack") }
        if connack.code != 0 { throw Self.refusal(Int32(connack.code), broker: broker) }
        connected = true
    }

    /// The TCP connection (and TLS handler) to the broker.
    private func open(deadline: ContinuousClock.Instant) throws(MQTTError) -> Channel {
        let broker = options.broker
        let handler = MQTTChannelHandler(session: session, options: options)
        let tls = tls
        let isAddress = (try? SocketAddress(ipAddress: broker.host, port: 0)) != nil
        let left = max(1, Int64((deadline - ContinuousClock.now).components.seconds * 1000
                              + (deadline - ContinuousClock.now).components.attoseconds / 1_000_000_000_000_000))
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(left))
            // What is written goes at once: with Nagle's algorithm a refill of the window
            // could wait for the broker's delayed ACK of the last one (40 ms on Linux).
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : broker.host))
                    }
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        do {
            return try bootstrap.connect(host: broker.host, port: broker.port).wait()
        } catch {
            let classified = HTTPClientTransport.classify(error, timeout: .seconds(0), limit: 0, server: broker.description)
            if classified.kind == .connect || classified.kind == .tls { throw .tryLater(classified.message) }
            throw .tryLater("cannot connect to \(broker): \(HTTPClientTransport.connectFailure(error))")
        }
    }

    /// The error for a CONNACK that refused the connection (3.1.1 return codes 1-5, MQTT 5
    /// reason codes 0x80 and up).
    static func refusal(_ code: Int32, broker: MQTTBrokerURL) -> MQTTError {
        let text = connackText(code) ?? "code 0x\(String(code, radix: 16))"
        switch code {
        case 4, 5, 0x86, 0x87, 0x8A, 0x8C:
            // Bad user name or password, not authorized, banned, bad authentication method.
            return .refused("\(broker) refused the connection: \(text): check username and token")
        case 1, 0x84:
            return .configuration("\(broker) refused the connection: \(text): set protocol_version to the one the broker speaks")
        case 2, 0x85:
            return .configuration("\(broker) refused the connection: \(text): the client id")
        default:
            return .tryLater("\(broker) refused the connection: \(text)")
        }
    }

    private static func connackText(_ code: Int32) -> String? {
        switch code {
        case 1, 0x84: "unacceptable protocol version"
        case 2, 0x85: "identifier rejected"
        case 3, 0x88: "server unavailable"
        case 4, 0x86: "bad user name or password"
        case 5, 0x87: "not authorized"
        case 0x8A: "banned"
        case 0x8C: "bad authentication method"
        case 0x89: "server busy"
        case 0x97: "quota exceeded"
        default: nil
        }
    }

    private static func seconds(_ value: Double) -> String {
        CheckedInteger.rounded(value).flatMap { Double($0) == value ? String($0) : nil } ?? String(value)
    }

    // MARK: - Driving the connection

    /// Waits until `done` holds or `deadline` passes (then `.tryLater("no answer ...")`);
    /// each wait is at most 100 ms. Throws `.tryLater` when the connection is lost.
    public func pump(until deadline: ContinuousClock.Instant, _ done: (MQTTClient) -> Bool) throws(MQTTError) {
        while !done(self) {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw .tryLater("no answer within the time allowed") }
            let milliseconds = max(1, min(100, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            try step(timeoutMilliseconds: milliseconds)
        }
    }

    /// Sends what was published and waits at most `timeoutMilliseconds` for the broker to
    /// say something. Throws `.tryLater` once the connection has ended, with why.
    public func step(timeoutMilliseconds: Int32) throws(MQTTError) {
        flush()
        if let failure = session.locked({ session.failure }) {
            connected = false
            throw .tryLater(failure)
        }
        session.wait(milliseconds: Int(timeoutMilliseconds))
        if let failure = session.locked({ session.failure }) {
            connected = false
            throw .tryLater(failure)
        }
    }

    /// Hands what was published to the event loop, which marks its packet ids written
    /// (`MQTTSession.written`: only then does a PUBACK for them count) and writes it.
    private func flush() {
        guard !pending.isEmpty, let channel else { return }
        let bytes = channel.allocator.buffer(bytes: pending)
        let ids = pendingIDs
        let session = session
        channel.eventLoop.execute {
            session.written(ids)
            channel.writeAndFlush(bytes, promise: nil)
        }
        pending.removeAll(keepingCapacity: true)
        pendingIDs.removeAll(keepingCapacity: true)
    }

    // MARK: - Publishing and subscribing

    /// The most publishes the broker takes unacknowledged (MQTT 5's Receive Maximum), or
    /// nil when it does not say (MQTT 3.1.1).
    public var receiveMaximum: Int? { session.connack?.receiveMaximum.map(Int.init) }

    /// A packet id not in flight.
    private func packetID() -> UInt16 {
        repeat {
            nextPacketID = nextPacketID == UInt16.max ? 1 : nextPacketID + 1
        } while session.isInFlight(nextPacketID)
        return nextPacketID
    }

    /// Queues a publish (sent at the next `step`) and returns its message id; the PUBACK
    /// (QoS 1) arrives through `takeAcknowledgements`. QoS 0 publishes are not tracked.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: Int32 = 1, retain: Bool = false) throws(MQTTError) -> Int32 {
        guard connected else { throw .tryLater(session.locked { session.failure } ?? "not connected") }
        guard session.inFlightCount < 65_000 else { throw .tryLater("too many publishes in flight") }
        let id: UInt16 = qos > 0 ? packetID() : 0
        if qos > 0 {
            session.expect(packetID: id)
            pendingIDs.append(id)
        }
        MQTTPacket.publish(topic: topic, payload: payload, qos: UInt8(clamping: qos), retain: retain, packetID: id,
                           version: options.protocolVersion, into: &pending)
        return Int32(id)
    }

    /// Whether the publish `mid` still waits for its PUBACK.
    public func isInFlight(_ mid: Int32) -> Bool { session.isInFlight(UInt16(truncatingIfNeeded: mid)) }

    /// The PUBACKs received since the last call: message id and reason code (0 in MQTT 3.1.1;
    /// in MQTT 5, 0x80 and up is a refusal such as "not authorized").
    public func takeAcknowledgements() -> [(mid: Int32, reason: Int32)] { session.takeAcknowledgements() }

    /// The publishes dropped unread since the last call (larger than `maximumPacketSize`;
    /// those at QoS 1 acknowledged).
    public func takeDropped() -> [MQTTFrameDecoder.Dropped] { session.takeDropped() }

    /// The messages received on subscribed topics since the last call; `overflow` then says
    /// how many more were not kept.
    public func takeMessages() -> [Message] {
        let taken = session.takeMessages()
        overflow = taken.overflow
        return taken.messages
    }

    /// Subscribes to `topic` at QoS 1 and waits for the SUBACK (request timeout); returns
    /// the QoS the broker granted: 0 or 1, or a refusal (0x80 in MQTT 3.1.1, 0x80 and up
    /// in MQTT 5: not authorized, topic filter invalid...).
    @discardableResult
    public func subscribe(_ topic: String) throws(MQTTError) -> Int32 {
        guard connected else { throw .tryLater("cannot subscribe to '\(topic)': not connected") }
        let id = packetID()
        session.subscribing(topic)
        pending += MQTTPacket.subscribe(topic, qos: 1, packetID: id, version: options.protocolVersion)
        let deadline = ContinuousClock.now + .milliseconds(Int64(options.requestTimeout * 1000))
        var granted: UInt8?
        do {
            try pump(until: deadline) { client in
                granted = client.session.takeSuback(id)
                return granted != nil
            }
        } catch .tryLater(let message) {
            throw .tryLater("\(options.broker): subscribing to '\(topic)': \(message)")
        }
        return Int32(granted ?? 0x80)
    }

    /// Sends DISCONNECT (the broker then drops the last will) and closes once it is written;
    /// a connection already gone is left as it is.
    public func disconnect() {
        guard connected, let channel else { return }
        connected = false
        flush()
        let written = channel.writeAndFlush(channel.allocator.buffer(bytes: MQTTPacket.disconnect))
        _ = try? written.flatMap { channel.close() }.wait()
    }

    public var isConnected: Bool { connected && session.locked { session.failure == nil } }
}
