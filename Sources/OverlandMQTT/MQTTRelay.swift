#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import OverlandProtocol

/// The broker's connection, held by this process (TCP, and TLS for `mqtts://`, `MQTTTLS`),
/// with libmosquitto on the far side of a loopback socket speaking plain MQTT: every byte
/// from the broker passes `MQTTPacketFilter` before libmosquitto can read it, so that no packet larger than the limit is ever allocated
/// (libmosquitto 2.0 has no receive limit of its own: its source says as much, "FIXME -
/// client case for incoming message received from broker too large").
///
/// libmosquitto connects to a listening socket on 127.0.0.1 that takes exactly one
/// connection, the one whose source port is libmosquitto's own socket's, and closes at once.
/// Driven from the client's thread (`pump`), like libmosquitto: no thread of its own.
/// Buffers hold at most `bufferLimit` bytes each way.
final class MQTTRelay {
    static let bufferLimit = 64 * 1024

    private var upstream: Int32
    private var inner: Int32 = -1
    private var filter: MQTTPacketFilter
    private var boundary = MQTTPacketBoundary()
    private var toClient: [UInt8] = []
    private var toClientHead = 0
    private var toBroker: [UInt8] = []
    private var toBrokerHead = 0
    /// PUBACKs for dropped QoS 1 publishes, sent between the client's packets.
    private var pendingAcknowledgements: [UInt8] = []
    private var upstreamEnded = false
    private var innerEnded = false
    /// Publishes dropped since the last `takeDropped`.
    private var dropped: [MQTTPacketFilter.Dropped] = []
    /// Why the relay closed the connection itself (a violation), once it has.
    private(set) var failure: String?
    /// TLS with the broker (`mqtts://`), nil for plain TCP.
    private var tls: MQTTTLS?
    /// Ciphertext for the broker, under TLS.
    private var cipherOut: [UInt8] = []
    private var cipherOutHead = 0
    /// The broker, for messages.
    private let broker: MQTTBrokerURL

    private init(upstream: Int32, broker: MQTTBrokerURL, maximumPacketSize: Int) {
        self.upstream = upstream
        self.broker = broker
        filter = MQTTPacketFilter(maximumPacketSize: maximumPacketSize)
    }

    deinit { close() }

    // MARK: - Setting up

    /// Connects to `broker` within `deadline`, and for `mqtts://` completes the TLS
    /// handshake (`caFile`, else the system's authorities in `systemCAPath`); throws
    /// `.tryLater("cannot connect to HOST:PORT: ...")`, or `tls with HOST:PORT failed: ...`.
    static func connect(to broker: MQTTBrokerURL, maximumPacketSize: Int, caFile: String?, systemCAPath: String,
                        deadline: ContinuousClock.Instant) throws(MQTTError) -> MQTTRelay {
        let relay = try connectTCP(to: broker, maximumPacketSize: maximumPacketSize, deadline: deadline)
        if broker.usesTLS {
            relay.tls = try MQTTTLS(host: broker.host, caFile: caFile, systemCAPath: systemCAPath)
            try relay.handshake(caFile: caFile, deadline: deadline)
        }
        return relay
    }

    /// Runs the TLS handshake over the connected socket until done or `deadline`.
    private func handshake(caFile: String?, deadline: ContinuousClock.Instant) throws(MQTTError) {
        guard let tls else { return }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let step = tls.handshake()
            tls.takeOutgoing(into: &cipherOut)
            while cipherOut.count > cipherOutHead {
                guard ContinuousClock.now < deadline else { throw .tryLater("tls with \(broker) failed: no handshake within the connect timeout") }
                var poller = pollfd(fd: upstream, events: Int16(POLLOUT), revents: 0)
                _ = poll(&poller, 1, Self.milliseconds(deadline - ContinuousClock.now, atMost: 100))
                writeCipher()
                if upstreamEnded { throw .tryLater("tls with \(broker) failed: the connection closed during the handshake") }
            }
            switch step {
            case .done:
                return
            case .closed, .failed:
                if tls.certificateRefused {
                    let why = caFile == nil ? " (for a private ca, set ca_file)" : ""
                    throw .tryLater("tls with \(broker) failed: its certificate is not trusted or does not name '\(broker.host)'\(why)")
                }
                throw .tryLater("tls with \(broker) failed: \(MQTTTLS.lastError())")
            case .wants:
                guard ContinuousClock.now < deadline else { throw .tryLater("tls with \(broker) failed: no handshake within the connect timeout") }
                var poller = pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, Self.milliseconds(deadline - ContinuousClock.now, atMost: 100)) > 0 else { continue }
                let count = chunk.withUnsafeMutableBytes { recv(upstream, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if count > 0 {
                    tls.receive(chunk[0..<count])
                } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                    throw .tryLater("tls with \(broker) failed: the connection closed during the handshake")
                }
            }
        }
    }

    /// Sends what waits in `cipherOut`, without blocking.
    private func writeCipher() {
        write(&cipherOut, &cipherOutHead, to: upstream)
    }

    private static func connectTCP(to broker: MQTTBrokerURL, maximumPacketSize: Int,
                                   deadline: ContinuousClock.Instant) throws(MQTTError) -> MQTTRelay {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(broker.host, String(broker.port), &hints, &found)
        guard resolved == 0, let first = found else {
            throw .tryLater("cannot connect to \(broker): cannot resolve '\(broker.host)'")
        }
        defer { freeaddrinfo(first) }
        var lastError: Int32 = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { lastError = errno; continue }
            if Glibc.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 || errno == EINPROGRESS {
                let outcome = waitConnected(fd, deadline: deadline)
                if outcome == 0 {
                    var one: Int32 = 1
                    _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                    return MQTTRelay(upstream: fd, broker: broker, maximumPacketSize: maximumPacketSize)
                }
                lastError = outcome
            } else {
                lastError = errno
            }
            Glibc.close(fd)
            if ContinuousClock.now >= deadline { break }
        }
        if lastError == ETIMEDOUT {
            throw .tryLater("cannot connect to \(broker): no answer within the connect timeout")
        }
        throw .tryLater("cannot connect to \(broker): \(String(cString: strerror(lastError)).lowercased())")
    }

    /// 0 once `fd`'s connect completed, else the errno (ETIMEDOUT past `deadline`).
    private static func waitConnected(_ fd: Int32, deadline: ContinuousClock.Instant) -> Int32 {
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return ETIMEDOUT }
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&poller, 1, milliseconds(left, atMost: 100))
            if ready < 0 && errno != EINTR { return errno }
            if ready > 0 {
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return errno }
                return error
            }
        }
    }

    static func milliseconds(_ duration: Duration, atMost limit: Int32) -> Int32 {
        let total = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return Int32(max(1, min(Int64(limit), total)))
    }

    /// A socket listening on a free port of 127.0.0.1 for libmosquitto, and its port.
    static func listener() throws(MQTTError) -> (descriptor: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .tryLater("cannot make a local socket: \(String(cString: strerror(errno)).lowercased())") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0 && listen(fd, 4) == 0
            }
        }
        guard ready else {
            let saved = errno
            Glibc.close(fd)
            throw .tryLater("cannot listen on 127.0.0.1: \(String(cString: strerror(saved)).lowercased())")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Takes, from `listener`, the connection whose peer is the local socket `client`
    /// (libmosquitto's): any other is closed. Closes `listener`.
    func accept(from listener: Int32, client: Int32, deadline: ContinuousClock.Instant) throws(MQTTError) {
        defer { Glibc.close(listener) }
        guard let expected = Self.port(of: client, peer: false) else { throw .tryLater("libmosquitto has no socket") }
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Self.milliseconds(deadline - ContinuousClock.now, atMost: 100)) > 0 else { continue }
            let fd = Glibc.accept(listener, nil, nil)
            guard fd >= 0 else { continue }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            if Self.port(of: fd, peer: true) == expected {
                inner = fd
                return
            }
            Glibc.close(fd)
        }
        throw .tryLater("libmosquitto did not reach the local relay")
    }

    private static func port(of fd: Int32, peer: Bool) -> UInt16? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let done = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length) }
        }
        return done == 0 && address.sin_family == sa_family_t(AF_INET) ? UInt16(bigEndian: address.sin_port) : nil
    }

    // MARK: - Moving bytes

    /// The publishes dropped since the last call.
    func takeDropped() -> [MQTTPacketFilter.Dropped] {
        defer { dropped.removeAll() }
        return dropped
    }

    /// Moves what can move both ways, waiting at most `timeoutMilliseconds` for something to.
    func pump(timeoutMilliseconds: Int32) {
        guard upstream >= 0 || inner >= 0 else { return }
        var pollers: [pollfd] = []
        if upstream >= 0 {
            var events: Int32 = 0
            if !upstreamEnded && toClient.count - toClientHead < Self.bufferLimit { events |= Int32(POLLIN) }
            if (tls == nil ? toBroker.count > toBrokerHead : cipherOut.count > cipherOutHead) { events |= Int32(POLLOUT) }
            pollers.append(pollfd(fd: upstream, events: Int16(events), revents: 0))
        }
        if inner >= 0 {
            var events: Int32 = 0
            if !innerEnded && toBroker.count - toBrokerHead < Self.bufferLimit { events |= Int32(POLLIN) }
            if toClient.count > toClientHead { events |= Int32(POLLOUT) }
            pollers.append(pollfd(fd: inner, events: Int16(events), revents: 0))
        }
        // OpenSSL may hold plaintext already read from the socket: no waiting then.
        let ready = poll(&pollers, nfds_t(pollers.count), tls?.hasPending == true ? 0 : timeoutMilliseconds)
        guard ready > 0 || tls?.hasPending == true else { return }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        // From the broker (deciphered under TLS), through the filter.
        if upstream >= 0, !upstreamEnded, toClient.count - toClientHead < Self.bufferLimit {
            let count = chunk.withUnsafeMutableBytes { recv(upstream, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                if let tls {
                    tls.receive(chunk[0..<count])
                } else {
                    guard pass(chunk[0..<count]) else { return }
                }
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                upstreamEnded = true
            }
            if let tls {
                var plain = [UInt8](repeating: 0, count: 16 * 1024)
                reading: while toClient.count - toClientHead < Self.bufferLimit {
                    switch plain.withUnsafeMutableBytes({ tls.read(into: $0) }) {
                    case .done(let got): guard pass(plain[0..<got]) else { return }
                    case .wants: break reading
                    case .closed: upstreamEnded = true; break reading
                    case .failed:
                        failure = "tls with \(broker) failed: \(MQTTTLS.lastError())"
                        close()
                        return
                    }
                }
            }
        }
        // From libmosquitto, with acknowledgements put between its packets.
        if inner >= 0, !innerEnded, toBroker.count - toBrokerHead < Self.bufferLimit {
            let count = chunk.withUnsafeMutableBytes { recv(inner, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                compact(&toBroker, &toBrokerHead)
                var index = 0
                while index < count {
                    flushAcknowledgements()
                    let taken = boundary.consume(chunk[index..<count])
                    toBroker += chunk[index..<(index + taken)]
                    index += taken
                }
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                innerEnded = true
            }
        }
        flushAcknowledgements()
        write(&toClient, &toClientHead, to: inner)
        if let tls {
            compact(&cipherOut, &cipherOutHead)
            if toBroker.count > toBrokerHead, cipherOut.count < Self.bufferLimit, case .done = tls.write(toBroker[toBrokerHead...]) {
                toBroker.removeAll(keepingCapacity: true)
                toBrokerHead = 0
            }
            tls.takeOutgoing(into: &cipherOut)
            writeCipher()
        } else {
            write(&toBroker, &toBrokerHead, to: upstream)
        }
        // An end passes on once what came before it has.
        if upstreamEnded, toClient.count == toClientHead, inner >= 0 { shutdown(inner, Int32(SHUT_WR)) }
        if innerEnded, toBroker.count == toBrokerHead, cipherOut.count == cipherOutHead, upstream >= 0 { shutdown(upstream, Int32(SHUT_WR)) }
        if upstreamEnded && innerEnded { close() }
    }

    /// Runs bytes from the broker through the filter into `toClient`; false (the relay
    /// closed, `failure` set) on a violation.
    private func pass(_ bytes: ArraySlice<UInt8>) -> Bool {
        compact(&toClient, &toClientHead)
        let newlyDropped: [MQTTPacketFilter.Dropped]
        do {
            newlyDropped = try filter.filter(bytes, into: &toClient)
        } catch {
            failure = error.description
            close()
            return false
        }
        dropped += newlyDropped
        // A QoS 1 publish dropped is acknowledged, or the broker sends it again.
        for case let id? in newlyDropped.map(\.packetID) {
            pendingAcknowledgements += [0x40, 0x02, UInt8(id >> 8), UInt8(id & 0xFF)]
        }
        return true
    }

    private func flushAcknowledgements() {
        guard !pendingAcknowledgements.isEmpty, boundary.atBoundary else { return }
        toBroker += pendingAcknowledgements
        pendingAcknowledgements.removeAll()
    }

    private func write(_ buffer: inout [UInt8], _ head: inout Int, to fd: Int32) {
        guard fd >= 0, buffer.count > head else { return }
        let written = buffer.withUnsafeBytes { send(fd, $0.baseAddress! + head, $0.count - head, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        if written > 0 {
            head += written
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                head = 0
            }
        } else if written < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
            // The other side is gone: nothing more goes that way.
            buffer.removeAll(keepingCapacity: true)
            head = 0
            if fd == upstream { upstreamEnded = true } else { innerEnded = true }
        }
    }

    private func compact(_ buffer: inout [UInt8], _ head: inout Int) {
        guard head > 0 else { return }
        buffer.removeFirst(head)
        head = 0
    }

    /// Whether libmosquitto may still send something the broker has not had (its socket
    /// is open, or bytes from it wait).
    var isForwarding: Bool { upstream >= 0 && (toBroker.count > toBrokerHead || cipherOut.count > cipherOutHead || !innerEnded) }

    /// Closes both sides.
    func close() {
        if upstream >= 0 { Glibc.close(upstream) }
        if inner >= 0 { Glibc.close(inner) }
        upstream = -1
        inner = -1
    }
}
