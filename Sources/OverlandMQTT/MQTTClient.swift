#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CMosquitto
import OverlandJSON
import OverlandProtocol

/// One connection to an MQTT broker through libmosquitto, driven from the caller's thread:
/// no background thread, and every wait is `mosquitto_loop` with a timeout cut to a
/// deadline, so nothing here blocks past the connect or request timeout (except name
/// resolution, which libmosquitto does with the system's blocking resolver).
///
/// Not thread-safe: one task uses a client at a time. libmosquitto's callbacks run inside
/// `pump`, on that task's thread, and only record what happened.
public final class MQTTClient {
    /// A message received on a subscribed topic.
    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        public var retained: Bool
    }

    public let options: MQTTClientOptions
    private let handle: OpaquePointer
    private var userData: Unmanaged<MQTTClient>?
    /// The broker's connection (TCP, or TLS for `mqtts://`): libmosquitto reads only what
    /// passed its packet filter. Nil until `connect`.
    private var relay: MQTTRelay?

    // What the callbacks recorded.
    private var connack: Int32?
    private var connected = false
    /// Set when the connection ended (libmosquitto's reason code).
    private var disconnectReason: Int32?
    /// Message ids whose PUBACK arrived, with the reason code (MQTT 5; 0 in 3.1.1).
    private var acknowledgements: [(mid: Int32, reason: Int32)] = []
    /// SUBACKs received: message id and the first granted QoS (0x80 and up: refused).
    private var subscribed: [Int32: Int32] = [:]
    private var received: [Message] = []
    /// Publishes not yet acknowledged.
    public private(set) var inFlight: Set<Int32> = []

    /// libmosquitto, opened on first use (it is not linked: see CMosquitto), or why not.
    private static let library: String? = {
        var message = [CChar](repeating: 0, count: 256)
        guard overland_mosquitto_open(&message, message.count) == 0 else {
            return String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        mosquitto_lib_init()
        return nil
    }()

    /// A client for `options`, not yet connected. Throws `.configuration` when libmosquitto
    /// cannot be loaded or refuses the options (a client id, a will, a CA file it cannot load).
    public init(options: MQTTClientOptions) throws(MQTTError) {
        if let failure = Self.library { throw .configuration(failure) }
        self.options = options
        guard let made = mosquitto_new(options.clientID, options.cleanSession, nil) else {
            throw .configuration("cannot create an mqtt client: \(String(cString: strerror(errno)).lowercased())")
        }
        handle = made
        let retained = Unmanaged.passUnretained(self)
        userData = retained
        mosquitto_user_data_set(handle, retained.toOpaque())
        try configure()
    }

    deinit {
        mosquitto_destroy(handle)
        relay?.close()
    }

    private func configure() throws(MQTTError) {
        let version = options.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(version)), "protocol version")
        // libmosquitto queues past this many QoS 1 publishes; the sender keeps below it anyway.
        _ = mosquitto_int_option(handle, MOSQ_OPT_SEND_MAXIMUM, Int32(max(1, min(options.inFlightWindow, 65_535))))
        _ = mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        if let username = options.username {
            try check(mosquitto_username_pw_set(handle, username, options.password), "user name")
        } else if options.password != nil {
            throw .configuration("a password (token) needs a user name: set 'username'")
        }
        if let will = options.will {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes.baseAddress, 1, will.retain)
            }
            try check(rc, "last will")
        }
        // TLS (mqtts://) is the relay's (MQTTRelay, MQTTTLS): libmosquitto speaks plain MQTT
        // to it over loopback.
        mosquitto_connect_v5_callback_set(handle) { _, object, code, _, _ in
            MQTTClient.from(object)?.connack = code
            MQTTClient.from(object)?.connected = code == 0
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, object, code, _ in
            guard let client = MQTTClient.from(object) else { return }
            client.connected = false
            client.disconnectReason = code
        }
        mosquitto_publish_v5_callback_set(handle) { _, object, mid, reason, _ in
            guard let client = MQTTClient.from(object) else { return }
            if client.inFlight.remove(mid) != nil { client.acknowledgements.append((mid, reason)) }
        }
        mosquitto_subscribe_v5_callback_set(handle) { _, object, mid, count, granted, _ in
            // A SUBACK without a code is malformed: counted as a refusal.
            MQTTClient.from(object)?.subscribed[mid] = count > 0 ? granted?.pointee ?? 0x80 : 0x80
        }
        mosquitto_message_v5_callback_set(handle) { _, object, message, _ in
            guard let client = MQTTClient.from(object), let message = message?.pointee, let topic = message.topic else { return }
            var payload: [UInt8] = []
            if let bytes = message.payload, message.payloadlen > 0 {
                payload = Array(UnsafeRawBufferPointer(start: bytes, count: Int(message.payloadlen)))
            }
            client.received.append(Message(topic: String(cString: topic), payload: payload, retained: message.retain))
        }
    }

    private static func from(_ object: UnsafeMutableRawPointer?) -> MQTTClient? {
        object.map { Unmanaged<MQTTClient>.fromOpaque($0).takeUnretainedValue() }
    }

    private func check(_ rc: Int32, _ what: String) throws(MQTTError) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw .configuration("mqtt \(what): \(Self.describe(rc))") }
    }

    /// libmosquitto's text for `rc`, lower-case; errno's text for a system error.
    static func describe(_ rc: Int32, errno savedErrno: Int32 = errno) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(savedErrno)).lowercased() }
        guard let text = mosquitto_strerror(rc) else { return "error \(rc)" }
        return String(cString: text).lowercased()
    }

    // MARK: - Connecting

    /// Connects and waits for the broker's CONNACK, at most `connectTimeout` seconds.
    /// Throws `.tryLater` ("cannot connect to HOST:PORT: ...") when the broker cannot be
    /// reached or does not answer, `.refused` for refused credentials, `.configuration` for
    /// a protocol version or client id the broker refuses.
    public func connect() throws(MQTTError) {
        let deadline = ContinuousClock.now + .milliseconds(Int64(options.connectTimeout * 1000))
        let broker = options.broker
        try connectThroughRelay(deadline: deadline)
        do {
            try pump(until: deadline) { $0.connack != nil }
        } catch .tryLater(let message) {
            throw .tryLater("cannot connect to \(broker): \(message.hasPrefix("no answer") ? "no connack within \(Self.seconds(options.connectTimeout)) s" : message)")
        }
        guard let code = connack else { throw .tryLater("cannot connect to \(broker): no connack") }
        if code != 0 { throw Self.refusal(code, broker: broker) }
    }

    /// Connects to the broker through a relay (`MQTTRelay`), then libmosquitto to the
    /// relay, asking an MQTT 5 broker for packets of at most `maximumPacketSize`.
    private func connectThroughRelay(deadline: ContinuousClock.Instant) throws(MQTTError) {
        let broker = options.broker
        let made = try MQTTRelay.connect(to: broker, maximumPacketSize: options.maximumPacketSize, caFile: options.caFile,
                                         systemCAPath: options.systemCAPath, deadline: deadline)
        let (listener, port) = try MQTTRelay.listener()
        var properties: OpaquePointer?
        if options.protocolVersion == .v5 {
            _ = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), UInt32(options.maximumPacketSize))
        }
        errno = 0
        let rc = mosquitto_connect_bind_v5(handle, "127.0.0.1", Int32(port), Int32(options.keepAlive), nil, properties)
        let savedErrno = errno
        mosquitto_property_free_all(&properties)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            close(listener)
            if rc == MOSQ_ERR_INVAL.rawValue {
                throw .configuration("cannot connect to \(broker): libmosquitto refuses the keep-alive or the options")
            }
            throw .tryLater("cannot connect to \(broker): the local relay: \(Self.describe(rc, errno: savedErrno))")
        }
        try made.accept(from: listener, client: mosquitto_socket(handle), deadline: deadline)
        relay = made
    }

    /// The error for a CONNACK that refused the connection (3.1.1 return codes 1-5, MQTT 5
    /// reason codes 0x80 and up).
    static func refusal(_ code: Int32, broker: MQTTBrokerURL) -> MQTTError {
        let text = mosquitto_reason_string(code).map { String(cString: $0).lowercased() } ?? "code \(code)"
        switch code {
        case 4, 5, 0x86, 0x87, 0x8A, 0x8C:
            // Bad user name or password, not authorized, banned, bad authentication method.
            return .refused("\(broker) refused the connection: \(connackText(code) ?? text): check username and token")
        case 1, 0x84:
            return .configuration("\(broker) refused the connection: \(connackText(code) ?? text): set protocol_version to the one the broker speaks")
        case 2, 0x85:
            return .configuration("\(broker) refused the connection: \(connackText(code) ?? text): the client id")
        default:
            return .tryLater("\(broker) refused the connection: \(connackText(code) ?? text)")
        }
    }

    private static func connackText(_ code: Int32) -> String? {
        switch code {
        case 1: "unacceptable protocol version"
        case 2: "identifier rejected"
        case 3: "server unavailable"
        case 4: "bad user name or password"
        case 5: "not authorized"
        default: nil
        }
    }

    private static func seconds(_ value: Double) -> String {
        CheckedInteger.rounded(value).flatMap { Double($0) == value ? String($0) : nil } ?? String(value)
    }

    // MARK: - Driving the connection

    /// Runs libmosquitto's network loop until `done` holds or `deadline` passes (then
    /// `.tryLater("no answer ...")`); each wait is at most 100 ms. Throws `.tryLater` when
    /// the connection is lost.
    public func pump(until deadline: ContinuousClock.Instant, _ done: (MQTTClient) -> Bool) throws(MQTTError) {
        while !done(self) {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw .tryLater("no answer within the time allowed") }
            let milliseconds = max(1, min(100, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            try step(timeoutMilliseconds: milliseconds)
        }
    }

    /// One turn of the loop: reads, writes and keep-alive, waiting at most `timeoutMilliseconds`.
    public func step(timeoutMilliseconds: Int32) throws(MQTTError) {
        if let relay {
            relay.pump(timeoutMilliseconds: timeoutMilliseconds)
            if let failure = relay.failure {
                connected = false
                throw .tryLater(failure + "; connection closed")
            }
        }
        errno = 0
        let rc = mosquitto_loop(handle, relay == nil ? timeoutMilliseconds : 0, 1)
        let savedErrno = errno
        // A CONNACK that refused the connection: `connect` says why.
        if let code = connack, code != 0 { return }
        guard rc != MOSQ_ERR_SUCCESS.rawValue else {
            if let reason = disconnectReason, connack != nil {
                throw .tryLater("connection lost (\(Self.describe(reason)))")
            }
            return
        }
        connected = false
        throw .tryLater(lossMessage(rc, errno: savedErrno))
    }

    private func lossMessage(_ rc: Int32, errno savedErrno: Int32) -> String {
        if connack == nil { return Self.describe(rc, errno: savedErrno) }
        return "connection lost (\(Self.describe(rc, errno: savedErrno)))"
    }

    // MARK: - Publishing and subscribing

    /// Queues a publish and returns its message id; the PUBACK (QoS 1) arrives through
    /// `takeAcknowledgements` as `pump` runs. QoS 0 publishes are not tracked.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: Int32 = 1, retain: Bool = false) throws(MQTTError) -> Int32 {
        var mid: Int32 = 0
        errno = 0
        let rc = payload.withUnsafeBytes { bytes in
            mosquitto_publish_v5(handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, qos, retain, nil)
        }
        let savedErrno = errno
        switch rc {
        case MOSQ_ERR_SUCCESS.rawValue:
            if qos > 0 { inFlight.insert(mid) }
            return mid
        case MOSQ_ERR_INVAL.rawValue, MOSQ_ERR_MALFORMED_UTF8.rawValue, MOSQ_ERR_PAYLOAD_SIZE.rawValue, MOSQ_ERR_OVERSIZE_PACKET.rawValue:
            throw .configuration("cannot publish to '\(topic)': \(Self.describe(rc))")
        default:
            throw .tryLater(lossMessage(rc, errno: savedErrno))
        }
    }

    /// The PUBACKs received since the last call: message id and reason code (0 in MQTT 3.1.1;
    /// in MQTT 5, 0x80 and up is a refusal such as "not authorized").
    public func takeAcknowledgements() -> [(mid: Int32, reason: Int32)] {
        defer { acknowledgements.removeAll(keepingCapacity: true) }
        return acknowledgements
    }

    /// The publishes the relay dropped unread since the last call (larger than
    /// `maximumPacketSize`; those at QoS 1 acknowledged).
    public func takeDropped() -> [MQTTPacketFilter.Dropped] {
        relay?.takeDropped() ?? []
    }

    /// The messages received since the last call.
    public func takeMessages() -> [Message] {
        defer { received.removeAll() }
        return received
    }

    /// Subscribes to `topic` at QoS 1 and waits for the SUBACK (request timeout); returns
    /// the QoS the broker granted: 0 or 1, or a refusal (0x80 in MQTT 3.1.1, 0x80 and up
    /// in MQTT 5: not authorized, topic filter invalid...).
    @discardableResult
    public func subscribe(_ topic: String) throws(MQTTError) -> Int32 {
        var mid: Int32 = 0
        let rc = mosquitto_subscribe(handle, &mid, topic, 1)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw .tryLater("cannot subscribe to '\(topic)': \(Self.describe(rc))") }
        let deadline = ContinuousClock.now + .milliseconds(Int64(options.requestTimeout * 1000))
        do {
            try pump(until: deadline) { $0.subscribed[mid] != nil }
        } catch .tryLater(let message) {
            throw .tryLater("\(options.broker): subscribing to '\(topic)': \(message)")
        }
        return subscribed.removeValue(forKey: mid) ?? 0x80
    }

    /// Waits until every publish is acknowledged or `deadline` passes (no error then: the
    /// caller sees what remains in `inFlight`).
    public func drainInFlight(until deadline: ContinuousClock.Instant) throws(MQTTError) {
        do {
            try pump(until: deadline) { $0.inFlight.isEmpty }
        } catch .tryLater(let message) where message.hasPrefix("no answer") {
            return
        }
    }

    /// Sends DISCONNECT (the broker then drops the last will) and gives the packet a moment
    /// to leave; a connection already gone is left as it is.
    public func disconnect() {
        guard connected else { return }
        guard mosquitto_disconnect(handle) == MOSQ_ERR_SUCCESS.rawValue else { return }
        let deadline = ContinuousClock.now + .milliseconds(500)
        while disconnectReason == nil, ContinuousClock.now < deadline {
            relay?.pump(timeoutMilliseconds: 10)
            if mosquitto_loop(handle, relay == nil ? 50 : 0, 1) != MOSQ_ERR_SUCCESS.rawValue { break }
        }
        // The DISCONNECT reaches the broker before the relay closes.
        while let relay, relay.isForwarding, ContinuousClock.now < deadline { relay.pump(timeoutMilliseconds: 10) }
        relay?.close()
        connected = false
    }

    public var isConnected: Bool { connected }
}
