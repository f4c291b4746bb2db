import TestSupport
import Foundation
import OverlandJournal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a new user hit (issue 33, "Messages and small things a new user hit"), each through
/// the real command.
@Suite("messages a new user reads")
struct NewUserMessagesTests {
    static let environment: [String: String?] = ["OVERLAND_TOKEN": nil]

    /// A 401 with no token set said "check the token", as if a token were wrong.
    @Test func noTokenSetIsSaidAsSuch() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-no-token")
        try sandbox.logEpochs(0..<3)
        let server = try LocalServer { _, _ in LocalServer.text(401, "unauthorized") }
        defer { server.stop() }
        try sandbox.writeSettings(#"{"endpoint": "\#(server.url)"}"#)
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        result.expectExit(77)
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(result.stderrText.contains("no token is set") && result.stderrText.contains("'overland config set token --stdin'"),
                "\(result)")
        #expect(!result.stderrText.contains("check the token"), "\(result)")

        let added = try sandbox.overland.run(["destination", "add", "other", server.url + "/other", "--from-start", "--journal", sandbox.journal])
        added.expectExit(0)
        let named = try sandbox.sync.run(["--journal", sandbox.journal, "--now", "--to", "other"])
        named.expectExit(77)
        #expect(named.stderrText.contains("'overland destination set other token --stdin'"), "\(named)")

        // A token that is set and refused: the token is what to check.
        let wrong = try sandbox.sync.run(["--journal", sandbox.journal, "--now"], environment: ["OVERLAND_TOKEN": "wrong-one"])
        #expect(wrong.exitStatus == 77 && wrong.stderrText.contains("check the token"), "\(wrong)")
    }

    /// Only the 404 line named the journal; every other line about the server starts with it.
    @Test func theWrongEndpointLineNamesTheServer() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-404")
        try sandbox.logEpochs(0..<3)
        let server = try LocalServer { _, _ in LocalServer.text(404, "not found") }
        defer { server.stop() }
        try sandbox.writeSettings(#"{"endpoint": "\#(server.url)", "token": "t"}"#)
        let result = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        result.expectExit(78)
        #expect(result.stderrLines.count == 1 && result.stderrText.hasPrefix("overland-sync: \(server.url): "), "\(result)")
        #expect(!result.stderrText.contains(sandbox.journal), "\(result)")
    }

    /// A cron run that succeeds after a settings change printed "the destination changed
    /// since the last failed attempt: trying it now"; and a one-off --url's failure stayed
    /// in `status --json` as the default destination's last error with 0 failed attempts.
    @Test func aSuccessfulRunAfterAChangeIsQuiet() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-quiet-cron")
        try sandbox.logEpochs(0..<3)
        let failing = try LocalServer { _, _ in LocalServer.text(500, "database down") }
        let fixed = try LocalServer()
        defer { failing.stop(); fixed.stop() }
        try sandbox.writeSettings(#"{"endpoint": "\#(failing.url)", "token": "t"}"#)
        let first = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        first.expectExit(75)
        #expect(try sandbox.overland.run(["config", "set", "endpoint", fixed.url]).exitStatus == 0)
        let cron = try sandbox.sync.run(["--journal", sandbox.journal])
        cron.expectExit(0)
        #expect(cron.stderrText.isEmpty, "a cron run that succeeds says nothing: \(cron.stderrText)")
        #expect(fixed.requests.count == 1)

        try sandbox.logEpochs(3..<6)
        let oneOff = try sandbox.sync.run(["--journal", sandbox.journal, "--now", "--url", failing.url])
        oneOff.expectExit(75)
        let status = try sandbox.overland.run(["status", "--json", "--journal", sandbox.journal])
        let object = try #require((try? JSONScan.value(status.stdout)) as? [String: Any], "\(status)")
        #expect(object["failed_attempts"] as? Int == 0, "\(status.stdoutText)")
        #expect(object["last_error"] is NSNull, "no error without a failed attempt that applies: \(status.stdoutText)")
    }

    @Test func theHelpNamesEveryKeyAndDefault() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-help")
        let help = try sandbox.overland.run(["destination", "set", "--help"])
        help.expectExit(0)
        let text = help.stdoutText.replacingOccurrences(of: "\n", with: " ").split(separator: " ", omittingEmptySubsequences: true)
            .joined(separator: " ")
        for key in ["url", "verify", "verify_url", "verify_token", "pub_retain", "commands", "batch_size", "topic", "discovery"] {
            #expect(text.contains(" \(key),") || text.contains(" \(key);") || text.contains(" \(key).") || text.contains(": \(key)"),
                    "\(key) in: \(text)")
        }
        let sync = try sandbox.sync.run(["--help"])
        #expect(sync.stdoutText.contains("$XDG_DATA_HOME/overland/journal"), "\(sync.stdoutText)")
        let log = try sandbox.log.run(["--help"])
        let noFix = log.stdoutText.components(separatedBy: "--no-fix-warning").dropFirst().joined()
        let option = noFix.components(separatedBy: "\n  --").first ?? ""
        #expect(option.components(separatedBy: "default").count == 2, "one default: \(option)")

        // `set` takes `default` (the settings file) even without an endpoint: named with the others.
        let unknown = try sandbox.overland.run(["destination", "set", "er", "url", "http://127.0.0.1:9/x"])
        #expect(unknown.exitStatus == 64 && unknown.stderrText.contains("(configured: default)"), "\(unknown)")
    }

    /// `config set endpoint http://h:/api` got the list of allowed values where `destination
    /// add` names the empty port.
    @Test func anEndpointIsRefusedWithTheSyncsWords() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-endpoint-words")
        let config = try sandbox.overland.run(["config", "set", "endpoint", "http://h:/api"])
        config.expectExit(64)
        #expect(config.stderrLines.count == 1 && config.stderrText.contains("has an empty port after ':'"), "\(config)")
        let add = try sandbox.overland.run(["destination", "add", "h", "http://h:/api", "--journal", sandbox.journal])
        #expect(add.stderrText.contains("has an empty port after ':'"), "\(add)")
    }

    /// `journal move` without --seal, all points in the active segment: exit 0, nothing moved.
    @Test func aMoveThatMovesNothingSaysWhy() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-move-nothing")
        try sandbox.logEpochs(0..<20)
        let target = sandbox.directory.appending("stick")
        let move = try sandbox.overland.run(["journal", "move", "--journal", sandbox.journal, "--to", target])
        move.expectExit(64)
        #expect(move.stderrLines.count == 1 && move.stderrText.contains("moved nothing, and 20 unsent points stay here")
                && move.stderrText.contains("--seal"), "\(move)")
        #expect(try sandbox.records().records.count == 20)
        let sealed = try sandbox.overland.run(["journal", "move", "--journal", sandbox.journal, "--to", target, "--seal"])
        #expect(sealed.exitStatus == 0 && sealed.stdoutText.contains("20 records"), "\(sealed)")
    }

    /// `journal stats` counted the trip record as a point, and its `to` was the trip's end.
    @Test func statsCountPointsNotTrips() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-stats-trip")
        try sandbox.logEpochs(0..<5)
        #expect(try sandbox.overland.run(["trip", "start", "--journal", sandbox.journal]).exitStatus == 0)
        try sandbox.logEpochs(5..<10)
        #expect(try sandbox.overland.run(["trip", "stop", "--journal", sandbox.journal]).exitStatus == 0)
        let stats = try sandbox.overland.run(["journal", "stats", "--journal", sandbox.journal])
        stats.expectExit(0)
        #expect(stats.stdoutLines.contains { $0.hasPrefix("records   11 (10 location points): ") }, "\(stats.stdoutText)")
        let last = "2024-03-01T00:00:09Z"
        #expect(stats.stdoutLines.contains("to        \(last)"), "the last point's time, not the trip's end: \(stats.stdoutText)")
        let json = try sandbox.overland.run(["journal", "stats", "--journal", sandbox.journal, "--json"])
        let object = try #require((try? JSONScan.value(json.stdout)) as? [String: Any], "\(json)")
        #expect(object["points"] as? Int == 10 && object["records"] as? Int == 11 && object["last"] as? String == last, "\(json.stdoutText)")
    }

    /// An unquoted link reaches the command cut at its first '&': said, not only that the
    /// token is cleared.
    @Test func anUnquotedSetupLinkIsSuspected() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-setup-cut")
        try sandbox.writeSettings(#"{"endpoint": "https://old.example/in", "token": "old-token"}"#)
        let cut = try sandbox.overland.run(["setup", "overland://setup?url=https://gps.example/in"])
        cut.expectExit(0)
        #expect(cut.stderrText.contains("the shell cut it at the first '&'"), "\(cut)")
        let whole = try sandbox.overland.run(["setup", "overland://setup?url=https://gps.example/in&token=new-token"])
        #expect(whole.exitStatus == 0 && !whole.stderrText.contains("shell"), "\(whole)")
    }

    /// A point without an altitude went to OwnTracks receivers as `"alt":0` (Home Assistant
    /// showed altitude 0): what the point does not know is left out.
    @Test func anUnknownAltitudeIsLeftOut() throws {
        let sandbox = try ReliabilitySandbox(prefix: "overland-no-altitude")
        // RMC alone: position, speed and course, no altitude.
        let rmcOnly = SyntheticDrive.text(0..<3).split(separator: "\r\n").filter { $0.contains("RMC") }.map { $0 + "\r\n" }.joined()
        let input = try sandbox.file("rmc.nmea", rmcOnly)
        let logged = try sandbox.log.run(["--journal", sandbox.journal, "--device-id", "reliability", input])
        logged.expectExit(0)
        try sandbox.logEpochs(10..<12)
        let server = try LocalServer()
        defer { server.stop() }
        let added = try sandbox.overland.run(["destination", "add", "ot", server.url, "--protocol", "owntracks", "--from-start",
                                              "--journal", sandbox.journal])
        added.expectExit(0)
        let sync = try sandbox.sync.run(["--journal", sandbox.journal, "--now", "--to", "ot"])
        sync.expectExit(0)
        let bodies = server.requests.map(\.bodyText)
        try #require(bodies.count == 5, "\(bodies)")
        #expect(bodies.prefix(3).allSatisfy { !$0.contains("\"alt\"") }, "\(bodies)")
        #expect(bodies.suffix(2).allSatisfy { $0.contains("\"alt\":100") }, "a known altitude is sent: \(bodies)")
    }
}
