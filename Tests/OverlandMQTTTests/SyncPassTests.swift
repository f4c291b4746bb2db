import TestSupport
import Testing
import OverlandJournal
import OverlandMQTT
import OverlandSettings
import OverlandSync

/// `SyncPass`: the destinations an `overland-sync` run sends one journal to.
@Suite("SyncPass")
struct SyncPassTests {
    static func settings(endpoint: String = "http://127.0.0.1:9/overland") -> Settings {
        var settings = Settings()
        settings.endpoint = endpoint
        return settings
    }

    static func pass(_ selected: [Destination], all: [Destination], settings: Settings = settings()) -> SyncPass {
        SyncPass(selected: selected, all: all, senders: DestinationSenders(settings: settings, trip: nil, wallClock: { 1_000 }))
    }

    static let traccar = Destination(name: "traccar", url: "http://127.0.0.1:9", wireProtocol: .traccar)

    @Test func linesNameTheirDestinationUnlessTheDefaultIsAlone() throws {
        let home = try #require(Destination(settings: Self.settings()))
        #expect(!Self.pass([home], all: [home]).labelled)
        #expect(Self.pass([home], all: [home, Self.traccar]).labelled)
        #expect(Self.pass([Self.traccar], all: [Self.traccar]).labelled)
        #expect(Self.pass([home], all: [home]).refusal == nil)
    }

    @Test func aRefusedDefaultAloneIsTheRunsRefusal() throws {
        let settings = Self.settings(endpoint: "ftp://127.0.0.1/overland")
        let home = try #require(Destination(settings: settings))
        let alone = Self.pass([home], all: [home], settings: settings)
        let refusal = try #require(alone.senders.first?.refusal)
        #expect(alone.refusal == refusal)
        // Named, a refusal is that destination's alone: the others still send.
        #expect(Self.pass([home], all: [home, Self.traccar], settings: settings).refusal == nil)
    }

    @Test func dryRunSaysWhatEachWouldBeSentInOrder() throws {
        let directory = try TemporaryDirectory()
        let journal = try Journal(path: directory.appending("journal"), create: true, deviceID: "van")
        let home = try #require(Destination(settings: Self.settings()))
        var lines: [SyncPass.DryRunLine] = []
        try Self.pass([home, Self.traccar], all: [home, Self.traccar]).dryRun(journal: journal, path: "J", onIssue: nil) { lines.append($0) }
        #expect(lines == [.line("default: nothing to send from J"), .line("traccar: nothing to send from J")])

        let bad = Destination(name: "bad", url: "ftp://127.0.0.1/overland", wireProtocol: .traccar)
        let refusing = Self.pass([bad, Self.traccar], all: [bad, Self.traccar])
        let refusal = try #require(refusing.senders.first?.refusal)
        lines = []
        try refusing.dryRun(journal: journal, path: "J", onIssue: nil) { lines.append($0) }
        #expect(lines == [.refused("bad: " + refusal), .line("traccar: nothing to send from J")])
    }
}
