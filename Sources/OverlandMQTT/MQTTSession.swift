#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the connection's handler (on NIO's event loop) tells the client's thread, under a
/// lock: the CONNACK, SUBACKs, PUBACKs of publishes in flight, messages on subscribed
/// topics, publishes dropped unread, and why the connection ended. Everything it holds is
/// bounded: PUBACKs by the publishes in flight, messages by `messageLimit` and
/// `messagesPerSecond` (the rest counted, not kept), dropped publishes by `droppedLimit`.
final class MQTTSession: @unchecked Sendable {
    static let messageLimit = 16
    static let messagesPerSecond = 10
    static let droppedLimit = 16

    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    /// Something arrived since the client last waited.
    private var news = false

    private(set) var connack: (code: UInt8, receiveMaximum: UInt16?)?
    private var subacks: [UInt16: UInt8] = [:]
    /// Packet ids published and not yet acknowledged.
    private var inFlight: Set<UInt16> = []
    /// Those of them the event loop has written to the socket: a PUBACK counts only for one
    /// of these. A broker cannot acknowledge what it was never sent, and a PUBACK read
    /// before the write (sent with the CONNACK, say) would otherwise race the client's
    /// thread publishing that id.
    private var written: Set<UInt16> = []
    private var acknowledgements: [(mid: Int32, reason: Int32)] = []
    private var subscriptions: Set<String> = []
    private var messages: [MQTTClient.Message] = []
    /// Messages not kept (over the count or the rate), since the last `takeMessages`.
    private var overflow = 0
    private var secondStarted: UInt64 = 0
    private var takenThisSecond = 0
    private var dropped: [MQTTFrameDecoder.Dropped] = []
    /// Why the connection ended, once it has.
    private(set) var failure: String?

    init(topics: Set<String>) {
        subscriptions = topics
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }

    /// Records an event and wakes the client.
    private func announce(_ body: () -> Void) {
        pthread_mutex_lock(&mutex)
        body()
        news = true
        pthread_cond_signal(&condition)
        pthread_mutex_unlock(&mutex)
    }

    /// Waits until something arrives or `milliseconds` pass.
    func wait(milliseconds: Int) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        guard !news else { news = false; return }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = Int(now.tv_nsec) + (milliseconds % 1000) * 1_000_000
        var until = timespec(tv_sec: now.tv_sec + milliseconds / 1000 + nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
        while !news, failure == nil {
            if pthread_cond_timedwait(&condition, &mutex, &until) == ETIMEDOUT { break }
        }
        news = false
    }

    // MARK: - From the handler

    func received(connack code: UInt8, receiveMaximum: UInt16?) { announce { connack = (code, receiveMaximum) } }

    func received(suback packetID: UInt16, code: UInt8) { announce { subacks[packetID] = code } }

    /// A PUBACK: true when its packet id was in flight and written (anything else is a
    /// protocol error).
    func received(puback packetID: UInt16, reason: UInt8) -> Bool {
        var known = false
        announce {
            known = written.remove(packetID) != nil
            if known {
                inFlight.remove(packetID)
                acknowledgements.append((Int32(packetID), Int32(reason)))
            }
        }
        return known
    }

    /// The event loop is writing the publishes of `packetIDs` (called on it, before the write).
    func written(_ packetIDs: [UInt16]) { locked { written.formUnion(packetIDs) } }

    /// A message: kept when its topic is subscribed and neither the count nor this second's
    /// rate is used up, else counted as overflow (a topic never subscribed: passed over).
    func received(message: MQTTClient.Message, now: UInt64) {
        announce {
            guard subscriptions.contains(message.topic) else { return }
            if now / 1_000_000_000 != secondStarted {
                secondStarted = now / 1_000_000_000
                takenThisSecond = 0
            }
            guard messages.count < Self.messageLimit, takenThisSecond < Self.messagesPerSecond else {
                overflow += 1
                return
            }
            takenThisSecond += 1
            messages.append(message)
        }
    }

    func received(dropped publish: MQTTFrameDecoder.Dropped) {
        announce { if dropped.count < Self.droppedLimit { dropped.append(publish) } }
    }

    /// The connection ended; the first reason given is kept.
    func ended(_ why: String) { announce { if failure == nil { failure = why } } }

    // MARK: - From the client

    func expect(packetID: UInt16) { locked { _ = inFlight.insert(packetID) } }

    func subscribing(_ topic: String) { locked { _ = subscriptions.insert(topic) } }

    func isInFlight(_ packetID: UInt16) -> Bool { locked { inFlight.contains(packetID) } }

    var inFlightCount: Int { locked { inFlight.count } }

    func takeSuback(_ packetID: UInt16) -> UInt8? { locked { subacks.removeValue(forKey: packetID) } }

    func takeAcknowledgements() -> [(mid: Int32, reason: Int32)] {
        locked {
            defer { acknowledgements.removeAll(keepingCapacity: true) }
            return acknowledgements
        }
    }

    func takeMessages() -> (messages: [MQTTClient.Message], overflow: Int) {
        locked {
            defer { messages.removeAll(); overflow = 0 }
            return (messages, overflow)
        }
    }

    func takeDropped() -> [MQTTFrameDecoder.Dropped] {
        locked {
            defer { dropped.removeAll() }
            return dropped
        }
    }
}
