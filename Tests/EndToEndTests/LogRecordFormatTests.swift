import TestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What receivers check (protocol section 1 and its strictness notes), on every record the
/// logger writes: every always-present key, each in its JSON type, integers written as
/// integers (Wayfinder drops 34.2 where it wants an integer).
enum LogRecordCheck {
    static let motionWords: Set<String> = ["driving", "walking", "running", "cycling", "stationary"]
    static let batteryStates: Set<String> = ["unknown", "charging", "full", "unplugged"]

    static func check(_ record: LogRecord, sourceLocation: SourceLocation = #_sourceLocation) {
        func expect(_ condition: Bool, _ what: String) {
            if !condition { Issue.record("record \(record.sequence): \(what): \(record.line)", sourceLocation: sourceLocation) }
        }
        expect(record.object["type"] as? String == "Feature", "type Feature")
        let geometry = record.object["geometry"] as? [String: Any]
        expect(geometry?["type"] as? String == "Point", "a Point geometry")
        expect(record.coordinates.count == 2, "two coordinates")
        expect((-180...180).contains(record.longitude) && (-90...90).contains(record.latitude), "longitude first, in range")
        expect(!(record.longitude == 0 && record.latitude == 0), "not (0, 0), which Compass drops")
        let coordinates = (record.raw("coordinates") ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "[]")).split(separator: ",")
        expect(coordinates.allSatisfy { logHasAtMostDecimals(String($0), 7) }, "coordinates with 7 decimals at most")

        let properties = record.properties
        for key in logAlwaysPresentKeys { expect(properties[key] != nil, "\(key) present") }
        expect(LogTime.parse(record.timestampText) != nil, "timestamp is YYYY-MM-DDTHH:MM:SSZ")
        for key in ["altitude", "course", "horizontal_accuracy", "vertical_accuracy"] {
            expect(logIsIntegerText(record.raw(key)), "\(key) an integer")
        }
        for key in ["speed", "speed_accuracy", "course_accuracy"] {
            expect(logHasAtMostDecimals(record.raw(key), 2), "\(key) with 2 decimals at most")
        }
        for key in ["speed", "course", "horizontal_accuracy", "vertical_accuracy", "speed_accuracy", "course_accuracy"] {
            let value = (properties[key] as? NSNumber)?.doubleValue ?? -2
            expect(value == -1 || value >= 0, "\(key) is -1 or a measure")
        }
        let course = (properties["course"] as? NSNumber)?.intValue ?? -2
        expect((-1..<360).contains(course), "course below 360")
        expect(logHasAtMostDecimals(record.raw("battery_level"), 2), "battery_level with 2 decimals at most")
        let level = (properties["battery_level"] as? NSNumber)?.doubleValue ?? -1
        expect((0...1).contains(level), "battery_level in 0...1")
        expect((properties["battery_state"] as? String).map(batteryStates.contains) == true, "a battery state")
        let motion = properties["motion"] as? [String]
        expect(motion != nil && motion!.allSatisfy(motionWords.contains) && motion!.count <= 1, "motion words")
        expect(properties["wifi"] is String, "wifi a string")
        let device = properties["device_id"] as? String
        expect(device != nil && device!.count <= 50, "device_id a string of 50 characters at most")
        expect(properties["unique_id"] == nil || properties["unique_id"] is String, "unique_id a string")
        expect(properties["trip_id"] == nil, "no trip running")
        expect(!record.line.contains("\n") && record.line.utf8.count <= 65_536, "one line")
    }
}

@Suite("overland-log: records and journal files")
struct LogRecordFormatTests {
    @Test func everyRecordHasEveryKeyInItsType() throws {
        let sandbox = try LogSandbox()
        let gpsd = LogSamples.gpsdFixtures + "/gpsd-quectel-l76k.jsonl"
        let inputs = [LogSamples.bundled, try sandbox.driveFile(), gpsd] + ["neo-m8n", "rst39", "firefly-II", "ublox-8"].map(LogSamples.capture)
        let result = try sandbox.log(["--device-id", "format"] + inputs)
        #expect(result.succeeded, "\(result)")
        let records = try sandbox.records()
        #expect(records.count > 5597 + 31 + 3)
        for record in records { LogRecordCheck.check(record) }
    }

    /// `integer_speed` applies when sending: the journal keeps what was logged.
    @Test func integerSpeedKeepsFullPrecisionInTheJournal() throws {
        let sandbox = try LogSandbox()
        try sandbox.writeSettings(#"{"integer_speed": true}"#)
        let gpsd = LogSamples.gpsdFixtures + "/gpsd-quectel-l76k.jsonl"
        #expect(try sandbox.log([LogSamples.capture("neo-m8n"), gpsd]).succeeded)
        let records = try sandbox.records()
        #expect(records.count == 23 + 3)
        for record in records { LogRecordCheck.check(record) }
        // The gpsd reports carry eps (speed error): 110.47 m/s.
        #expect(records.last?.raw("speed_accuracy") == "110.47")
        #expect(records.first?.raw("speed") == "0.06", "0.117 kn = 0.06 m/s")
    }

    @Test func segmentsAreGzipAfterACleanExit() throws {
        let sandbox = try LogSandbox()
        #expect(try sandbox.log([LogSamples.bundled]).succeeded)
        // Live input: a pipe, committed every point.
        let epochs = LogSamples.driveEpochs()
        #expect(try sandbox.log(["--commit-interval", "0"], stdin: Array(epochs[0..<50].joined().utf8)).succeeded)

        let segments = try sandbox.segments()
        #expect(!segments.isEmpty)
        let test = try ToolRunner(executable: "/bin/sh").run(["-c", "gzip -t \"$@\"", "gzip"] + segments)
        #expect(test.succeeded, "gzip -t: \(test)")
        let zcat = try ToolRunner(executable: "/bin/sh").run(["-c", "zcat \"$@\"", "zcat"] + segments)
        #expect(zcat.succeeded, "\(zcat)")
        #expect(zcat.stdoutLines.count == 31 + 50)
        #expect(zcat.stdoutLines == (try sandbox.records()).map(\.line), "zcat prints exactly the records")
        for line in zcat.stdoutLines {
            #expect((try? JSONScan.value(line.utf8)) is [String: Any])
        }
        let verify = try sandbox.overlandJournal("journal", "verify")
        #expect(verify.succeeded, "\(verify)")
    }

    @Test func journalFilesArePrivate() throws {
        let sandbox = try LogSandbox()
        #expect(try sandbox.log([LogSamples.bundled]).succeeded)
        #expect(try sandbox.log([], stdin: Array(LogSamples.driveEpochs()[0..<5].joined().utf8)).succeeded)
        var checked = 0
        let enumerator = FileManager.default.enumerator(atPath: sandbox.journal)
        var paths = [sandbox.journal]
        while let relative = enumerator?.nextObject() as? String { paths.append(sandbox.journal + "/" + relative) }
        for path in paths {
            var info = stat()
            #expect(lstat(path, &info) == 0)
            let type = info.st_mode & S_IFMT
            let mode = info.st_mode & 0o7777
            if type == S_IFDIR {
                #expect(mode == 0o700, "\(path) is a directory of mode \(String(mode, radix: 8))")
            } else {
                #expect(type == S_IFREG, "\(path) is a regular file")
                #expect(mode == 0o600, "\(path) is a file of mode \(String(mode, radix: 8))")
            }
            checked += 1
        }
        #expect(checked >= 5, "journal, manifest, lock, segments/, a segment: \(paths)")
    }
}
