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
        let deadline = ContinuousClock.now + .seconds(4)
        while live.recordCount() < 9 && ContinuousClock.now < deadline { logSleep(0.05) }
        #expect(live.recordCount() >= 9, "committed within about half a second")
        fifo.close()
        #expect(child.wait(timeout: .seconds(30)).succeeded)

        // What is not an interval is named, with the syntax; exit 64, nothing logged.
        for (flag, value) in [("--min-time", "5x"), ("--min-time", "2.5s"), ("--min-time", "-1"), ("--commit-interval", "fast"), ("--commit-interval", "2h")] {
            let result = try sandbox.log(["\(flag)=\(value)", drive.path])
            #expect(result.exitStatus == 64, "\(flag) \(value): \(result)")
            #expect(result.stderrLines.first?.contains("\(flag) '\(value)'") == true, "\(flag) \(value): \(result.stderrText)")
        }
        #expect(sandbox.recordCount() == 0)
        let bad = try LogSandbox()
        try bad.writeSettings(#"{"commit_interval": "soon"}"#)
        let refused = try bad.log([drive.path])
        #expect(refused.exitStatus == 78 && refused.stderrLines.count == 1, "\(refused)")
        #expect(refused.stderrText.contains("commit_interval") && refused.stderrText.contains("5s"), "\(refused.stderrText)")
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
        #expect(result.exitStatus == 64, "\(result)")
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

    @Test func invalidSettingsFileExits78NamingFileAndLine() throws {
        let sandbox = try LogSandbox()
        try sandbox.writeSettings("{\n  \"main\": {\n    \"min_time\": \"7s\"\n  }\n}\n")
        let result = try sandbox.log([LogSamples.bundled])
        #expect(result.exitStatus == 78, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1, "\(result.stderrText)")
        let line = result.stderrLines.first ?? ""
        #expect(line.hasPrefix("overland-log: "))
        #expect(line.contains(sandbox.settingsPath), "\(line)")
        #expect(line.contains("line 3"), "\(line)")
        #expect(line.contains("min_time"), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.journal + "/segments"), "nothing logged, no journal made")

        let syntax = try LogSandbox()
        try syntax.writeSettings("{\n  \"tracking_enabled\": true,\n  \"device_id\": \"van\"\n  \"integer_speed\": true\n}\n")
        let broken = try syntax.log([LogSamples.bundled])
        #expect(broken.exitStatus == 78, "\(broken)")
        #expect(broken.stderrLines.count == 1 && broken.stderrText.contains(syntax.settingsPath) && broken.stderrText.contains("line 4"),
                "\(broken.stderrText)")
    }
}
