/// The MQTT packets this client writes and reads, MQTT 3.1.1 and 5 (OASIS standards,
/// sections 3.x of each): bytes out for CONNECT, PUBLISH, PUBACK, SUBSCRIBE, PINGREQ and
/// DISCONNECT; what a broker's CONNACK, PUBLISH, PUBACK, SUBACK and DISCONNECT say. Pure.
public enum MQTTPacket {
    /// A packet from the broker, decoded from a `MQTTFrameDecoder.Frame`.
    public enum Incoming: Sendable, Equatable {
        /// The return code (3.1.1) or reason code (5), and under MQTT 5 the Receive Maximum.
        case connack(code: UInt8, receiveMaximum: UInt16?)
        case publish(Publish)
        /// The packet id and the reason code (0 in 3.1.1, and when MQTT 5 leaves it out).
        case puback(packetID: UInt16, reason: UInt8)
        /// The packet id and the first granted QoS or refusal (0x80 and up).
        case suback(packetID: UInt16, code: UInt8)
        case pingresp
        /// MQTT 5: the broker ends the connection, with why.
        case disconnect(reason: UInt8)
        /// A packet this client never expects from a broker (PUBREC..., CONNECT...).
        case unexpected(type: UInt8)
    }

    public struct Publish: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        public var qos: UInt8
        public var retained: Bool
        public var packetID: UInt16?

        public init(topic: String, payload: [UInt8], qos: UInt8, retained: Bool, packetID: UInt16?) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retained = retained
            self.packetID = packetID
        }
    }

    /// A packet that does not read as its type says.
    public struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        public let what: String
        public var description: String { "the broker sent a malformed \(what)" }
    }

    // MARK: - Writing

    /// The fixed header (type byte and remaining length) before `body`.
    static func frame(_ header: UInt8, _ body: [UInt8], into out: inout [UInt8]) {
        out.append(header)
        appendVariableInteger(body.count, to: &out)
        out += body
    }

    static func appendVariableInteger(_ value: Int, to out: inout [UInt8]) {
        var value = value
        repeat {
            var digit = UInt8(value % 128)
            value /= 128
            if value > 0 { digit |= 0x80 }
            out.append(digit)
        } while value > 0
    }

    static func appendString(_ bytes: some Collection<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: bytes.count >> 8))
        out.append(UInt8(truncatingIfNeeded: bytes.count))
        out += bytes
    }

    static func append16(_ value: UInt16, to out: inout [UInt8]) {
        out.append(UInt8(value >> 8))
        out.append(UInt8(value & 0xFF))
    }

    /// CONNECT: protocol name and level, flags, keep-alive, (MQTT 5: Maximum Packet Size),
    /// client id, will, user name and password.
    public static func connect(_ options: MQTTClientOptions) -> [UInt8] {
        let v5 = options.protocolVersion == .v5
        var body: [UInt8] = []
        appendString("MQTT".utf8, to: &body)
        body.append(v5 ? 5 : 4)
        var flags: UInt8 = options.cleanSession ? 0x02 : 0
        if let will = options.will { flags |= 0x04 | 0x08 | (will.retain ? 0x20 : 0) }
        if options.username != nil { flags |= 0x80 }
        if options.username != nil, options.password != nil { flags |= 0x40 }
        body.append(flags)
        append16(UInt16(clamping: options.keepAlive), to: &body)
        if v5 {
            let size = UInt32(clamping: options.maximumPacketSize)
            body += [5, 0x27, UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)]
        }
        appendString(options.clientID.utf8, to: &body)
        if let will = options.will {
            if v5 { body.append(0) }
            appendString(will.topic.utf8, to: &body)
            appendString(will.payload, to: &body)
        }
        if let username = options.username {
            appendString(username.utf8, to: &body)
            if let password = options.password { appendString(password.utf8, to: &body) }
        }
        var out: [UInt8] = []
        frame(0x10, body, into: &out)
        return out
    }

    /// PUBLISH, appended to `out` (many go out in one write).
    public static func publish(topic: String, payload: [UInt8], qos: UInt8, retain: Bool, packetID: UInt16,
                               version: MQTTClientOptions.ProtocolVersion, into out: inout [UInt8]) {
        let topicBytes = topic.utf8
        let length = 2 + topicBytes.count + (qos > 0 ? 2 : 0) + (version == .v5 ? 1 : 0) + payload.count
        out.append(0x30 | qos << 1 | (retain ? 1 : 0))
        appendVariableInteger(length, to: &out)
        appendString(topicBytes, to: &out)
        if qos > 0 { append16(packetID, to: &out) }
        if version == .v5 { out.append(0) }
        out += payload
    }

    public static func puback(_ packetID: UInt16) -> [UInt8] {
        [0x40, 0x02, UInt8(packetID >> 8), UInt8(packetID & 0xFF)]
    }

    /// SUBSCRIBE to one topic filter at `qos`.
    public static func subscribe(_ topic: String, qos: UInt8, packetID: UInt16, version: MQTTClientOptions.ProtocolVersion) -> [UInt8] {
        var body: [UInt8] = []
        append16(packetID, to: &body)
        if version == .v5 { body.append(0) }
        appendString(topic.utf8, to: &body)
        body.append(qos)
        var out: [UInt8] = []
        frame(0x82, body, into: &out)
        return out
    }

    public static let pingreq: [UInt8] = [0xC0, 0x00]
    public static let disconnect: [UInt8] = [0xE0, 0x00]

    // MARK: - Reading

    /// What `frame` says, read as `version` writes it.
    public static func decode(_ frame: MQTTFrameDecoder.Frame, version: MQTTClientOptions.ProtocolVersion) throws(Malformed) -> Incoming {
        var reader = Reader(bytes: frame.body)
        let v5 = version == .v5
        switch frame.type {
        case 2:
            guard let _ = reader.byte(), let code = reader.byte() else { throw Malformed(what: "connack") }
            guard v5 else { return .connack(code: code, receiveMaximum: nil) }
            var receiveMaximum: UInt16?
            try reader.properties(of: "connack") { id, value in if id == 0x21 { receiveMaximum = UInt16(clamping: value) } }
            return .connack(code: code, receiveMaximum: receiveMaximum)
        case 3:
            return .publish(try publish(frame, reader: &reader, v5: v5))
        case 4:
            guard let packetID = reader.uint16() else { throw Malformed(what: "puback") }
            return .puback(packetID: packetID, reason: v5 ? reader.byte() ?? 0 : 0)
        case 9:
            guard let packetID = reader.uint16() else { throw Malformed(what: "suback") }
            if v5 { try reader.properties(of: "suback") { _, _ in } }
            guard let code = reader.byte() else { throw Malformed(what: "suback") }
            return .suback(packetID: packetID, code: code)
        case 13:
            return .pingresp
        case 14:
            return .disconnect(reason: reader.byte() ?? 0)
        default:
            return .unexpected(type: frame.type)
        }
    }

    private static func publish(_ frame: MQTTFrameDecoder.Frame, reader: inout Reader, v5: Bool) throws(Malformed) -> Publish {
        let qos = (frame.flags >> 1) & 3
        guard qos < 3, let topic = reader.string() else { throw Malformed(what: "publish") }
        var packetID: UInt16?
        if qos > 0 {
            guard let id = reader.uint16() else { throw Malformed(what: "publish") }
            packetID = id
        }
        if v5 { try reader.properties(of: "publish") { _, _ in } }
        return Publish(topic: String(decoding: topic, as: UTF8.self), payload: reader.rest(), qos: qos,
                       retained: frame.flags & 1 == 1, packetID: packetID)
    }

    /// Reads a body front to back; nil past its end.
    struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func byte() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func uint16() -> UInt16? {
            guard let high = byte(), let low = byte() else { return nil }
            return UInt16(high) << 8 | UInt16(low)
        }

        mutating func uint32() -> UInt32? {
            guard let high = uint16(), let low = uint16() else { return nil }
            return UInt32(high) << 16 | UInt32(low)
        }

        mutating func string() -> ArraySlice<UInt8>? {
            guard let length = uint16(), index + Int(length) <= bytes.count else { return nil }
            defer { index += Int(length) }
            return bytes[index..<(index + Int(length))]
        }

        mutating func variableInteger() -> Int? {
            var value = 0
            var multiplier = 1
            for _ in 0..<4 {
                guard let digit = byte() else { return nil }
                value += Int(digit & 0x7F) * multiplier
                if digit & 0x80 == 0 { return value }
                multiplier *= 128
            }
            return nil
        }

        func rest() -> [UInt8] { index < bytes.count ? Array(bytes[index...]) : [] }

        /// MQTT 5 properties (section 2.2.2): each numeric one handed to `take`, the rest passed over.
        mutating func properties(of what: String, _ take: (UInt8, UInt32) -> Void) throws(Malformed) {
            guard let length = variableInteger(), index + length <= bytes.count else { throw Malformed(what: what) }
            let end = index + length
            while index < end {
                guard let id = byte() else { throw Malformed(what: what) }
                let value: UInt32?
                switch id {
                case 0x01, 0x17, 0x19, 0x24, 0x25, 0x28, 0x29, 0x2A: value = byte().map(UInt32.init)
                case 0x13, 0x21, 0x22, 0x23: value = uint16().map(UInt32.init)
                case 0x02, 0x11, 0x18, 0x27: value = uint32()
                case 0x0B: value = variableInteger().map { UInt32(clamping: $0) }
                case 0x03, 0x08, 0x09, 0x12, 0x15, 0x16, 0x1A, 0x1C, 0x1F: value = string().map { _ in 0 }
                case 0x26: value = string() != nil && string() != nil ? 0 : nil
                default: value = nil
                }
                guard let value, index <= end else { throw Malformed(what: what) }
                take(id, value)
            }
        }
    }
}
