/// The broker's byte stream cut into packets, each one's length checked before any of it
/// is held: a broker announcing a 268,435,455-byte PUBLISH, or a 200 MB message on
/// `TOPIC/cmd`, costs this client no more than `maximumPacketSize`.
///
/// - a packet within `maximumPacketSize` (fixed header included, as MQTT 5's Maximum Packet
///   Size counts it) comes out whole, as a `Frame`;
/// - a larger PUBLISH at QoS 0 or 1 is skipped as it streams past, without being held: its
///   topic (the first 256 bytes) and packet id are kept so that it can be named and, at
///   QoS 1, acknowledged (or the broker would send it again at every reconnection);
/// - any other larger packet (a CONNACK, SUBACK... of megabytes, a PUBLISH at QoS 2, which
///   this client never subscribes at) cannot be skipped safely: `Violation`, and the
///   connection is closed;
/// - a length of more than four bytes is malformed (MQTT 3.1.1 section 2.2.3): `Violation`.
///
/// Pure: bytes in, packets out.
public struct MQTTFrameDecoder: Sendable {
    /// One whole packet: its first byte (type and flags) and its body.
    public struct Frame: Sendable, Equatable {
        public var header: UInt8
        public var body: [UInt8]
        public var type: UInt8 { header >> 4 }
        public var flags: UInt8 { header & 0x0F }

        public init(header: UInt8, body: [UInt8]) {
            self.header = header
            self.body = body
        }
    }

    /// A PUBLISH skipped unread.
    public struct Dropped: Sendable, Equatable {
        /// Its topic (at most the first 256 bytes, as text).
        public var topic: String
        /// The whole packet's size in bytes, as announced.
        public var size: Int
        /// The packet id of a QoS 1 publish, to acknowledge; nil at QoS 0.
        public var packetID: UInt16?

        public init(topic: String, size: Int, packetID: UInt16?) {
            self.topic = topic
            self.size = size
            self.packetID = packetID
        }
    }

    /// What the stream gave.
    public enum Output: Sendable, Equatable {
        case frame(Frame)
        case dropped(Dropped)
    }

    /// Why the connection cannot go on.
    public enum Violation: Error, Sendable, Equatable, CustomStringConvertible {
        /// A packet other than a QoS 0 or 1 PUBLISH larger than the limit.
        case oversized(packetType: UInt8, size: Int, limit: Int)
        /// A remaining length of more than four bytes.
        case malformedLength

        public var description: String {
            switch self {
            case .oversized(let type, let size, let limit):
                return "the broker announced a packet (type \(type)) of \(size) bytes, more than the \(limit) this client takes"
            case .malformedLength:
                return "the broker sent a packet whose length is malformed (more than four bytes)"
            }
        }
    }

    public let maximumPacketSize: Int
    /// The fixed header being read: the type byte and the length bytes so far.
    private var header: [UInt8] = []
    /// The packet being collected (at most `maximumPacketSize`) and how much of it is still to come.
    private var body: [UInt8] = []
    private var collecting = 0
    private var bodyHeader: UInt8 = 0
    /// A PUBLISH being skipped.
    private var dropping: Drop?

    private struct Drop {
        static let topicKept = 256
        var remaining: Int
        let size: Int
        let qos: Int
        var seen = 0
        var topicLength = 0
        var topic: [UInt8] = []
        var packetID: UInt16 = 0

        /// How many body bytes say something: the topic length, the topic, the packet id.
        var telling: Int { 2 + topicLength + (qos > 0 ? 2 : 0) }

        mutating func see(_ byte: UInt8) {
            switch seen {
            case 0: topicLength = Int(byte) << 8
            case 1: topicLength |= Int(byte)
            case 2..<(2 + topicLength): if topic.count < Self.topicKept { topic.append(byte) }
            default: packetID = packetID << 8 | UInt16(byte)
            }
            seen += 1
        }

        var result: Dropped {
            Dropped(topic: String(decoding: topic, as: UTF8.self), size: size, packetID: qos > 0 ? packetID : nil)
        }
    }

    public init(maximumPacketSize: Int) {
        self.maximumPacketSize = maximumPacketSize
    }

    /// Whether no packet is under way (the stream may end here without losing a packet).
    public var atPacketBoundary: Bool { header.isEmpty && collecting == 0 && dropping == nil }

    /// Reads `input` and hands each packet completed or skipped within it to `emit`, in order.
    public mutating func decode(_ input: ArraySlice<UInt8>, _ emit: (Output) -> Void) throws(Violation) {
        var index = input.startIndex
        while index < input.endIndex {
            if collecting > 0 {
                let count = min(collecting, input.endIndex - index)
                body.append(contentsOf: input[index..<(index + count)])
                collecting -= count
                index += count
                if collecting == 0 { emitBody(emit) }
                continue
            }
            if dropping != nil {
                index = skip(input, from: index, emit)
                continue
            }
            let byte = input[index]
            index += 1
            header.append(byte)
            guard header.count > 1 else { continue }
            if byte & 0x80 != 0 {
                guard header.count < 5 else { throw .malformedLength }
                continue
            }
            try begin(emit)
        }
    }

    /// The packets in `input`, for callers that want them as a list.
    public mutating func decode(_ input: ArraySlice<UInt8>) throws(Violation) -> [Output] {
        var outputs: [Output] = []
        try decode(input) { outputs.append($0) }
        return outputs
    }

    /// A fixed header is complete: collect, skip or refuse the packet it announces.
    private mutating func begin(_ emit: (Output) -> Void) throws(Violation) {
        var length = 0
        var multiplier = 1
        for lengthByte in header.dropFirst() {
            length += Int(lengthByte & 0x7F) * multiplier
            multiplier *= 128
        }
        let type = header[0]
        let total = header.count + length
        header.removeAll(keepingCapacity: true)
        if total <= maximumPacketSize {
            bodyHeader = type
            collecting = length
            body.removeAll(keepingCapacity: true)
            if length == 0 { emitBody(emit) }
        } else if type >> 4 == 3, (type >> 1) & 3 < 2 {
            dropping = Drop(remaining: length, size: total, qos: Int((type >> 1) & 3))
        } else {
            throw .oversized(packetType: type >> 4, size: total, limit: maximumPacketSize)
        }
    }

    private mutating func emitBody(_ emit: (Output) -> Void) {
        emit(.frame(Frame(header: bodyHeader, body: body)))
        body.removeAll(keepingCapacity: body.capacity <= 4096)
    }

    /// Counts down a skipped PUBLISH, keeping its topic and packet id; the index after what it took.
    private mutating func skip(_ input: ArraySlice<UInt8>, from start: Int, _ emit: (Output) -> Void) -> Int {
        guard var drop = dropping else { return start }
        var index = start
        while index < input.endIndex, drop.remaining > 0, drop.seen < drop.telling {
            drop.see(input[index])
            drop.remaining -= 1
            index += 1
        }
        let skipped = min(drop.remaining, input.endIndex - index)
        drop.remaining -= skipped
        index += skipped
        if drop.remaining == 0 {
            emit(.dropped(drop.result))
            dropping = nil
        } else {
            dropping = drop
        }
        return index
    }
}
