import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// gpsd JSON input (`gpspipe -w`), chosen or detected, and how fixes get their dates.
@Suite("overland-log: input formats and dates")
struct LogInputFormatTests {
    static let quectelJSON = LogSamples.gpsdFixtures + "/gpsd-quectel-l76k.jsonl"

    // {"class":"TPV","device":"/dev/pts/1","mode":2,"time":"2026-08-05T05:52:34.000Z","ept":0.005,
    //  "lat":47.661981667,"lon":-122.326393667,"track":286.3500,"magtrack":301.7406,"magvar":15.4,"speed":0.000}
    // A 2D report without eph: altitude 0, every accuracy unknown.
    static let firstQuectelPoint = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.3263937,47.6619817]},"properties":{"timestamp":"2026-08-05T05:52:34Z","altitude":0,"speed":0,"course":286,"horizontal_accuracy":-1,"vertical_accuracy":-1,"speed_accuracy":-1,"course_accuracy":-1,"motion":["stationary"],"battery_state":"unplugged","battery_level":0.8,"wifi":"","device_id":"json"}}"#

    static func sandbox() throws -> LogSandbox {
        let sandbox = try LogSandbox()
        try sandbox.writeSettings(#"{"battery_path": "\#(try sandbox.fakeBattery())"}"#)
        return sandbox
    }

    /// The first 40 lines of `gpspipe -w` on the quectel capture: VERSION, DEVICES, WATCH,
    /// DEVICE, SKY and 11 TPV reports at 5 Hz, 05:52:34.000 to 05:52:36.000.
    @Test(arguments: [["--input", "gpsd"], ["--input", "auto"], []])
    func gpsdJSONFile(options: [String]) throws {
        let sandbox = try Self.sandbox()
        let result = try sandbox.log(options + ["--device-id", "json", "--stats", Self.quectelJSON])
        #expect(result.succeeded, "\(result)")
        #expect(result.stderrLines.first == "overland-log: 40 lines, 11 TPV reports, 29 ignored reports, 11 fixes")
        let records = try sandbox.records()
        #expect(records.map(\.timestampText) == ["2026-08-05T05:52:34Z", "2026-08-05T05:52:35Z", "2026-08-05T05:52:36Z"])
        #expect(records.first.map(LogGoldenTests.golden) == Self.firstQuectelPoint)
        for record in records { LogRecordCheck.check(record) }
        // The same positions as gpsd's truth for the NMEA capture.
        let truth = try LogSamples.truth("quectel-l76k-nmea")
        for record in records {
            let fix = try #require(truth.first { $0.wholeSecond == record.timestamp })
            #expect(logDistance(latitude1: fix.latitude, longitude1: fix.longitude, latitude2: record.latitude,
                                longitude2: record.longitude) <= 0.1)
        }
    }

    @Test func gpsdJSONOnStandardInputIsDetected() throws {
        let sandbox = try Self.sandbox()
        let result = try sandbox.log(["--device-id", "json"], stdin: try LogSamples.bytes(Self.quectelJSON))
        #expect(result.succeeded, "\(result)")
        let records = try sandbox.records()
        #expect(records.count == 3)
        #expect(records.first.map(LogGoldenTests.golden) == Self.firstQuectelPoint)
    }

    @Test func theChosenFormatIsHonoured() throws {
        let sandbox = try Self.sandbox()
        // JSON read as NMEA, and NMEA read as JSON: nothing recognisable (exit 65, the
        // statistics, then one line naming the file), no crash.
        let json = try sandbox.log(["--input", "nmea", "--stats", Self.quectelJSON])
        json.expectExit(65)
        let nmea = try sandbox.log(["--input", "gpsd", "--stats", LogSamples.bundled])
        nmea.expectExit(65)
        #expect(json.stderrLines.dropLast().last?.hasPrefix("overland-log: 0 fixes, 0 points logged") == true, "\(json.stderrText)")
        #expect(nmea.stderrLines.dropLast().last?.hasPrefix("overland-log: 0 fixes, 0 points logged") == true, "\(nmea.stderrText)")
        #expect(json.stderrLines.last?.contains("not gpsd JSON, u-blox UBX or NMEA 0183") == true, "\(json.stderrText)")
        #expect(try sandbox.records().isEmpty)
        // And --input with an unknown value is a usage error.
        let bad = try sandbox.log(["--input", "sirf", Self.quectelJSON])
        bad.expectExit(64)
    }

    // MARK: Dates

    /// The drive's first ten GGA sentences alone: times of day, no date anywhere.
    static func ggaOnly() throws -> String {
        LogSamples.driveEpochs().prefix(10).map { $0.components(separatedBy: "\r\n")[0] + "\r\n" }.joined()
    }

    @Test func timesOfDayAloneAreNotLoggedWithoutADate() throws {
        let sandbox = try Self.sandbox()
        let file = try sandbox.file("gga.nmea", text: try Self.ggaOnly())
        let result = try sandbox.log(["--stats", file])
        // Nothing logged is the user's to fix (issue 21): exit 65, the date named.
        result.expectExit(65)
        #expect(result.stderrLines.first == "overland-log: 10 lines, 10 sentences (10 accepted), 10 undated fixes, 0 fixes")
        #expect(result.stderrLines.last?.contains("10 fixes have no date") == true && result.stderrText.contains("--date"), "\(result.stderrText)")
        #expect(try sandbox.records().isEmpty, "never a guessed date")
    }

    @Test func dateOptionDatesTimesOfDay() throws {
        let sandbox = try Self.sandbox()
        let file = try sandbox.file("gga.nmea", text: try Self.ggaOnly())
        let result = try sandbox.log(["--stats", "--date", "2020-02-14", file])
        #expect(result.succeeded, "\(result)")
        #expect(result.stderrLines.first == "overland-log: 10 lines, 10 sentences (10 accepted), 10 fixes")
        let records = try sandbox.records()
        #expect(records.map(\.timestamp) == LogSamples.driveEpochs().prefix(10).map(LogSamples.driveEpochTime))
        for record in records {
            LogRecordCheck.check(record)
            #expect(record.speed == -1 && record.properties["motion"] as? [String] == [], "GGA has no speed")
        }
    }

    @Test func dateOptionAdvancesAtMidnight() throws {
        let sandbox = try Self.sandbox()
        let text = ["235958", "235959", "000000", "000001", "000002"].map {
            nmea("GPGGA,\($0).000,4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,")
        }.joined()
        let file = try sandbox.file("midnight.nmea", text: text)
        #expect(try sandbox.log(["--date", "2020-12-31", file]).succeeded)
        #expect(try sandbox.records().map(\.timestampText) == [
            "2020-12-31T23:59:58Z", "2020-12-31T23:59:59Z", "2021-01-01T00:00:00Z", "2021-01-01T00:00:01Z", "2021-01-01T00:00:02Z",
        ])
    }

    @Test func streamDatesWinOverTheDateOption() throws {
        let sandbox = try Self.sandbox()
        let file = try sandbox.file("drive10.nmea", text: LogSamples.driveEpochs().prefix(10).joined())
        #expect(try sandbox.log(["--date", "2001-01-01", file]).succeeded)
        #expect(try sandbox.records().map(\.timestamp) == LogSamples.driveEpochs().prefix(10).map(LogSamples.driveEpochTime))
    }

    /// Live input with times of day only: dated by the system clock when within 10 minutes
    /// of it, skipped otherwise.
    @Test func liveTimesOfDayAreDatedByTheClockWhenNear() throws {
        let sandbox = try Self.sandbox()
        let now = Int64(Date().timeIntervalSince1970)
        let near = (1...3).reversed().map { now - Int64($0) }
        let text = near.map { seconds -> String in
            let day = seconds % 86_400
            let time = String(format: "%02d%02d%02d.000", day / 3600, day / 60 % 60, day % 60)
            return nmea("GPGGA,\(time),4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,")
        }.joined()
        let result = try sandbox.log(["--stats"], stdin: Array(text.utf8))
        #expect(result.succeeded, "\(result)")
        #expect(try sandbox.records().map(\.timestamp) == near)

        // The drive's times of day (February 2020) are nowhere near the clock: undated.
        let old = try Self.sandbox()
        let stale = try old.log(["--stats"], stdin: Array(try Self.ggaOnly().utf8))
        stale.expectExit(65)
        #expect(stale.stderrText.contains("10 undated fixes"), "\(stale.stderrText)")
        #expect(try old.records().isEmpty)
    }
}
