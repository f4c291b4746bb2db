/// The broker's byte stream, packet by packet, checked before libmosquitto reads any of it.
///
/// libmosquitto (2.0) allocates a packet's whole announced length the moment its fixed
/// header has arrived, and reads until it has it: a broker announcing a 268,435,455-byte
/// PUBLISH, or a 200 MB message on `TOPIC/cmd`, costs that much memory (three times over,
/// with the copies made after). The filter sits in front of it (`MQTTRelay`) and passes a
/// packet only when its total size is within `maximumPacketSize`:
///
/// - a larger PUBLISH at QoS 0 or 1 is dropped as it streams past, without being held: its
///   topic (the first 256 bytes) and packet id are kept so that it can be named and, at
///   QoS 1, acknowledged (or the broker would send it again at every reconnection);
/// - any other larger packet (a CONNACK, SUBACK... of megabytes, a PUBLISH at QoS 2, which
///   this client never subscribes at) cannot be skipped safely: `Violation`, and the
///   connection is closed;
/// - a length of more than four bytes is malformed (MQTT 3.1.1 section 2.2.3): `Violation`.
///
/// Pure: bytes in, bytes out; the memory it holds is a few hundred bytes whatever the input.
public struct MQTTPacketFilter: Sendable {
    /// A PUBLISH dropped unread.
    public struct Dropped: Sendable, Equatable {
        /// Its topic (at most the first 256 bytes, as text).
        public var topic: String
        /// The whole packet's size in bytes, as announced.
        public var size: Int
        /// The packet id of a QoS 1 publish, to acknowledge; nil at QoS 0.
        public var packetID: UInt16?
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

    /// The largest whole packet passed on (fixed header included), as MQTT 5's Maximum
    /// Packet Size counts it.
    public let maximumPacketSize: Int
    /// The fixed header being read: the type byte and the length bytes so far.
    private var header: [UInt8] = []
    /// Body bytes of a packet being passed on, still to come.
    private var passing = 0
    /// A PUBLISH being dropped.
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
    public var atPacketBoundary: Bool { header.isEmpty && passing == 0 && dropping == nil }

    /// Reads `input`, appends to `output` what libmosquitto may read, and returns the
    /// publishes whose dropping ended within `input`.
    public mutating func filter(_ input: ArraySlice<UInt8>, into output: inout [UInt8]) throws(Violation) -> [Dropped] {
        var dropped: [Dropped] = []
        var index = input.startIndex
        while index < input.endIndex {
            if passing > 0 {
                let count = min(passing, input.endIndex - index)
                output.append(contentsOf: input[index..<(index + count)])
                passing -= count
                index += count
                continue
            }
            if var drop = dropping {
                while index < input.endIndex, drop.remaining > 0, drop.seen < drop.telling {
                    drop.see(input[index])
                    drop.remaining -= 1
                    index += 1
                }
                let skipped = min(drop.remaining, input.endIndex - index)
                drop.remaining -= skipped
                index += skipped
                if drop.remaining == 0 {
                    dropped.append(drop.result)
                    dropping = nil
                } else {
                    dropping = drop
                }
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
            var length = 0
            var multiplier = 1
            for lengthByte in header.dropFirst() {
                length += Int(lengthByte & 0x7F) * multiplier
                multiplier *= 128
            }
            let type = header[0]
            let total = header.count + length
            if total <= maximumPacketSize {
                output.append(contentsOf: header)
                passing = length
            } else if type >> 4 == 3, (type >> 1) & 3 < 2 {
                dropping = Drop(remaining: length, size: total, qos: Int((type >> 1) & 3))
            } else {
                throw .oversized(packetType: type >> 4, size: total, limit: maximumPacketSize)
            }
            header.removeAll(keepingCapacity: true)
        }
        return dropped
    }
}

/// Where the packets of a well-formed MQTT byte stream end (the client's own stream, from
/// libmosquitto): the relay puts its acknowledgements of dropped publishes between packets.
public struct MQTTPacketBoundary: Sendable {
    private var header: [UInt8] = []
    private var remaining = 0

    public init() {}

    /// Whether the stream so far ends at the end of a packet.
    public var atBoundary: Bool { header.isEmpty && remaining == 0 }

    /// Reads `input` from its start up to the end of the current packet at most; returns
    /// how many bytes that was (at least one when `input` is not empty).
    public mutating func consume(_ input: ArraySlice<UInt8>) -> Int {
        guard let first = input.first else { return 0 }
        if remaining > 0 {
            let count = min(remaining, input.count)
            remaining -= count
            return count
        }
        header.append(first)
        if header.count > 1, first & 0x80 == 0 || header.count == 5 {
            var length = 0
            var multiplier = 1
            for lengthByte in header.dropFirst() {
                length += Int(lengthByte & 0x7F) * multiplier
                multiplier *= 128
            }
            remaining = length
            header.removeAll(keepingCapacity: true)
        }
        return 1
    }
}
