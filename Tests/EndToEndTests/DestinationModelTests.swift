import TestSupport
import Foundation
import Testing

/// One model of a destination (issue 35): what `overland-sync` refuses of a destination's
/// settings, `overland destination add/set` and `overland config set` refuse first, with
/// the same line; `overland destination audit` and `overland status` say it too. Each
/// command's help names its status: 64 for a value typed on the command line, 78 for
/// settings the sync or the audit cannot use.
@Suite struct DestinationModelTests {
    static let notLatest = "verify compares every point sent: it needs logging_mode all, not latest"
    static let twoSlashes = "device id 'a/b/d' has more than one '/'"

    /// A sandbox with 30 points logged and `settings` as the settings file.
    static func prepare(_ settings: String) throws -> ReliabilitySandbox {
        let sandbox = try ReliabilitySandbox(prefix: "overland-model")
        try sandbox.logEpochs(0..<30)
        try sandbox.writeSettings(settings)
        return sandbox
    }

    /// `runner` without `OVERLAND_DEVICE_ID` (the sandbox sets it): the settings' device id counts.
    static func withoutDeviceID(_ runner: ToolRunner) -> ToolRunner {
        var runner = runner
        runner.environment["OVERLAND_DEVICE_ID"] = .some(nil)
        return runner
    }

    /// `destinations.json` holding `body` as its destinations object.
    static func writeDestinations(_ sandbox: ReliabilitySandbox, _ body: String) throws {
        let path = sandbox.directory.appending("config/overland/destinations.json")
        try #"{"version": 1, "destinations": {\#(body)}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
    }

    @Test func verifyWithLoggingModeLatestIsRefusedAtSetTimeInTheSyncsWords() throws {
        let sandbox = try Self.prepare(#"{"endpoint": "http://127.0.0.1:9/overland"}"#)
        let added = try sandbox.overland.run(["destination", "add", "comp", "http://127.0.0.1:9/api/input", "--profile", "compass",
                                              "--journal", sandbox.journal])
        try #require(added.succeeded, "\(added)")
        try #require(try sandbox.overland.run(["destination", "set", "comp", "logging_mode", "latest"]).succeeded)

        let verify = try sandbox.overland.run(["destination", "set", "comp", "verify", "true"])
        verify.expectExit(64)
        #expect(verify.stderrText == "overland destination: \(Self.notLatest)\n", "\(verify)")

        // The other order: verify first, then the mode that cannot be read back.
        try #require(try sandbox.overland.run(["destination", "set", "comp", "logging_mode", "all"]).succeeded)
        try #require(try sandbox.overland.run(["destination", "set", "comp", "verify", "true"]).succeeded)
        let latest = try sandbox.overland.run(["destination", "set", "comp", "logging_mode", "latest"])
        latest.expectExit(64)
        #expect(latest.stderrText == "overland destination: \(Self.notLatest)\n", "\(latest)")
    }

    @Test func verifyWithLoggingModeLatestWrittenByHandIsRefusedBySyncAuditAndStatus() throws {
        let sandbox = try Self.prepare("{}")
        try Self.writeDestinations(sandbox, #""comp": {"url": "http://127.0.0.1:9/api/input", "profile": "compass", "logging_mode": "latest", "verify": true, "verify_token": "read"}"#)

        let sync = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        sync.expectExit(78)
        #expect(sync.stderrLines.count == 1, "\(sync)")
        #expect(sync.stderrText.hasPrefix("overland-sync: comp: ") && sync.stderrText.hasSuffix(": \(Self.notLatest)\n"), "\(sync)")

        let audit = try sandbox.overland.run(["destination", "audit", "comp", "--journal", sandbox.journal])
        audit.expectExit(78)
        #expect(audit.stderrText == "overland destination: comp: \(Self.notLatest)\n", "\(audit)")
        #expect(audit.stdoutText.isEmpty, "no table for a destination that cannot be read back: \(audit)")

        let status = try sandbox.overland.run(["status", "--journal", sandbox.journal])
        status.expectExit(0)
        #expect(status.stdoutText.contains("overland-sync sends nothing to it: \(Self.notLatest)"), "\(status.stdoutText)")
    }

    static let recorderDefault = #"{"endpoint": "http://127.0.0.1:9/pub", "protocol": "owntracks", "profile": "owntracks-recorder""#

    @Test func aDeviceIDOwnTracksCannotFileIsRefusedByDestinationSetAndConfigSet() throws {
        let sandbox = try Self.prepare(Self.recorderDefault + "}")
        let set = try sandbox.overland.run(["destination", "set", "default", "device_id", "a/b/d"])
        set.expectExit(64)
        #expect(set.stderrText.hasPrefix("overland destination: \(Self.twoSlashes)"), "\(set)")

        let config = try sandbox.overland.run(["config", "set", "device_id", "alice/van/3"])
        config.expectExit(64)
        #expect(config.stderrText.hasPrefix("overland config: device id 'alice/van/3' has more than one '/'"), "\(config)")
        #expect(!(try String(contentsOfFile: sandbox.settingsPath, encoding: .utf8)).contains("alice"), "nothing saved")

        // A device id OwnTracks can file is taken.
        #expect(try sandbox.overland.run(["config", "set", "device_id", "alice/van"]).succeeded)
    }

    @Test func aDeviceIDWrittenByHandIsRefusedBySyncAuditAndStatusInTheSameWords() throws {
        let sandbox = try Self.prepare(Self.recorderDefault + #", "device_id": "a/b/d", "verify": true}"#)
        let sync = try Self.withoutDeviceID(sandbox.sync).run(["--journal", sandbox.journal, "--now"])
        sync.expectExit(78)
        #expect(sync.stderrText.hasPrefix("overland-sync: \(Self.twoSlashes)"), "\(sync)")

        let audit = try Self.withoutDeviceID(sandbox.overland).run(["destination", "audit", "default", "--journal", sandbox.journal])
        audit.expectExit(78)
        #expect(audit.stderrText.hasPrefix("overland destination: default: \(Self.twoSlashes)"), "\(audit)")

        let status = try Self.withoutDeviceID(sandbox.overland).run(["status", "--journal", sandbox.journal, "--json"])
        status.expectExit(0)
        #expect(status.stdoutText.contains(#""problem":"device id 'a/b/d' has more than one '/'"#), "\(status.stdoutText)")
    }

    @Test func configSetRefusesADeviceIDANamedOwnTracksDestinationWouldInherit() throws {
        let sandbox = try Self.prepare(#"{"endpoint": "http://127.0.0.1:9/overland"}"#)
        let added = try sandbox.overland.run(["destination", "add", "rec2", "http://127.0.0.1:9/pub", "--protocol", "owntracks",
                                              "--journal", sandbox.journal])
        try #require(added.succeeded, "\(added)")
        let config = try sandbox.overland.run(["config", "set", "device_id", "a/b/d"])
        config.expectExit(64)
        #expect(config.stderrText.hasPrefix("overland config: destination 'rec2': \(Self.twoSlashes)"), "\(config)")

        // Its own device id frees it from the settings': the change is taken.
        try #require(try sandbox.overland.run(["destination", "set", "rec2", "device_id", "alice/van"]).succeeded)
        #expect(try sandbox.overland.run(["config", "set", "device_id", "a/b/d"]).succeeded)
        // And a destination added while the settings' device id has two '/' is refused.
        let second = try Self.withoutDeviceID(sandbox.overland).run(["destination", "add", "rec3", "http://127.0.0.1:9/pub", "--protocol", "owntracks",
                                               "--journal", sandbox.journal])
        second.expectExit(64)
        #expect(second.stderrText.hasPrefix("overland destination: \(Self.twoSlashes)"), "\(second)")
    }

    @Test func aValueUnknownToThisVersionIsOneLineNeverADefault() throws {
        let sandbox = try Self.prepare("{}")
        try Self.writeDestinations(sandbox, #""home": {"url": "mqtt://127.0.0.1:9", "protocol": "mqtt", "commands": "everything"}"#)
        let sync = try sandbox.sync.run(["--journal", sandbox.journal, "--now"])
        sync.expectExit(78)
        #expect(sync.stderrLines.count == 1, "\(sync)")
        #expect(sync.stderrText.contains("everything") && sync.stderrText.contains("none, report, all"), "\(sync)")
    }
}
