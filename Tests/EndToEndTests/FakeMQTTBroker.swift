import TestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A hostile or odd MQTT broker on a free 127.0.0.1 port, for what Debian's mosquitto never
/// does: it answers CONNECT with a CONNACK, SUBSCRIBE with a SUBACK of `subackCode`, QoS 1
/// PUBLISH with a PUBACK and PINGREQ with a PINGRESP, and after the CONNACK sends `greeting`
/// (`hugePublish` announces a 268,435,455-byte PUBLISH and streams part of it;
/// `afterConnack` goes out in the CONNACK's own write, so the client reads both at once). With
/// `nagle` its PUBACKs go out as mosquitto's do with Nagle's algorithm on (its default),
/// without the client's delayed-ACK timer: see `NagleModel`. It serves one connection at a
/// time on a thread of its own, and stops (closing its socket) with `stop` or on deinit.
final class FakeMQTTBroker: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let subackCode: UInt8
    private let greeting: (Int32) -> Void
    private let afterConnack: [UInt8]
    private let nagle: NagleModel?
    private let lock = NSLock()
    private var stopped = false
    private var _connections = 0
    private var _subscriptions: [String] = []

    /// Connections accepted so far.
    var connections: Int { lock.withLock { _connections } }
    /// Topic filters subscribed to, in order.
    var subscriptions: [String] { lock.withLock { _subscriptions } }

    init(subackCode: UInt8 = 1, afterConnack: [UInt8] = [], nagle: NagleModel? = nil,
         greeting: @escaping (Int32) -> Void = { _ in }) throws {
        self.subackCode = subackCode
        self.afterConnack = afterConnack
        self.nagle = nagle
        self.greeting = greeting
        guard let (fd, port) = LoopbackSocket.open(backlog: 8) else {
            throw ToolRunnerError(description: "fake broker: cannot listen: errno \(errno)")
        }
        listener = fd
        self.port = port
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    deinit { stop() }

    func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            var noSignal: Int32 = 1
            _ = setsockopt(connection, SOL_SOCKET, SO_KEEPALIVE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
            lock.withLock { _connections += 1 }
            handle(connection)
            close(connection)
        }
    }

    /// Reads exactly `count` bytes, or nil at the end of the connection.
    private func read(_ fd: Int32, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + done, count - done, 0) }
            if got <= 0 { return nil }
            done += got
        }
        return bytes
    }

    /// PUBACKs written as a broker with Nagle's algorithm on writes them, over a client whose
    /// delayed-ACK timer never fires, so that a client relying on that timer mid-drain waits
    /// for ever (its request timeout ends the run) and the outcome owes nothing to the
    /// machine's speed. A small packet goes out only when none written before is still
    /// unacknowledged; the rest are held. Unacknowledged data is acknowledged by the client's
    /// next bytes sent after reading it, which the broker can prove only from the protocol:
    /// the client keeps at most `window` PUBLISHes unacknowledged, so its PUBLISH number n
    /// was sent after it read PUBACK number n - `window`. Once `publishes` have arrived, what
    /// is held goes out (the one wait at the end a real client makes on its timer).
    struct NagleModel {
        let window: Int
        let publishes: Int
    }

    private struct NagleState {
        var unacknowledged = false
        var held: [UInt8] = []
        var received = 0
        var written = 0
        var writtenBeforeTheLastWrite = 0

        mutating func write(_ fd: Int32, _ packets: [UInt8]) {
            FakeMQTTBroker.write(fd, packets)
            writtenBeforeTheLastWrite = written
            written += packets.count / 4
            unacknowledged = true
        }

        mutating func releaseHeld(_ fd: Int32) {
            guard !held.isEmpty else {
                unacknowledged = false
                return
            }
            write(fd, held)
            held = []
        }
    }

    private func acknowledge(_ fd: Int32, _ packet: [UInt8], _ state: inout NagleState) {
        guard let nagle else {
            Self.write(fd, packet)
            return
        }
        state.received += 1
        if state.unacknowledged, state.received - nagle.window > state.writtenBeforeTheLastWrite {
            state.releaseHeld(fd)
        }
        if state.unacknowledged {
            state.held += packet
        } else {
            state.write(fd, packet)
        }
        if state.received == nagle.publishes { state.releaseHeld(fd) }
    }

    private func handle(_ fd: Int32) {
        var nagleState = NagleState()
        while true {
            guard let first = read(fd, 1) else { return }
            var length = 0
            var multiplier = 1
            while true {
                guard let byte = read(fd, 1) else { return }
                length += Int(byte[0] & 0x7F) * multiplier
                multiplier *= 128
                if byte[0] & 0x80 == 0 { break }
            }
            guard let body = read(fd, length) else { return }
            switch first[0] >> 4 {
            case 1: // CONNECT
                Self.write(fd, [0x20, 0x02, 0x00, 0x00] + afterConnack)
                greeting(fd)
            case 3: // PUBLISH
                let qos = (first[0] >> 1) & 3
                let topicLength = Int(body[0]) << 8 | Int(body[1])
                if qos > 0 { acknowledge(fd, [0x40, 0x02, body[2 + topicLength], body[3 + topicLength]], &nagleState) }
            case 8: // SUBSCRIBE
                let topicLength = Int(body[2]) << 8 | Int(body[3])
                let topic = String(decoding: body[4..<(4 + topicLength)], as: UTF8.self)
                lock.withLock { _subscriptions.append(topic) }
                Self.write(fd, [0x90, 0x03, body[0], body[1], subackCode])
            case 12: // PINGREQ
                Self.write(fd, [0xD0, 0x00])
            case 14: // DISCONNECT
                return
            default:
                continue
            }
        }
    }

    /// Writes all of `bytes`; false when the peer is gone.
    @discardableResult
    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            done += sent
        }
        return true
    }

    /// A greeting that announces a PUBLISH of 268,435,455 bytes (the most MQTT can say) on
    /// `topic` at QoS 1 and streams `streamed` bytes of it, then closes the connection.
    static func hugePublish(topic: String, streamed: Int) -> (Int32) -> Void {
        { fd in
            var header: [UInt8] = [0x32, 0xFF, 0xFF, 0xFF, 0x7F]
            header += [UInt8(topic.utf8.count >> 8), UInt8(topic.utf8.count & 0xFF)] + Array(topic.utf8) + [0x12, 0x34]
            guard write(fd, header) else { return }
            let chunk = [UInt8](repeating: 0x7B, count: 64 * 1024)
            var sent = 0
            while sent < streamed, write(fd, chunk) { sent += chunk.count }
            shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    /// A greeting that sends `count` QoS 0 PUBLISHes of `size` bytes on `topic` (nobody
    /// subscribed to it), then closes the connection.
    static func unsolicited(topic: String, count: Int, size: Int) -> (Int32) -> Void {
        { fd in
            let body = [UInt8(topic.utf8.count >> 8), UInt8(topic.utf8.count & 0xFF)] + Array(topic.utf8) + [UInt8](repeating: 0x41, count: size)
            var packet: [UInt8] = [0x30]
            var length = body.count
            repeat {
                packet.append(UInt8(length % 128) | (length >= 128 ? 0x80 : 0))
                length /= 128
            } while length > 0
            packet += body
            for _ in 0..<count where write(fd, packet) {}
            shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    /// A greeting that reads nothing more until the client has gone.
    static func deaf(_ fd: Int32) {
        var byte: UInt8 = 0
        while recv(fd, &byte, 1, 0) > 0 {}
    }

    /// A greeting that closes the connection at once.
    static func hangUp(_ fd: Int32) {
        shutdown(fd, Int32(SHUT_RDWR))
    }
}
