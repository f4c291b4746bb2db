import NIOCore
import OverlandJSON
import OverlandSync

/// The broker's side of one connection, on NIO's event loop: every byte read goes through
/// the bounded `MQTTFrameDecoder`; PUBACKs (for the broker's QoS 1 publishes, and for
/// those dropped unread) are written here at once, so no acknowledgement ever waits for
/// the client's thread; what the client needs is recorded in the `MQTTSession`. A packet
/// that breaks the protocol closes the connection, with why.
final class MQTTChannelHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let session: MQTTSession
    private let version: MQTTClientOptions.ProtocolVersion
    private let broker: String
    private let keepAlive: Int64
    private var decoder: MQTTFrameDecoder
    private var lastRead = NIODeadline.now()
    private var keepAliveTask: RepeatedTask?

    init(session: MQTTSession, options: MQTTClientOptions) {
        self.session = session
        version = options.protocolVersion
        broker = options.broker.description
        keepAlive = Int64(max(1, options.keepAlive))
        decoder = MQTTFrameDecoder(maximumPacketSize: options.maximumPacketSize)
    }

    func channelActive(context: ChannelHandlerContext) {
        // A PINGREQ every keep-alive (MQTT asks for one when nothing else was sent; one
        // more costs two bytes); a broker silent for twice as long is gone.
        let interval = TimeAmount.seconds(keepAlive)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        keepAliveTask = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { [self] _ in
            guard NIODeadline.now() - lastRead < interval * 2 else {
                fail(bound.value, "no answer from the broker within \(keepAlive * 2) s (keep-alive)")
                return
            }
            write(bound.value, MQTTPacket.pingreq)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        keepAliveTask?.cancel()
        session.ended("connection lost (the broker closed the connection)")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let text = HTTPClientTransport.classify(error, timeout: .seconds(0), limit: 0, server: broker)
        fail(context, text.kind == .tls ? text.message : "connection lost (\(HTTPClientTransport.connectFailure(error)))")
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        lastRead = .now()
        let bytes = buffer.withUnsafeReadableBytes { Array($0) }
        var problem: String?
        do {
            try decoder.decode(bytes[...]) { output in
                guard problem == nil else { return }
                problem = handle(output, context)
            }
        } catch {
            problem = error.description
        }
        if let problem { fail(context, problem + "; connection closed") }
    }

    /// One packet from the broker; why the connection cannot go on, if so.
    private func handle(_ output: MQTTFrameDecoder.Output, _ context: ChannelHandlerContext) -> String? {
        switch output {
        case .dropped(let dropped):
            if let packetID = dropped.packetID { write(context, MQTTPacket.puback(packetID)) }
            session.received(dropped: dropped)
            return nil
        case .frame(let frame):
            do {
                return handle(try MQTTPacket.decode(frame, version: version), context)
            } catch {
                return error.description
            }
        }
    }

    private func handle(_ packet: MQTTPacket.Incoming, _ context: ChannelHandlerContext) -> String? {
        switch packet {
        case .connack(let code, let receiveMaximum):
            session.received(connack: code, receiveMaximum: receiveMaximum)
        case .publish(let publish):
            guard publish.qos < 2 else { return "the broker sent a publish at qos 2, above the qos 1 subscribed: a protocol error" }
            if let packetID = publish.packetID { write(context, MQTTPacket.puback(packetID)) }
            session.received(message: MQTTClient.Message(topic: publish.topic, payload: publish.payload, retained: publish.retained),
                             now: NIODeadline.now().uptimeNanoseconds)
        case .puback(let packetID, let reason):
            guard session.received(puback: packetID, reason: reason) else {
                return "the broker acknowledged packet id \(packetID), which is not in flight: a protocol error"
            }
        case .suback(let packetID, let code):
            session.received(suback: packetID, code: code)
        case .pingresp:
            break
        case .disconnect(let reason):
            return "the broker ended the connection (reason code 0x\(String(reason, radix: 16)))"
        case .unexpected(let type):
            return "the broker sent a packet of type \(type), which a client never receives: a protocol error"
        }
        return nil
    }

    private func write(_ context: ChannelHandlerContext, _ bytes: [UInt8]) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }

    private func fail(_ context: ChannelHandlerContext, _ why: String) {
        session.ended(why)
        context.close(promise: nil)
    }
}
