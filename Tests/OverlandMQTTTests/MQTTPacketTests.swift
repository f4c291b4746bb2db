import OverlandMQTT
import OverlandProtocol
import Testing

/// The packets the client writes, byte for byte as MQTT 3.1.1 and 5 lay them out, and what
/// it reads from a broker's (sections 3.1-3.14 of each standard).
@Suite struct MQTTPacketTests {
    static func options(_ version: MQTTClientOptions.ProtocolVersion) throws -> MQTTClientOptions {
        var options = MQTTClientOptions(broker: try MQTTBrokerURL(parsing: "mqtt://127.0.0.1:1883"), clientID: "ovA")
        options.protocolVersion = version
        options.keepAlive = 60
        return options
    }

    @Test func connectUnder311AndUnder5() throws {
        var options = try Self.options(.v311)
        options.cleanSession = false
        options.username = "u"
        options.password = "p"
        #expect(MQTTPacket.connect(options) == [0x10, 21, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0xC0, 0, 60, 0, 3, 0x6F, 0x76, 0x41, 0, 1, 0x75, 0, 1, 0x70])
        var five = try Self.options(.v5)
        five.will = MQTTClientOptions.Will(topic: "t", payload: [0x7B, 0x7D], retain: true)
        five.maximumPacketSize = 0x20000
        // Flags: clean start, will, will qos 1, will retain; properties: Maximum Packet Size.
        #expect(MQTTPacket.connect(five) == [0x10, 29, 0, 4, 0x4D, 0x51, 0x54, 0x54, 5, 0x2E, 0, 60, 5, 0x27, 0, 2, 0, 0,
                                            0, 3, 0x6F, 0x76, 0x41, 0, 0, 1, 0x74, 0, 2, 0x7B, 0x7D])
    }

    @Test func publishesRoundTripThroughTheDecoder() throws {
        for version in MQTTClientOptions.ProtocolVersion.allCases {
            var bytes: [UInt8] = []
            MQTTPacket.publish(topic: "a/b", payload: Array("{}".utf8), qos: 1, retain: true, packetID: 0x0102, version: version, into: &bytes)
            MQTTPacket.publish(topic: "c", payload: [], qos: 0, retain: false, packetID: 0, version: version, into: &bytes)
            var decoder = MQTTFrameDecoder(maximumPacketSize: 1024)
            let packets = try decoder.decode(bytes[...]).map { output -> MQTTPacket.Incoming in
                guard case .frame(let frame) = output else { Issue.record("dropped"); return .pingresp }
                return try MQTTPacket.decode(frame, version: version)
            }
            #expect(packets == [
                .publish(MQTTPacket.Publish(topic: "a/b", payload: Array("{}".utf8), qos: 1, retained: true, packetID: 0x0102)),
                .publish(MQTTPacket.Publish(topic: "c", payload: [], qos: 0, retained: false, packetID: nil)),
            ])
        }
    }

    @Test func acknowledgementsAndTheBrokersLimits() throws {
        func decode(_ header: UInt8, _ body: [UInt8], _ version: MQTTClientOptions.ProtocolVersion) throws -> MQTTPacket.Incoming {
            try MQTTPacket.decode(MQTTFrameDecoder.Frame(header: header, body: body), version: version)
        }
        #expect(try decode(0x20, [0, 5], .v311) == .connack(code: 5, receiveMaximum: nil))
        // MQTT 5: a user property and a Receive Maximum of 20 among the properties.
        #expect(try decode(0x20, [0, 0, 10, 0x26, 0, 1, 0x6B, 0, 1, 0x76, 0x21, 0, 20], .v5) == .connack(code: 0, receiveMaximum: 20))
        #expect(try decode(0x40, [0x12, 0x34], .v311) == .puback(packetID: 0x1234, reason: 0))
        #expect(try decode(0x40, [0x12, 0x34, 0x87, 0], .v5) == .puback(packetID: 0x1234, reason: 0x87))
        #expect(try decode(0x90, [0, 7, 0x80], .v311) == .suback(packetID: 7, code: 0x80))
        #expect(try decode(0x90, [0, 7, 0, 1], .v5) == .suback(packetID: 7, code: 1))
        #expect(try decode(0x50, [0, 1], .v311) == .unexpected(type: 5))
        #expect(MQTTPacket.subscribe("x/cmd", qos: 1, packetID: 9, version: .v311) == [0x82, 10, 0, 9, 0, 5, 0x78, 0x2F, 0x63, 0x6D, 0x64, 1])
        #expect(MQTTPacket.puback(0xBEEF) == [0x40, 2, 0xBE, 0xEF])
    }

    @Test func truncatedBodiesAreMalformed() {
        #expect(throws: MQTTPacket.Malformed.self) { try MQTTPacket.decode(MQTTFrameDecoder.Frame(header: 0x20, body: [0]), version: .v311) }
        #expect(throws: MQTTPacket.Malformed.self) { try MQTTPacket.decode(MQTTFrameDecoder.Frame(header: 0x32, body: [0, 9, 0x61]), version: .v311) }
        // A property length past the end.
        #expect(throws: MQTTPacket.Malformed.self) { try MQTTPacket.decode(MQTTFrameDecoder.Frame(header: 0x20, body: [0, 0, 40, 0x21]), version: .v5) }
    }
}
