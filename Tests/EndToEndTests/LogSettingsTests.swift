import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The settings file and the environment as the logger reads them.
@Suite("overland-log: settings")
struct LogSettingsTests {
    static func driveFile(_ sandbox: LogSandbox, epochs: Int) throws -> (path: String, times: [Int64]) {
        let chosen = LogSamples.driveEpochs().prefix(epochs)
        return (try sandbox.file("drive-\(epochs).nmea", text: chosen.joined()), chosen.map(LogSamples.driveEpochTime))
    }

    /// The times a min-time filter keeps: the first, then each at least `interval` after the last kept.
    static func kept(_ times: [Int64], interval: Int64) -> [Int64] {
        var kept: [Int64] = []
        for time in times where kept.last.map({ time - $0 >= interval }) ?? true { kept.append(time) }
        return kept
    }

    @Test func minTimeFiveSecondsFromTheDefaultSettingsFile() throws {
        let sandbox = try LogSandbox()
        try sandbox.writeSettings("{\n  \"main\": {\n    \"min_time\": \"5s\"\n  }\n}\n")
        let drive = try Self.driveFile(sandbox, epochs: 200)
        let result = try sandbox.log(["--stats", drive.path])
        #expect(result.succeeded, "\(result)")
        let expected = Self.kept(drive.times, interval: 5)
        #expect(try sandbox.records().map(\.timestamp) == expected)
        #expect(result.stderrLines.last?.hasPrefix("overland-log: 200 fixes, \(expected.count) points logged; dropped: \(200 - expected.count) by min time") == true,
                "\(result.stderrText)")
        // --min-time overrides the file.
        let override = try LogSandbox()
        try override.writeSettings(#"{"main": {"min_time": "5s"}}"#)
        #expect(try override.log(["--min-time", "10", drive.path]).succeeded)
        #expect(try override.records().map(\.timestamp) == Self.kept(drive.times, interval: 10))
    }

    /// --min-time and min_time, --commit-interval and commit_interval read intervals alike:
    /// seconds as a number, or a number with s, m or h.
    @Test func intervalsTakeTheSameSyntaxAsFlagsAndSettings() throws {
        let sandbox = try LogSandbox()
        let drive = try Self.driveFile(sandbox, epochs: 120)
        for flag in ["10", "10s"] {
            let run = try LogSandbox()
            let result = try run.log(["--min-time", flag, drive.path])
            #expect(result.succeeded, "--min-time \(flag): \(result)")
            #expect(try run.records().map(\.timestamp) == Self.kept(drive.times, interval: 10), "--min-time \(flag)")
        }
        let minute = try LogSandbox()
        #expect(try minute.log(["--min-time", "1m", drive.path]).succeeded)
        #expect(try minute.records().map(\.timestamp) == Self.kept(drive.times, interval: 60))
        for setting in ["5", #""5""#, #""5s""#] {
            let run = try LogSandbox()
            try run.writeSettings(#"{"commit_interval": \#(setting), "main": {"min_time": \#(setting)}}"#)
            let result = try run.log([drive.path])
            #expect(result.succeeded, "\(setting): \(result)")
            #expect(try run.records().map(\.timestamp) == Self.kept(drive.times, interval: 5), "min_time \(setting)")
        }
        // Live input with commit_interval "0.5s": points are committed while the input stays open.
        let live = try LogSandbox()
        try live.writeSettings(#"{"commit_interval": "0.5s"}"#)
        let fifo = try live.fifo()
        let child = try live.startLogging([], from: fifo)
        fifo.write(LogSamples.driveEpochs()[0..<10].joined())
        #expect(waitUntil { live.recordCount() >= 9 }, "committed while the input stays open")
        fifo.close()
        #expect(child.wait().succeeded)

        // What is not an interval is named, with the syntax; exit 64, nothing logged.
        for (flag, value) in [("--min-time", "5x"), ("--min-time", "2.5s"), ("--min-time", "-1"), ("--commit-interval", "fast"), ("--commit-interval", "2h")] {
            let result = try sandbox.log(["\(flag)=\(value)", drive.path])
            #expect(result.exitStatus == 64, "\(flag) \(value): \(result)")
            #expect(result.stderrLines.first?.contains("\(flag) '\(value)'") == true, "\(flag) \(value): \(result.stderrText)")
        }
        #expect(sandbox.recordCount() == 0)
        let bad = try LogSandbox()
        try bad.writeSettings(#"{"commit_interval": "soon"}"#)
        // A bad value in the file: named once, its default used, and the points logged.
        let passedOver = try bad.log([drive.path])
        #expect(passedOver.succeeded && passedOver.stderrLines.count == 1, "\(passedOver)")
        #expect(passedOver.stderrText.contains("commit_interval") && passedOver.stderrText.contains("5s"), "\(passedOver.stderrText)")
        #expect(try bad.records().map(\.timestamp) == drive.times)
    }

    @Test func configOptionAndEnvironmentChooseTheFile() throws {
        let sandbox = try LogSandbox()
        let drive = try Self.driveFile(sandbox, epochs: 60)
        let elsewhere = sandbox.directory.appending("elsewhere.json")
        try sandbox.writeSettings(#"{"main": {"min_time": "10s"}}"#, to: elsewhere)
        #expect(try sandbox.log(["--config", elsewhere, drive.path]).succeeded)
        #expect(try sandbox.records().map(\.timestamp) == Self.kept(drive.times, interval: 10))

        let viaEnvironment = try LogSandbox()
        #expect(try viaEnvironment.log([drive.path], environment: ["OVERLAND_CONFIG": elsewhere]).succeeded)
        #expect(try viaEnvironment.records().map(\.timestamp) == Self.kept(drive.times, interval: 10))
    }

    @Test func trackingDisabledLogsNothing() throws {
        let sandbox = try LogSandbox()
        try sandbox.writeSettings(#"{"tracking_enabled": false}"#)
        let result = try sandbox.log(["--stats", LogSamples.bundled])
        #expect(result.succeeded, "\(result)")
        #expect(result.stderrLines.last == "overland-log: 151 fixes, 0 points logged; dropped: 0 by min time, 0 by min distance, 0 by accuracy, 0 out of order, 0 not significant, 151 with tracking off")
        #expect(try sandbox.records().isEmpty)
    }

    @Test func significantModeKeepsPointsFiveHundredMetresApart() throws {
        let sandbox = try LogSandbox()
        try sandbox.writeSettings(#"{"main": {"tracking_mode": "significant"}}"#)
        let drive = try Self.driveFile(sandbox, epochs: 300)
        #expect(try sandbox.log([drive.path]).succeeded)
        let records = try sandbox.records()
        #expect(records.count > 2 && records.count < 30, "\(records.count) points")
        for (previous, next) in zip(records, records.dropFirst()) {
            let moved = logDistance(latitude1: previous.latitude, longitude1: previous.longitude,
                                    latitude2: next.latitude, longitude2: next.longitude)
            #expect(moved >= 495, "\(moved) m between \(previous.timestampText) and \(next.timestampText)")
        }
    }

    /// `integer_speed` is a receiver quirk applied when sending (the wayfinder profile):
    /// the journal keeps full precision whatever it says.
    @Test func integerSpeedSettingLeavesTheJournalAsLogged() throws {
        let sandbox = try LogSandbox()
        try sandbox.writeSettings("{\n  \"integer_speed\": true\n}\n")
        #expect(try sandbox.log([try Self.driveFile(sandbox, epochs: 100).path]).succeeded)
        let records = try sandbox.records()
        #expect(records.count == 100)
        for record in records { LogRecordCheck.check(record) }
        // 2.75 kn = 1.41 m/s, kept with its decimals.
        #expect(records.first?.raw("speed") == "1.41")
    }

    @Test func deviceIDFromSettingsEnvironmentAndOption() throws {
        let sandbox = try LogSandbox()
        try sandbox.writeSettings(#"{"device_id": "from-settings"}"#)
        let file = try Self.driveFile(sandbox, epochs: 3).path
        func deviceIDs(_ arguments: [String], environment: [String: String?] = [:]) throws -> Set<String> {
            let run = try LogSandbox()
            try run.writeSettings(#"{"device_id": "from-settings"}"#)
            let result = try run.log(arguments + [file], environment: environment)
            #expect(result.succeeded, "\(result)")
            return Set(try run.records().compactMap(\.deviceID))
        }
        #expect(try deviceIDs([]) == ["from-settings"])
        #expect(try deviceIDs([], environment: ["OVERLAND_DEVICE_ID": "from-env"]) == ["from-env"])
        #expect(try deviceIDs(["--device-id", "from-flag"], environment: ["OVERLAND_DEVICE_ID": "from-env"]) == ["from-flag"])

        // None anywhere: the host name, never blank (receivers drop blank device ids).
        let bare = try LogSandbox()
        #expect(try bare.log([file]).succeeded)
        let names = Set(try bare.records().compactMap(\.deviceID))
        #expect(names.count == 1 && names.first?.isEmpty == false, "\(names)")
    }

    @Test func invalidDeviceIDIsAUsageError() throws {
        let sandbox = try LogSandbox()
        let long = String(repeating: "x", count: 51)
        let result = try sandbox.log(["--device-id", long, LogSamples.bundled])
        result.expectExit(64)
        #expect(result.stderrText.contains("--device-id"))
        let fromEnvironment = try sandbox.log([LogSamples.bundled], environment: ["OVERLAND_DEVICE_ID": long])
        #expect(fromEnvironment.exitStatus == 78, "a bad OVERLAND_DEVICE_ID is a configuration error: \(fromEnvironment)")
        #expect(fromEnvironment.stderrLines.count == 1 && fromEnvironment.stderrText.contains("OVERLAND_DEVICE_ID"))
    }

    @Test func uniqueIDIsHashedNeverTheMachineID() throws {
        let sandbox = try LogSandbox()
        try sandbox.writeSettings(#"{"include_unique_id": true}"#)
        #expect(try sandbox.log([try Self.driveFile(sandbox, epochs: 3).path]).succeeded)
        let records = try sandbox.records()
        let machineID = (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let machineID, machineID.count == 32 else {
            #expect(records.allSatisfy { $0.properties["unique_id"] == nil }, "no machine id, no unique id")
            return
        }
        let ids = Set(records.compactMap { $0.properties["unique_id"] as? String })
        #expect(ids.count == 1)
        let id = ids.first ?? ""
        #expect(id.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil, "\(id)")
        #expect(!id.replacingOccurrences(of: "-", with: "").contains(machineID.prefix(12)))
        for record in records { #expect(!record.line.contains(machineID)) }
    }

    /// A mistake in the settings file never stops the logger (a service would stop logging
    /// until someone edits the file): it says so once, naming the file, line and key, logs
    /// with the defaults for what it cannot read, and `overland status` shows the mistake
    /// first; the control commands refuse the file (78).
    @Test func invalidSettingsFileIsNamedOnceAndLoggingGoesOn() throws {
        let sandbox = try LogSandbox()
        // An unknown key (a typo of min_time) and a bad value: both passed over.
        try sandbox.writeSettings("{\n  \"main\": {\n    \"min_tme\": \"5s\",\n    \"min_time\": \"7s\"\n  },\n  \"device_id\": \"van\"\n}\n")
        let drive = try Self.driveFile(sandbox, epochs: 60)
        let result = try sandbox.log([drive.path])
        #expect(result.succeeded, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 2, "\(result.stderrText)")
        let typo = try #require(result.stderrLines.first)
        #expect(typo.hasPrefix("overland-log: warning: settings: "), "\(typo)")
        #expect(typo.contains(sandbox.settingsPath) && typo.contains("line 3") && typo.contains("\"min_tme\""), "\(typo)")
        #expect(typo.contains("logging goes on"), "\(typo)")
        let value = try #require(result.stderrLines.dropFirst().first)
        #expect(value.contains("line 4") && value.contains("min_time") && value.contains("keeps its default"), "\(value)")
        // Every fix logged (the default min_time, 1 s), with the device id that did read.
        let records = try sandbox.records()
        #expect(records.map(\.timestamp) == drive.times)
        #expect(records.allSatisfy { $0.properties["device_id"] as? String == "van" })

        // status shows the mistake first and exits 0; config refuses the file.
        let status = try sandbox.overland.run(["status", "--journal", sandbox.journal])
        #expect(status.succeeded, "\(status)")
        let first = try #require(status.stdoutLines.first)
        #expect(first.hasPrefix("settings ") && first.contains("line 3") && first.contains("\"min_tme\""), "\(status.stdoutText)")
        #expect(status.stdoutLines.filter { $0.hasPrefix("settings ") }.count == 2, "\(status.stdoutText)")
        let json = try sandbox.overland.run(["status", "--json", "--journal", sandbox.journal])
        let object = try #require((try? JSONScan.object(json.stdout)))
        #expect((object["settings_problems"] as? [String])?.count == 2, "\(json.stdoutText)")
        let config = try sandbox.overland.run(["config", "list"])
        #expect(config.exitStatus == 78 && config.stderrText.contains("line 3"), "\(config)")

        // A file that does not parse at all: every default, said once, points logged.
        let syntax = try LogSandbox()
        try syntax.writeSettings("{\n  \"tracking_enabled\": true,\n  \"device_id\": \"van\"\n  \"integer_speed\": true\n}\n")
        let broken = try syntax.log([drive.path])
        #expect(broken.succeeded, "\(broken)")
        #expect(broken.stderrLines.count == 1 && broken.stderrText.contains(syntax.settingsPath) && broken.stderrText.contains("line 4")
                && broken.stderrText.contains("every setting keeps its default"), "\(broken.stderrText)")
        #expect(try syntax.records().map(\.timestamp) == drive.times)
    }
}
