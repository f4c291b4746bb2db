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

    /// Each line's device-id rule is the one `DestinationRules.deviceIDProblem` applies: by
    /// the configured and the spoken protocol's lines, and OwnTracks' for a profile that
    /// completes an OwnTracks identity.
    @Test func theDeviceIDRuleIsOnTheProtocolsLine() throws {
        func problem(_ deviceID: String, _ wireProtocol: WireProtocol, _ loggingMode: LoggingMode = .all,
                     _ profile: ReceiverProfile = .none) -> String? {
            DestinationRules.deviceIDProblem(deviceID, wireProtocol: wireProtocol, loggingMode: loggingMode, profile: profile)
        }
        let ownTracks = try #require(OwnTracksIdentity.problem(deviceID: "a/b/c"))
        let traccar = try #require(Receivers.kind(of: .traccar)?.deviceIDs.problem(""))
        #expect(traccar.contains("set device_id"))
        for kind in Receivers.table {
            switch kind.wireProtocol {
            case .overland: #expect(problem("a/b/c", .overland) == nil && problem("", .overland) == nil)
            case .owntracks, .mqtt: #expect(problem("a/b/c", kind.wireProtocol) == ownTracks && problem("van", kind.wireProtocol) == nil)
            case .traccar: #expect(problem("", .traccar) == traccar && problem("a/b/c", .traccar) == nil)
            default: Issue.record("\(kind.wireProtocol) has no expectation here")
            }
        }
        #expect(problem("a/b/c", .overland, .owntracks) == ownTracks, "the owntracks logging mode speaks OwnTracks")
        #expect(problem("a/b/c", .owntracks, .all, .homeAssistant) == ownTracks)
        #expect(problem("a/b/c", .overland, .all, .dawarich) == nil)
    }
}
