import Testing
@testable import OverlandSettings

/// `Destination.selected`: `overland-sync --to` and every command's line for a name none has.
@Suite("destination selection")
struct DestinationSelectionTests {
    static let all = [
        Destination(name: "default", url: "https://a.example/overland"),
        Destination(name: "home", url: "https://b.example/overland"),
        Destination(name: "traccar", url: "http://127.0.0.1:5055", wireProtocol: .traccar),
    ]

    @Test func noNameIsEveryOne() throws {
        #expect(try Destination.selected([], among: Self.all).map(\.name) == ["default", "home", "traccar"])
    }

    @Test func namesSelectInTheirOrderEachOnce() throws {
        #expect(try Destination.selected(["traccar", "default", "traccar"], among: Self.all).map(\.name) == ["traccar", "default"])
    }

    @Test func anUnknownNameNamesThoseConfigured() {
        #expect(throws: DestinationSelectionError.unknown("van", configured: ["default", "home", "traccar"])) {
            try Destination.selected(["home", "van"], among: Self.all)
        }
        #expect(DestinationSelectionError.unknown("van", configured: ["default", "home"]).description
            == "no destination 'van' (configured: default, home)")
        #expect(DestinationSelectionError.unknown("van", configured: []).description == "no destination 'van'")
    }

    @Test func defaultIsNamedFirstWhenAsked() {
        let others = Array(Self.all.dropFirst())
        #expect(DestinationSelectionError.unknown("van", among: others, withDefault: true)
            == .unknown("van", configured: ["default", "home", "traccar"]))
        #expect(DestinationSelectionError.unknown("van", among: others) == .unknown("van", configured: ["home", "traccar"]))
        #expect(DestinationSelectionError.unknown("van", among: Self.all, withDefault: true)
            == .unknown("van", configured: ["default", "home", "traccar"]))
    }

    @Test func noneConfiguredSaysHowToConfigureOne() {
        #expect(throws: DestinationSelectionError.noneConfigured) { try Destination.selected(["home"], among: []) }
        #expect(DestinationSelectionError.noneConfigured.description
            == "no endpoint: set one with 'overland config set endpoint URL' or OVERLAND_URL "
            + "(or add a destination: 'overland destination add NAME URL')")
    }
}
