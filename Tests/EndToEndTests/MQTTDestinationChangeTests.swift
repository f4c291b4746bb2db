import TestSupport
import Foundation
import OverlandJournal
import Testing

/// journal-format.md's rule "a destination whose url or token changed is tried at once"
/// (`failures_against`) for an MQTT destination, through `overland-sync` and Debian's
/// mosquitto on 127.0.0.1: the schedule is the one every destination shares.
@Suite(.serialized) struct MQTTDestinationChangeTests {
    /// The sync's wall clock, injected (`OVERLAND_TEST_NOW`): the second run is within the
    /// first one's backoff whatever the machine's load.
    static let now = Int64(Date().timeIntervalSince1970)
    static func environment(_ offset: Int64 = 0) -> [String: String?] { ["OVERLAND_TEST_NOW": String(now + offset)] }

    /// The cursor of destination `name`.
    static func cursor(_ sandbox: ReliabilitySandbox, _ name: String) throws -> UInt64 {
        try Journal(path: sandbox.journal).cursor(for: try #require(CursorName(name)))
    }

    @Test func aFixedTokenIsTriedByTheNextRunDespiteTheBackoff() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-mqtt-changed")
        try sandbox.logEpochs(0..<5)
        let broker = try MosquittoBroker(directory: sandbox.directory.path, users: ["alice": "right-password"])
        let added = try sandbox.overland.run(["destination", "add", "home", "mqtt://127.0.0.1:\(broker.port)", "--protocol", "mqtt",
                                              "--from-start", "--journal", sandbox.journal])
        try #require(added.succeeded, "\(added)")
        for (key, value) in [("username", "alice"), ("token", "wrong-password"), ("send_interval", "5m")] {
            let set = try sandbox.overland.run(["destination", "set", "home", key, value])
            try #require(set.succeeded, "\(set)")
        }
        let sync = ["--journal", sandbox.journal, "--to", "home", "-v"]

        let refused = try sandbox.sync.run(sync, environment: Self.environment())
        refused.expectExit(77)
        #expect(try Self.cursor(sandbox, "home") == 0)
        // The failure is recorded against this url and token (never the token itself).
        let state = try String(contentsOfFile: sandbox.journal + "/state/sync-home.json", encoding: .utf8)
        #expect(state.contains(#""failures_against":""#) && state.contains(#""consecutive_failures":1"#), "\(state)")
        #expect(!state.contains("wrong-password"))

        // The same token again: the backoff holds it.
        let held = try sandbox.sync.run(sync, environment: Self.environment(5))
        #expect(held.succeeded, "\(held)")
        #expect(held.stderrText.contains("backing off after 1 failed attempt"), "\(held.stderrText)")
        #expect(try Self.cursor(sandbox, "home") == 0)

        // The user fixes the token: the next run tries it at once, backoff or not.
        #expect(try sandbox.overland.run(["destination", "set", "home", "token", "right-password"]).succeeded)
        let retried = try sandbox.sync.run(sync, environment: Self.environment(10))
        #expect(retried.succeeded, "\(retried)")
        #expect(retried.stderrText.contains("the destination changed since the last failed attempt: trying it now"), "\(retried.stderrText)")
        #expect(!retried.stderrText.contains("backing off"), "\(retried.stderrText)")
        #expect(try Self.cursor(sandbox, "home") == 5)
        let delivered = try String(contentsOfFile: sandbox.journal + "/state/sync-home.json", encoding: .utf8)
        #expect(!delivered.contains("failures_against") && delivered.contains(#""consecutive_failures":0"#), "\(delivered)")
    }

    /// The url changed (another broker) after failures against the first: tried at once,
    /// past the backoff and the send interval.
    @Test func aChangedBrokerURLIsTriedByTheNextRun() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-mqtt-moved")
        try sandbox.logEpochs(0..<5)
        try sandbox.writeSettings(#"{"send_interval": "5m"}"#)
        let gone = RefusingPort.reserve()
        let failed = try sandbox.sync.run(["--journal", sandbox.journal, "--url", "mqtt://127.0.0.1:\(gone)"], environment: Self.environment())
        failed.expectExit(75)

        let broker = try MosquittoBroker(directory: sandbox.directory.path)
        let moved = ["--journal", sandbox.journal, "--url", "mqtt://127.0.0.1:\(broker.port)", "-v"]
        let retried = try sandbox.sync.run(moved, environment: Self.environment(10))
        #expect(retried.succeeded, "\(retried)")
        #expect(retried.stderrText.contains("trying it now"), "\(retried.stderrText)")
        #expect(try sandbox.cursor() == 5)
    }
}
