import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `overland config`, run as a user runs it: the built binary, a private settings directory.
@Suite struct ConfigCommandTests {
    static let longToken = "tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0ZZ42"

    // MARK: Reading

    @Test func listWithoutAFileShowsDefaultsAndCreatesNothing() throws {
        let sandbox = try ConfigSandbox()
        for arguments in [["config", "list"], ["config"]] {
            let result = try sandbox.run(arguments)
            #expect(result.succeeded, "\(result)")
            #expect(result.stderrText == "")
            let lines = result.stdoutLines
            #expect(lines.count == 42)
            #expect(lines.allSatisfy { $0.hasSuffix("(default)") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("batch_size ") && $0.contains(" 200 ") })
            #expect(lines.contains { $0.hasPrefix("trip.logging_mode ") && $0.contains(" all ") })
            #expect(lines.contains { $0.hasPrefix("endpoint ") && $0.contains("(none)") })
        }
        #expect(sandbox.fileBytes() == nil)
        #expect(!FileManager.default.fileExists(atPath: sandbox.directory.appending("config")), "not even the directory")
    }

    @Test func listMarksOnlyTheDefaults() throws {
        let sandbox = try ConfigSandbox()
        try sandbox.configSucceeds("set", "batch_size", "500")
        let lines = try sandbox.configSucceeds("list")
        let batch = try #require(lines.first { $0.hasPrefix("batch_size ") })
        #expect(batch.split(separator: " ") == ["batch_size", "500"])
        #expect(lines.filter { !$0.hasSuffix("(default)") }.count == 1)
    }

    @Test func listJSONIsForScripts() throws {
        let sandbox = try ConfigSandbox()
        try sandbox.configSucceeds("set", "trip.batch_size", "1000")
        let result = try sandbox.config("list", "--json")
        #expect(result.succeeded, "\(result)")
        let object = try #require(try JSONScan.value(result.stdout) as? [String: [String: Any]])
        #expect(object.count == 42)
        #expect(object["trip.batch_size"]?["value"] as? String == "1000")
        #expect(object["trip.batch_size"]?["default"] as? Bool == false)
        #expect(object["batch_size"]?["value"] as? String == "200")
        #expect(object["batch_size"]?["default"] as? Bool == true)
        #expect(object["endpoint"]?["value"] is NSNull)
    }

    @Test func keysNamesEveryKeyWithItsValuesAndDefault() throws {
        let sandbox = try ConfigSandbox()
        let lines = try sandbox.configSucceeds("keys")
        #expect(lines.count == 2 * 45)
        let index = try #require(lines.firstIndex { $0.hasPrefix("trip.logging_mode ") })
        try #require(index + 1 < lines.count)
        #expect(lines[index + 1].trimmingCharacters(in: .whitespaces) == "all, latest, owntracks; default: all")
        let batch = try #require(lines.firstIndex { $0.hasPrefix("batch_size ") })
        try #require(batch + 1 < lines.count)
        #expect(lines[batch + 1].hasSuffix("50, 100, 200, 500, 1000; default: 200"))
        #expect(lines.contains { $0.hasPrefix("wifi_zone.ssid ") })
        #expect(sandbox.fileBytes() == nil)
    }

    @Test func pathNamesTheFileInUse() throws {
        let sandbox = try ConfigSandbox()
        #expect(try sandbox.configSucceeds("path") == [sandbox.settingsPath])
        #expect(try sandbox.configSucceeds("path", "--config", "/srv/o.json") == ["/srv/o.json"])
        let variable = try sandbox.config("path", environment: ["OVERLAND_CONFIG": "/srv/env.json"])
        #expect(variable.stdoutLines == ["/srv/env.json"])
        let home = try sandbox.config("path", environment: ["XDG_CONFIG_HOME": nil])
        #expect(home.stdoutLines == [sandbox.directory.appending("home/.config/overland/settings.json")])
    }

    // MARK: Changing

    struct RoundTrip: Sendable, CustomTestStringConvertible {
        var key: String
        var typed: String
        var shown: String
        var defaultValue: String
        var testDescription: String { "\(key) \(typed)" }
    }

    static let roundTrips = [
        RoundTrip(key: "batch_size", typed: "500", shown: "500", defaultValue: "200"),
        RoundTrip(key: "trip.batch_size", typed: "50", shown: "50", defaultValue: "200"),
        RoundTrip(key: "logging_mode", typed: "owntracks", shown: "owntracks", defaultValue: "all"),
        RoundTrip(key: "trip.logging_mode", typed: "LATEST", shown: "latest", defaultValue: "all"),
        RoundTrip(key: "min_distance", typed: "50m", shown: "50m", defaultValue: "off"),
        RoundTrip(key: "send_interval", typed: "off", shown: "off", defaultValue: "5m"),
        RoundTrip(key: "include_unique_id", typed: "yes", shown: "true", defaultValue: "false"),
        RoundTrip(key: "trip.background_indicator", typed: "off", shown: "false", defaultValue: "true"),
        RoundTrip(key: "device_id", typed: "alice/van", shown: "alice/van", defaultValue: ""),
        RoundTrip(key: "endpoint", typed: "https://gps.example/in?ts=%TS&lat=%LAT",
                  shown: "https://gps.example/in?ts=%TS&lat=%LAT", defaultValue: ""),
        RoundTrip(key: "wifi_zone", typed: "home,52.0907,5.1214", shown: "home,52.0907,5.1214", defaultValue: ""),
    ]

    @Test(arguments: roundTrips)
    func setGetUnset(_ trip: RoundTrip) throws {
        let sandbox = try ConfigSandbox()
        let none = { (value: String) in value.isEmpty ? "(none)" : value }
        #expect(try sandbox.configSucceeds("set", trip.key, trip.typed) == ["\(trip.key): \(none(trip.defaultValue)) -> \(trip.shown)"])
        #expect(try sandbox.configSucceeds("get", trip.key) == [trip.shown])
        #expect(try sandbox.configSucceeds("set", trip.key, trip.typed) == ["\(trip.key): \(trip.shown) (unchanged)"])
        let line = try #require(try sandbox.configSucceeds("list").first { $0.hasPrefix(trip.key + " ") })
        #expect(!line.hasSuffix("(default)"))

        #expect(try sandbox.configSucceeds("unset", trip.key) == ["\(trip.key): \(trip.shown) -> \(none(trip.defaultValue))"])
        #expect(try sandbox.configSucceeds("get", trip.key) == [trip.defaultValue])
        #expect(try sandbox.configSucceeds("unset", trip.key) == ["\(trip.key): \(none(trip.defaultValue)) (already the default)"])
    }

    @Test func mainPrefixNamesTheMainProfile() throws {
        let sandbox = try ConfigSandbox()
        #expect(try sandbox.configSucceeds("set", "main.min_time", "5m") == ["min_time: 1s -> 5m"])
        #expect(try sandbox.configSucceeds("get", "min_time") == ["5m"])
        #expect(try sandbox.configSucceeds("get", "trip.min_time") == ["1s"])
    }

    @Test func savedFileIsPrivateAndReadable() throws {
        let sandbox = try ConfigSandbox()
        try sandbox.configSucceeds("set", "batch_size", "1000")
        #expect(sandbox.mode(sandbox.settingsPath) == 0o600)
        #expect(sandbox.mode(sandbox.directory.appending("config/overland")) == 0o700)
        #expect(sandbox.mode(sandbox.directory.appending("config")) == 0o700)
        let object = try #require(try JSONScan.object(sandbox.fileBytes() ?? []))
        #expect((object["main"] as? [String: Any])?["batch_size"] as? Int == 1000)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.appending("config/overland"))
        #expect(leftovers.sorted() == ["settings.json", "settings.json.lock"], "no temporary file left behind")
        #expect(sandbox.mode(sandbox.settingsPath + ".lock") == 0o600)
    }

    @Test func configFlagAndVariableChooseTheFile() throws {
        let sandbox = try ConfigSandbox()
        let flagged = sandbox.directory.appending("elsewhere/flag.json")
        let variable = sandbox.directory.appending("variable.json")
        try sandbox.configSucceeds("set", "--config", flagged, "batch_size", "500")
        #expect(sandbox.fileBytes(flagged) != nil)
        #expect(sandbox.mode(flagged) == 0o600)
        #expect(sandbox.fileBytes() == nil, "the default file is not touched")

        let viaVariable = try sandbox.config("set", "logging_mode", "latest", environment: ["OVERLAND_CONFIG": variable])
        #expect(viaVariable.succeeded, "\(viaVariable)")
        #expect(sandbox.fileBytes(variable) != nil)
        #expect(try sandbox.config("get", "logging_mode", environment: ["OVERLAND_CONFIG": variable]).stdoutLines == ["latest"])
        #expect(try sandbox.configSucceeds("get", "--config", flagged, "logging_mode") == ["all"])

        // The flag wins over the variable.
        let both = try sandbox.config("get", "--config", flagged, "batch_size", environment: ["OVERLAND_CONFIG": variable])
        #expect(both.stdoutLines == ["500"])
        #expect(sandbox.fileBytes() == nil)
    }

    @Test func environmentIsNeverCopiedIntoTheFile() throws {
        let sandbox = try ConfigSandbox()
        let environment = ["OVERLAND_URL": "https://env.example/in", "OVERLAND_TOKEN": Self.longToken]
        let result = try sandbox.config("set", "batch_size", "500", environment: environment)
        #expect(result.succeeded, "\(result)")
        let text = String(decoding: sandbox.fileBytes() ?? [], as: UTF8.self)
        #expect(!text.contains("env.example") && !text.contains(Self.longToken))
        let list = try sandbox.config("list", environment: environment)
        #expect(list.stdoutLines.contains { $0.hasPrefix("endpoint ") && $0.contains("(none)") })
        #expect(list.stderrText.contains("$OVERLAND_URL is set"))
        #expect(list.stderrText.contains("$OVERLAND_TOKEN is set"))
    }

    @Test func valueFromStandardInput() throws {
        let sandbox = try ConfigSandbox()
        let result = try sandbox.run(["config", "set", "token", "--stdin"], stdinText: Self.longToken + "\n")
        #expect(result.succeeded, "\(result)")
        #expect(try sandbox.configSucceeds("get", "token") == [Self.longToken])
        let both = try sandbox.config("set", "token", "x", "--stdin")
        #expect(both.exitStatus == 64)
        let neither = try sandbox.config("set", "token")
        #expect(neither.exitStatus == 64)
    }

    // MARK: The token

    @Test func tokenIsShownInFullOnlyByGet() throws {
        let sandbox = try ConfigSandbox()
        let set = try sandbox.config("set", "token", Self.longToken)
        #expect(set.succeeded, "\(set)")
        #expect(set.stdoutLines == ["token: (none) -> ••••"])
        let list = try sandbox.config("list")
        let json = try sandbox.config("list", "--json")
        let reset = try sandbox.config("reset", "--yes")
        for result in [set, list, json, reset] {
            #expect(!result.stdoutText.contains(Self.longToken) && !result.stderrText.contains(Self.longToken))
            #expect(!result.stdoutText.contains(String(Self.longToken.prefix(8))))
        }
        #expect(list.stdoutLines.contains { $0.hasPrefix("token ") && $0.contains("••••") })
        #expect(reset.stdoutLines.contains("token: •••• -> (none)"))

        try sandbox.configSucceeds("set", "token", "short")
        #expect(try sandbox.configSucceeds("set", "token", "short") == ["token: •••• (unchanged)"])
        #expect(try sandbox.configSucceeds("get", "token") == ["short"])
    }

    // MARK: Refusals

    @Test(arguments: [
        (["set", "batch_sise", "500"], "did you mean \"batch_size\""),
        (["get", "loging_mode"], "did you mean \"logging_mode\""),
        (["unset", "trip.tracking_mode"], "did you mean \"tracking_mode\""),
        (["set", "colour", "red"], "(allowed: endpoint, token, device_id,"),
    ])
    func unknownKeyIsAUsageError(_ arguments: [String], _ expected: String) throws {
        let sandbox = try ConfigSandbox()
        let result = try sandbox.run(["config"] + arguments)
        result.expectExit(64)
        #expect(result.stdoutText == "")
        #expect(result.stderrLines.count == 1)
        #expect(result.failureLine.hasPrefix("overland config: unknown setting \"\(arguments[1])\""), "\(result.failureLine)")
        #expect(result.failureLine.contains(expected), "\(result.failureLine)")
        #expect(sandbox.fileBytes() == nil)
    }

    @Test(arguments: [
        ("batch_size", "300", "(allowed: 50, 100, 200, 500, 1000)"),
        ("trip.logging_mode", "fast", "(allowed: all, latest, owntracks)"),
        ("min_distance", "25m", "(allowed: off, 1m, 10m, 50m, 100m, 500m)"),
        ("include_unique_id", "maybe", "(allowed: true, false)"),
        // An endpoint in the sync's own words, as `destination add` says them (issue 33).
        ("endpoint", "ftp://x", "endpoint 'ftp://x' is not an http:// or https:// url"),
        ("endpoint", "http://gps.example:70000/in", "endpoint 'http://gps.example:70000/in' has port '70000': a port is a number from 1 to 65535"),
        ("endpoint", "https://gps.example:0/in", "endpoint 'https://gps.example:0/in' has port '0': a port is a number from 1 to 65535"),
    ])
    func badValueIsAUsageErrorAndChangesNothing(_ key: String, _ value: String, _ allowed: String) throws {
        let sandbox = try ConfigSandbox()
        try sandbox.configSucceeds("set", "send_interval", "1m")
        let before = try #require(sandbox.fileBytes())
        let result = try sandbox.config("set", key, value)
        result.expectExit(64)
        let expected = key == "endpoint" ? "overland config: \(allowed)" : "overland config: invalid value \"\(value)\" for \"\(key)\" \(allowed)"
        #expect(result.failureLine == expected)
        #expect(sandbox.fileBytes() == before)
    }

    static let malformedFiles: [(text: String, line: Int, reason: String)] = [
        ("{\n  \"send_interval\": \"5m\",\n  \"main\": {\n    \"batch_size\": 200,\n", 4, "unexpected end of file"),
        ("{\n  \"send_interval\": \"5m\"\n  \"trip_mode\": \"car\"\n}\n", 3, "not valid json"),
        ("{\n  \"send_interval\": \"5m\",\n  \"main\": {\n    \"batch_size\": 300\n  }\n}\n", 4, "invalid value 300 for \"main.batch_size\""),
        ("{\n  \"sendinterval\": \"5m\"\n}\n", 2, "unknown key \"sendinterval\""),
        ("", 1, "the file is empty"),
    ]

    @Test(arguments: malformedFiles.indices)
    func malformedFileIsAConfigurationErrorAndIsLeftAlone(_ index: Int) throws {
        let (text, line, reason) = Self.malformedFiles[index]
        let sandbox = try ConfigSandbox()
        try sandbox.writeSettings(text)
        let before = sandbox.fileBytes()
        let commands: [[String]] = [
            ["config", "list"], ["config", "list", "--json"], ["config", "get", "batch_size"],
            ["config", "set", "batch_size", "500"], ["config", "unset", "batch_size"], ["config", "reset", "--yes"],
            ["config", "preset", "high-resolution"], ["setup", "overland://setup?url=https://gps.example"],
        ]
        for arguments in commands {
            let result = try sandbox.run(arguments)
            let tool = arguments[0] == "setup" ? "overland setup" : "overland config"
            #expect(result.exitStatus == 78, "\(arguments): \(result)")
            #expect(result.stdoutText == "", "\(arguments)")
            #expect(result.stderrLines.count == 1, "\(arguments): \(result.stderrText)")
            #expect(result.failureLine.hasPrefix("\(tool): '\(sandbox.settingsPath)' line \(line)"), "\(result.failureLine)")
            #expect(result.failureLine.contains(reason), "\(result.failureLine)")
            #expect(sandbox.fileBytes() == before, "\(arguments) changed the file")
        }
    }

    @Test func unreadableFileIsAnIOError() throws {
        let sandbox = try ConfigSandbox()
        let result = try sandbox.config("list", "--config", sandbox.directory.path)
        result.expectExit(74)
        #expect(result.failureLine.hasPrefix("overland config: cannot read '\(sandbox.directory.path)'"))
    }

    /// A settings file the user may not read: exit 77, one line naming it. Root reads a
    /// mode-0 file (CAP_DAC_OVERRIDE), so as root (CI) the command runs as `nobody`
    /// (`FaultTools.asNobody`: setpriv, else runuser), who may pass through the sandbox's
    /// directories but not read the file; it used to be skipped there.
    @Test func forbiddenFileIsAPermissionError() throws {
        let sandbox = try ConfigSandbox()
        try sandbox.writeSettings("{}\n")
        chmod(sandbox.settingsPath, 0)
        let result: ToolResult
        if geteuid() == 0 {
            for directory in [sandbox.directory.path, sandbox.directory.appending("config"), sandbox.directory.appending("config/overland")] {
                try #require(chmod(directory, 0o755) == 0, "chmod \(directory)")
            }
            let asNobody = try FaultTools.asNobody()
            var runner = ToolRunner(executable: asNobody[0])
            runner.environment = sandbox.runner.environment
            result = try runner.run(Array(asNobody.dropFirst()) + [sandbox.runner.executable, "config", "get", "batch_size"])
        } else {
            result = try sandbox.config("get", "batch_size")
        }
        result.expectExit(77)
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(result.failureLine.contains(sandbox.settingsPath) && result.failureLine.contains("permission denied"), "\(result)")
    }

    // MARK: Reset and presets

    @Test func resetNeedsYes() throws {
        let sandbox = try ConfigSandbox()
        try sandbox.configSucceeds("set", "batch_size", "500")
        try sandbox.configSucceeds("set", "endpoint", "https://gps.example/in")
        let before = try #require(sandbox.fileBytes())

        let refused = try sandbox.config("reset")
        refused.expectExit(64)
        #expect(refused.failureLine.hasPrefix("overland config: reset "))
        #expect(refused.failureLine.contains("--yes") && refused.failureLine.contains("endpoint"))
        #expect(sandbox.fileBytes() == before)

        #expect(try sandbox.configSucceeds("reset", "--yes") == [
            "endpoint: https://gps.example/in -> (none)", "batch_size: 500 -> 200",
        ])
        #expect(try sandbox.configSucceeds("list").allSatisfy { $0.hasSuffix("(default)") })
        #expect(try sandbox.configSucceeds("reset", "--yes") == ["nothing changed: every setting holds its default"])
    }

    @Test func presetsChangeTheMainProfile() throws {
        let sandbox = try ConfigSandbox()
        #expect(try sandbox.configSucceeds("preset", "battery-saving") == [
            "tracking_mode: standard -> significant",
            "pause_automatically: false -> true",
            "resume_with_geofence: off -> 500m",
        ])
        #expect(try sandbox.configSucceeds("preset", "battery-saving") == [
            "nothing changed: the settings already match battery-saving",
        ])
        #expect(try sandbox.configSucceeds("preset", "high-resolution") == [
            "tracking_mode: significant -> standard",
            "desired_accuracy: 100m -> best",
            "pause_automatically: true -> false",
            "resume_with_geofence: 500m -> off",
        ])
        #expect(try sandbox.configSucceeds("get", "trip.desired_accuracy") == ["100m"], "the trip profile is left alone")

        let unknown = try sandbox.config("preset", "turbo")
        #expect(unknown.exitStatus == 64)
        #expect(unknown.failureLine == "overland config: invalid value \"turbo\" for \"preset\" (allowed: high-resolution, battery-saving)")
    }

    // MARK: Help

    @Test(arguments: [
        ["config"], ["config", "list"], ["config", "get"], ["config", "set"], ["config", "unset"], ["config", "reset"],
        ["config", "preset"], ["config", "keys"], ["config", "path"], ["setup"],
    ])
    func helpReadsWell(_ command: [String]) throws {
        let sandbox = try ConfigSandbox()
        for arguments in [command + ["--help"], ["help"] + command] {
            let result = try sandbox.run(arguments)
            #expect(result.succeeded, "\(arguments): \(result)")
            #expect(result.stdoutText.hasPrefix("OVERVIEW: "))
            #expect(result.stdoutText.contains("USAGE: overland \(command.joined(separator: " "))"))
            #expect(result.stdoutText.contains("Example"), "every page shows an example")
            for line in result.stdoutLines {
                #expect(line.count <= 80, "\(arguments): line too long: \(line)")
            }
        }
        #expect(sandbox.fileBytes() == nil)
    }
}
