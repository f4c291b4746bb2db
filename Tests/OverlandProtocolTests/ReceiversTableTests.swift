import OverlandProtocol
import Testing

/// `Receivers.table` is the one list of protocols: `WireProtocol`'s cases, MQTT's line
/// among them, and the carrier each destination is sent by.
@Suite struct ReceiversTableTests {
    @Test func theTableIsEveryProtocolInOrder() {
        #expect(WireProtocol.allCases == [.overland, .owntracks, .traccar, .mqtt])
        #expect(WireProtocol.allCases == Receivers.table.map(\.wireProtocol))
        #expect(Receivers.httpProtocols.map(\.wireProtocol) == [.overland, .owntracks, .traccar])
    }

    @Test func aNameIsAProtocolOnlyWhenTheTableListsIt() {
        #expect(WireProtocol(rawValue: "traccar") == .traccar)
        #expect(WireProtocol(rawValue: "mqtt") == .mqtt)
        #expect(WireProtocol(rawValue: "echo") == nil)
        #expect(Receivers.kind(of: WireProtocol(declaring: "echo")) == nil)
    }

    /// A broker's url goes through a broker whatever the protocol (the settings' endpoint
    /// names none); anything else by its protocol's carrier.
    @Test func theCarrierFollowsTheProtocolAndABrokersURL() {
        func viaBroker(_ wireProtocol: WireProtocol, _ url: String) -> Bool? {
            Receivers.carrier(of: wireProtocol, url: url).map { !$0.isHTTP }
        }
        #expect(viaBroker(.overland, "https://h/pub") == false)
        #expect(viaBroker(.traccar, "http://h:5055") == false)
        #expect(viaBroker(.overland, "MQTTS://h:8883") == true)
        #expect(viaBroker(.mqtt, "mqtt://h") == true)
        #expect(viaBroker(.mqtt, "http://h") == true)
        #expect(viaBroker(WireProtocol(declaring: "echo"), "http://h") == nil)
    }
}
