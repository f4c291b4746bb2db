import OverlandProtocol
@testable import OverlandSettings
import Testing

/// The settings' `protocol` and a destination's take their values from `Receivers.table`:
/// the default destination speaks an HTTP protocol (a broker is a url, or a named
/// destination), a named destination any of them.
@Suite struct ProtocolChoiceTests {
    @Test func theSettingsTakeTheTablesHTTPProtocols() throws {
        var settings = Settings.defaults
        try SettingKey(named: "protocol").set("traccar", in: &settings)
        #expect(settings.wireProtocol == .traccar)
        let refused = #expect(throws: SettingsError.self) { try SettingKey(named: "protocol").set("mqtt", in: &settings) }
        #expect(refused?.description.contains("overland, owntracks, traccar") == true, "\(String(describing: refused))")
        #expect(settings.wireProtocol == .traccar)
    }

    @Test func aDestinationTakesEveryProtocolOfTheTable() throws {
        var destination = Destination(name: "home", url: "mqtt://127.0.0.1:1883")
        try DestinationKey(named: "protocol").set("mqtt", in: &destination, settings: Settings())
        #expect(destination.wireProtocol == .mqtt)
        #expect(DestinationKey.all.first { $0.name == "protocol" }?.summary == "the protocol the receiver speaks: overland, owntracks, traccar or mqtt")
        let refused = #expect(throws: SettingsError.self) { try DestinationKey(named: "protocol").set("echo", in: &destination, settings: Settings()) }
        #expect(refused?.description.contains("overland, owntracks, traccar, mqtt") == true, "\(String(describing: refused))")
    }
}
