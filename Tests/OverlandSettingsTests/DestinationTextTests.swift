import OverlandJSON
import OverlandProtocol
import OverlandSettings
import Testing

/// A new destination as `overland destination add` makes it (`Destination.adding`), and
/// destinations as `overland destination list` and `show` print them (`DestinationText`).
@Suite struct DestinationTextTests {
    static func adding(_ name: String, _ url: String, protocol wireProtocol: String? = nil,
                       token: (() throws -> String)? = nil) throws -> Destination {
        try Destination.adding(name, url: url, protocol: wireProtocol, profile: nil, deviceID: nil, token: token, settings: Settings())
    }

    @Test func anUnknownProtocolIsRefusedBeforeTheTokenIsAskedFor() {
        var asked = false
        #expect {
            _ = try Self.adding("pigeon", "http://p.example", protocol: "carrier-pigeon", token: { asked = true; return "t" })
        } throws: { error in
            "\(error)" == "invalid value \"carrier-pigeon\" for \"protocol\" (allowed: \(WireProtocol.allowedNames))"
        }
        #expect(!asked)
    }

    @Test func aProtocolNamedInCapitalsIsTakenAndTheTokenIsSetLast() throws {
        let destination = try Self.adding("traccar", "http://t.example:5055", protocol: "Traccar", token: { "s3cret" })
        #expect(destination.wireProtocol == .traccar)
        #expect(destination.token == "s3cret")
    }

    @Test func listAlignsTheColumnsAndShowsUrlsRedacted() throws {
        let traccar = try Self.adding("traccar", "http://t.example:5055", protocol: "traccar")
        let home = try Self.adding("home", "https://user:pw@h.example/in?token=abc")
        #expect(DestinationText.list([traccar, home]) == [
            "traccar  traccar   http://t.example:5055",
            "home     overland  " + RedactedURL.shown("https://user:pw@h.example/in?token=abc"),
        ])
        #expect(!DestinationText.list([home]).joined().contains("pw"))
    }

    @Test func showNeverPrintsTheToken() throws {
        let home = try Self.adding("home", "https://h.example/in", token: { "s3cret" })
        let lines = DestinationText.keys(of: home)
        let first = try #require(lines.first)
        #expect(first.hasPrefix("name ") && first.hasSuffix("  home"))
        #expect(!lines.joined(separator: "\n").contains("s3cret"))
        #expect(lines.contains { $0.hasPrefix("token") })
    }
}
