@testable import OverlandMQTT
import Testing

/// What the connection's handler hands the client's thread (issue 34): PUBACKs only for
/// packet ids in flight, messages only on subscribed topics, bounded in count and rate.
@Suite struct MQTTSessionTests {
    static func message(_ topic: String) -> MQTTClient.Message {
        MQTTClient.Message(topic: topic, payload: Array("{}".utf8), retained: false)
    }

    @Test func aPubackCountsOnlyForAPacketInFlightAndOnce() {
        let session = MQTTSession(topics: [])
        #expect(!session.received(puback: 1, reason: 0))
        session.expect(packetID: 7)
        // Published but not yet written by the event loop: the broker never had it.
        #expect(!session.received(puback: 7, reason: 0))
        #expect(session.isInFlight(7))
        session.written([7])
        #expect(session.received(puback: 7, reason: 0))
        #expect(!session.received(puback: 7, reason: 0))
        let taken = session.takeAcknowledgements()
        #expect(taken.count == 1 && taken.first?.mid == 7)
    }

    @Test func messagesOnlyOnSubscribedTopicsAtMostTenASecondAndSixteenWaiting() {
        let session = MQTTSession(topics: ["a/cmd"])
        let second: UInt64 = 1_000_000_000
        for index in 0..<50 { session.received(message: Self.message(index % 2 == 0 ? "a/cmd" : "other"), now: 5 * second + UInt64(index)) }
        var taken = session.takeMessages()
        // 25 on the subscribed topic within one second: 10 kept, 15 counted; the other topic's 25 passed over.
        #expect(taken.messages.count == 10 && taken.overflow == 15)
        for second in 6..<9 {
            for index in 0..<10 { session.received(message: Self.message("a/cmd"), now: UInt64(second) * 1_000_000_000 + UInt64(index)) }
        }
        taken = session.takeMessages()
        // Ten a second over three seconds, untaken: sixteen wait, the rest are counted.
        #expect(taken.messages.count == 16 && taken.overflow == 14)
    }
}
