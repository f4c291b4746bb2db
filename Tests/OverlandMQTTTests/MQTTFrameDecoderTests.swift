import TestSupport
import OverlandMQTT
import Testing

/// The client's frame decoder (issue 21: one message took 600-800 MB in libmosquitto):
/// packets within the limit come out whole, larger publishes are dropped as they stream
/// past, anything else larger ends the connection. Structure-aware fuzzing: random
/// well-formed streams cut at random places.
@Suite struct MQTTFrameDecoderTests {
    /// A packet: type byte, remaining length (MQTT's variable-length integer), body.
    static func packet(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
        var length = body.count
        var bytes = [type]
        repeat {
            var digit = UInt8(length % 128)
            length /= 128
            if length > 0 { digit |= 0x80 }
            bytes.append(digit)
        } while length > 0
        return bytes + body
    }

    static func publish(topic: String, payload: [UInt8], qos: UInt8, id: UInt16 = 0x1234) -> [UInt8] {
        var body = [UInt8(topic.utf8.count >> 8), UInt8(topic.utf8.count & 0xFF)] + Array(topic.utf8)
        if qos > 0 { body += [UInt8(id >> 8), UInt8(id & 0xFF)] }
        return packet(0x30 | qos << 1, body + payload)
    }

    /// Runs `stream` through a decoder in pieces of `sizes` (cycled): the packets that came
    /// out, written back as bytes, and the publishes dropped.
    static func run(_ stream: [UInt8], limit: Int, sizes: [Int]) throws(MQTTFrameDecoder.Violation) -> ([UInt8], [MQTTFrameDecoder.Dropped]) {
        var decoder = MQTTFrameDecoder(maximumPacketSize: limit)
        var output: [UInt8] = []
        var dropped: [MQTTFrameDecoder.Dropped] = []
        var index = 0
        var turn = 0
        while index < stream.count {
            let size = max(1, sizes[turn % sizes.count])
            turn += 1
            let end = min(stream.count, index + size)
            try decoder.decode(stream[index..<end]) { got in
                switch got {
                case .frame(let frame): output += packet(frame.header, frame.body)
                case .dropped(let one): dropped.append(one)
                }
            }
            index = end
        }
        #expect(decoder.atPacketBoundary)
        return (output, dropped)
    }

    @Test func smallPacketsPassUnchangedHoweverCut() throws {
        let stream = Self.packet(0x20, [0, 0]) + Self.packet(0x90, [0, 1, 1]) + Self.publish(topic: "a/cmd", payload: Array("{}".utf8), qos: 1)
            + Self.packet(0xD0, []) + Self.publish(topic: "a/cmd", payload: [UInt8](repeating: 7, count: 300), qos: 0)
        for size in 1...stream.count {
            let (output, dropped) = try Self.run(stream, limit: 1024, sizes: [size])
            #expect(output == stream)
            #expect(dropped.isEmpty)
        }
    }

    @Test func aLargePublishIsDroppedAndNamed() throws {
        let big = Self.publish(topic: "owntracks/a/b/cmd", payload: [UInt8](repeating: 0x20, count: 200_000), qos: 1, id: 0xBEEF)
        let before = Self.packet(0x40, [0, 1])
        let after = Self.packet(0xD0, [])
        for sizes in [[1], [7, 3], [16_384], [65_536, 1]] {
            let (output, dropped) = try Self.run(before + big + after, limit: 128 * 1024, sizes: sizes)
            #expect(output == before + after)
            let one = try #require(dropped.first)
            #expect(dropped.count == 1)
            #expect(one.topic == "owntracks/a/b/cmd")
            #expect(one.size == big.count)
            #expect(one.packetID == 0xBEEF)
        }
        let qos0 = Self.publish(topic: "t", payload: [UInt8](repeating: 1, count: 5000), qos: 0)
        let (_, dropped) = try Self.run(qos0, limit: 1000, sizes: [100])
        #expect(dropped.first?.packetID == nil && dropped.count == 1)
    }

    @Test func theLargestAnnouncedPublishIsSkippedWithoutBeingHeld() throws {
        // 268,435,455 bytes announced: the decoder only counts them down.
        var decoder = MQTTFrameDecoder(maximumPacketSize: 128 * 1024)
        let header: [UInt8] = [0x32, 0xFF, 0xFF, 0xFF, 0x7F, 0, 1, 0x78, 0, 9]
        #expect(try decoder.decode(header[...]).isEmpty)
        let chunk = [UInt8](repeating: 0, count: 1 << 20)
        var left = 268_435_455 - 5
        while left > 0 {
            let size = min(left, chunk.count)
            let outputs = try decoder.decode(chunk[0..<size])
            left -= size
            if left == 0 {
                #expect(outputs == [.dropped(MQTTFrameDecoder.Dropped(topic: "x", size: 268_435_460, packetID: 9))])
            } else {
                #expect(outputs.isEmpty)
            }
        }
        #expect(decoder.atPacketBoundary)
    }

    @Test func otherLargePacketsAndBadLengthsEndTheConnection() {
        var decoder = MQTTFrameDecoder(maximumPacketSize: 1000)
        #expect(throws: MQTTFrameDecoder.Violation.oversized(packetType: 9, size: 2003, limit: 1000)) {
            _ = try decoder.decode(Self.packet(0x90, [UInt8](repeating: 0, count: 2000))[...])
        }
        var qos2 = MQTTFrameDecoder(maximumPacketSize: 1000)
        #expect(throws: MQTTFrameDecoder.Violation.self) {
            _ = try qos2.decode(Self.publish(topic: "t", payload: [UInt8](repeating: 0, count: 2000), qos: 2)[...])
        }
        var malformed = MQTTFrameDecoder(maximumPacketSize: 1000)
        #expect(throws: MQTTFrameDecoder.Violation.malformedLength) {
            _ = try malformed.decode([0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01][...])
        }
    }

    /// Random streams of small and large packets, cut at random: what passes is exactly
    /// the small packets, and every large publish is named once.
    @Test(arguments: 0..<40) func fuzzedStreams(seed: Int) throws {
        var generator = SplitMix(state: UInt64(seed) &+ 0x6D717474)
        var stream: [UInt8] = []
        var expected: [UInt8] = []
        var large = 0
        for _ in 0..<Int.random(in: 1...30, using: &generator) {
            let size = Bool.random(using: &generator) ? Int.random(in: 0...2000, using: &generator) : Int.random(in: 0...300, using: &generator)
            let qos = UInt8.random(in: 0...1, using: &generator)
            let packet: [UInt8]
            switch Int.random(in: 0...3, using: &generator) {
            case 0: packet = Self.packet(0xD0, [])
            case 1: packet = Self.packet(0x40, [UInt8.random(in: 0...255, using: &generator), 1])
            default: packet = Self.publish(topic: "t/\(size)", payload: [UInt8](repeating: 0x41, count: size), qos: qos)
            }
            stream += packet
            if packet.count <= 1024 { expected += packet } else { large += 1 }
        }
        let sizes = (0..<8).map { _ in Int.random(in: 1...3000, using: &generator) }
        let (output, dropped) = try Self.run(stream, limit: 1024, sizes: sizes)
        #expect(output == expected)
        #expect(dropped.count == large)
    }
}
