import Foundation
import Testing

/// One capture logged by the built `overland-log`, against the fixes gpsd reported for it.
struct LogGoldenCase: Sendable, CustomTestStringConvertible {
    var name: String
    var path: String
    var truth: String
    /// Points we log that gpsd's truth lacks, each for a documented reason.
    var extra: [String] = []
    /// Seconds of the truth we do not log, each for a documented reason.
    var dropped: [String] = []

    var testDescription: String { name }
}

/// Golden files: real captures through the whole logger (decoder, filters under the default
/// settings, Feature encoding, journal) compared with gpsd's own fixes. One point per whole
/// second (the first fix of the second: timestamps are the floor of the truth times),
/// positions within 0.1 m (written with 7 decimals), altitude rounded half away from zero,
/// speed within 0.05 m/s where the sentences report them.
@Suite("overland-log: golden captures")
struct LogGoldenTests {
    static let cases: [LogGoldenCase] = [
        // The demo capture bundled in the repository: a Quectel L76K at 5 Hz. The capture ends
        // inside the 05:53:04.000 cycle (GGA, GLL, GSA): we log it at end of input, gpsd did not.
        LogGoldenCase(name: "bundled quectel-l76k", path: LogSamples.bundled, truth: "quectel-l76k-nmea",
                      extra: ["2026-08-05T05:53:04Z"]),
        // A u-blox NEO-M8N. The first GLL (17:19:25) comes before any date: undated, not logged
        // (gpsd neither). The capture ends inside the 17:19:48 cycle: logged at end of input.
        LogGoldenCase(name: "neo-m8n", path: LogSamples.capture("neo-m8n"), truth: "neo-m8n",
                      extra: ["2015-03-18T17:19:48Z"]),
        LogGoldenCase(name: "bu353-glonass", path: LogSamples.capture("bu353-glonass"), truth: "bu353-glonass"),
        // 10 Hz GGA with 1 Hz RMC: the first fix of each second is kept.
        LogGoldenCase(name: "rst39", path: LogSamples.capture("rst39"), truth: "rst39"),
        // 09:53:04.802 is the first valid cycle after no fix; gpsd reported it without a time.
        // 09:53:05 to 09:53:08 have HDOP 21.1 ("$GPGGA,095305.802,...,1,04,21.1,3.0,M,...*75"):
        // 21.1 x 5 m = 105.5 m, worse than the default desired accuracy (100m): dropped by the
        // accuracy gate, as the phone app drops fixes worse than it asked for.
        LogGoldenCase(name: "haicom-305N", path: LogSamples.capture("haicom-305N"), truth: "haicom-305N",
                      extra: ["2007-04-08T09:53:04Z"],
                      dropped: ["2007-04-08T09:53:05Z", "2007-04-08T09:53:06Z", "2007-04-08T09:53:07Z", "2007-04-08T09:53:08Z"]),
    ]

    /// A sandbox whose settings fix what the machine would otherwise decide: the battery.
    static func sandbox() throws -> LogSandbox {
        let sandbox = try LogSandbox()
        try sandbox.writeSettings(#"{"battery_path": "\#(try sandbox.fakeBattery(capacity: 80, status: "Discharging"))"}"#)
        return sandbox
    }

    /// The record line with the Wi-Fi SSID blanked: it is the machine's, not the capture's.
    static func golden(_ record: LogRecord) -> String {
        record.line.replacing(/"wifi":"(?:[^"\\]|\\.)*"/, with: #""wifi":"""#)
    }

    @Test(arguments: cases)
    func captureMatchesGPSD(_ golden: LogGoldenCase) throws {
        let sandbox = try Self.sandbox()
        let result = try sandbox.log(["--device-id", "golden", golden.path])
        #expect(result.succeeded, "\(result)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "quiet without --stats: \(result)")
        let records = try sandbox.records()
        let truth = try LogSamples.truth(golden.truth)

        var firstOfSecond: [Int64: LogTruthFix] = [:]
        for fix in truth where firstOfSecond[fix.wholeSecond] == nil { firstOfSecond[fix.wholeSecond] = fix }
        let extra = Set(golden.extra.compactMap(LogTime.parse))
        let dropped = Set(golden.dropped.compactMap(LogTime.parse))
        let expectedSeconds = Set(firstOfSecond.keys).subtracting(dropped).union(extra).sorted()
        #expect(records.map(\.timestamp) == expectedSeconds, "one point per second, in order")
        #expect(records.map(\.sequence) == (0..<UInt64(records.count)).map { $0 })

        for record in records {
            let second = record.timestamp
            #expect(record.deviceID == "golden")
            #expect(record.properties["battery_state"] as? String == "unplugged")
            #expect((record.properties["battery_level"] as? NSNumber)?.doubleValue == 0.8)
            let coordinates = (record.raw("coordinates") ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                .split(separator: ",")
            #expect(coordinates.count == 2 && coordinates.allSatisfy { logHasAtMostDecimals(String($0), 7) }, "\(record.line)")
            guard let fix = firstOfSecond[second], !extra.contains(second) else { continue }
            let distance = logDistance(latitude1: fix.latitude, longitude1: fix.longitude,
                                       latitude2: record.latitude, longitude2: record.longitude)
            #expect(distance <= 0.1, "\(LogTime.format(second)): \(distance) m from gpsd's position")
            if fix.reported.contains("alt"), let altitude = fix.altitude {
                #expect(record.altitude == Int(altitude.rounded()), "\(LogTime.format(second)): altitude \(altitude)")
            } else {
                #expect(record.altitude == 0, "\(LogTime.format(second)): no altitude in the first fix of the second")
                #expect((record.properties["vertical_accuracy"] as? NSNumber)?.intValue == -1)
            }
            if fix.reported.contains("speed"), let speed = fix.speed, let logged = record.speed {
                #expect(abs(logged - speed) <= 0.05, "\(LogTime.format(second)): speed \(logged) vs \(speed)")
            }
        }
    }

    /// Whole records, checked by hand against the raw sentences.
    @Test func handCheckedRecords() throws {
        let sandbox = try Self.sandbox()
        #expect(try sandbox.log(["--device-id", "golden", LogSamples.bundled, LogSamples.capture("neo-m8n")]).succeeded)
        let records = try sandbox.records()
        try #require(records.count == 31 + 23)
        let lines = records.map(Self.golden)

        // $GNRMC,055234.000,A,4739.71890,N,12219.58362,W,0.00,286.35,050826,,,A,V*13
        // $GNZDA,055234.000,05,08,2026,00,00*46
        // The first fix of 05:52:34 is the .000 cycle: RMC, VTG, ZDA, no GGA (that comes at
        // .200), so no altitude (0, vertical accuracy -1) and no HDOP (horizontal accuracy -1).
        // 47 + 39.71890/60 = 47.6619817; -(122 + 19.58362/60) = -122.3263937; course 286.35 -> 286.
        #expect(lines[0] == #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.3263937,47.6619817]},"properties":{"timestamp":"2026-08-05T05:52:34Z","altitude":0,"speed":0,"course":286,"horizontal_accuracy":-1,"vertical_accuracy":-1,"speed_accuracy":-1,"course_accuracy":-1,"motion":["stationary"],"battery_state":"unplugged","battery_level":0.8,"wifi":"","device_id":"golden"}}"#)
        // $GNGGA,055235.000,4739.71890,N,12219.58361,W,1,14,0.9,76.5,M,-21.6,M,,*4A
        // $GNGSA,A,3,...,1.5,0.9,1.2,1*..  (and the course and speed of the RMC before it, held)
        // altitude 76.5 -> 77; HDOP 0.9 x 5 m = 4.5 -> 5; VDOP 1.2 x 5 m = 6.
        // -(122 + 19.58361/60) = -122.3263935.
        #expect(lines[1] == #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.3263935,47.6619817]},"properties":{"timestamp":"2026-08-05T05:52:35Z","altitude":77,"speed":0,"course":286,"horizontal_accuracy":5,"vertical_accuracy":6,"speed_accuracy":-1,"course_accuracy":-1,"motion":["stationary"],"battery_state":"unplugged","battery_level":0.8,"wifi":"","device_id":"golden"}}"#)
        // The second file starts a new stream. Its first GLL (17:19:25) has no date yet.
        // $GNRMC,171926.00,A,4404.14063,N,12118.85478,W,0.117,,180315,,,A*76   (0.117 kn = 0.06 m/s; no course)
        // $GNGGA,171926.00,4404.14063,N,12118.85478,W,1,12,0.91,1147.2,M,-21.3,M,,*44
        // $GNGSA,A,3,01,11,31,14,22,32,04,25,03,,,,1.56,0.91,1.27*15   (HDOP 0.91 -> 5 m, VDOP 1.27 -> 6 m)
        #expect(lines[31] == #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-121.3142463,44.0690105]},"properties":{"timestamp":"2015-03-18T17:19:26Z","altitude":1147,"speed":0.06,"course":-1,"horizontal_accuracy":5,"vertical_accuracy":6,"speed_accuracy":-1,"course_accuracy":-1,"motion":["stationary"],"battery_state":"unplugged","battery_level":0.8,"wifi":"","device_id":"golden"}}"#)
        // The capture's last lines, a cycle without GSA, logged at end of input:
        // $GNRMC,171948.00,A,4404.13902,N,12118.85371,W,0.059,,180315,,,A*72
        // $GNGGA,171948.00,4404.13902,N,12118.85371,W,1,12,1.05,1139.4,M,-21.3,M,,*48
        #expect(lines[53] == #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-121.3142285,44.0689837]},"properties":{"timestamp":"2015-03-18T17:19:48Z","altitude":1139,"speed":0.03,"course":-1,"horizontal_accuracy":5,"vertical_accuracy":-1,"speed_accuracy":-1,"course_accuracy":-1,"motion":["stationary"],"battery_state":"unplugged","battery_level":0.8,"wifi":"","device_id":"golden"}}"#)
    }

    /// The generated drive: 5,597 epochs at about 1 Hz give 5,597 points, none in the same second.
    @Test func driveGivesOnePointPerEpoch() throws {
        let sandbox = try Self.sandbox()
        let result = try sandbox.log(["--device-id", "golden", "--stats", try sandbox.driveFile()])
        #expect(result.succeeded)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines == [
            "overland-log: 22388 lines, 22388 sentences (22388 accepted), 5597 fixes",
            "overland-log: 5597 fixes, 5597 points logged; dropped: 0 by min time, 0 by min distance, 0 by accuracy, 0 out of order, 0 not significant, 0 with tracking off",
        ])
        let records = try sandbox.records()
        #expect(records.count == 5597)
        let epochs = LogSamples.driveEpochs()
        #expect(records.map(\.timestamp) == epochs.map(LogSamples.driveEpochTime), "every epoch, in order, once")
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        let lines = records.map(Self.golden)

        try #require(lines.count == 5597)
        // $GPGGA,180542.000,4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,*1F
        // $GPGSA,A,3,02,05,06,12,13,15,19,25,,,,,1.8,1.0,1.5*35
        // $GPRMC,180542.000,A,4529.4585,N,07741.7789,W,2.75,205.4,140220,,,A*42
        // $GPVTG,205.4,T,,M,2.75,N,5.09,K,A*02
        // 45 + 29.4585/60 = 45.490975; -(77 + 41.7789/60) = -77.696315; 5.09 km/h = 1.41 m/s
        // (walking); HDOP 1.0 -> 5 m; VDOP 1.5 -> 7.5 -> 8 m.
        #expect(lines[0] == #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-77.696315,45.490975]},"properties":{"timestamp":"2020-02-14T18:05:42Z","altitude":311,"speed":1.41,"course":205,"horizontal_accuracy":5,"vertical_accuracy":8,"speed_accuracy":-1,"course_accuracy":-1,"motion":["walking"],"battery_state":"unplugged","battery_level":0.8,"wifi":"","device_id":"golden"}}"#)
        // Epoch 1000 (lines 4001-4004):
        // $GPGGA,182321.000,4526.7184,N,07804.4058,W,1,08,1.0,292.0,M,,,,*1B
        // $GPRMC,182321.000,A,4526.7184,N,07804.4058,W,59.94,252.8,140220,,,A*73
        // $GPVTG,252.8,T,,M,59.94,N,111.00,K,A*30   (111.00 km/h = 30.83 m/s: driving)
        // 45 + 26.7184/60 = 45.4453067; -(78 + 4.4058/60) = -78.07343.
        #expect(LogSamples.drive.epochs[1000].text.hasPrefix("$GPGGA,182321.000,4526.7184,N,07804.4058,W,1,08,1.0,292.0,M,,,,*1B\r\n"))
        #expect(lines[1000] == #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-78.07343,45.4453067]},"properties":{"timestamp":"2020-02-14T18:23:21Z","altitude":292,"speed":30.83,"course":253,"horizontal_accuracy":5,"vertical_accuracy":8,"speed_accuracy":-1,"course_accuracy":-1,"motion":["driving"],"battery_state":"unplugged","battery_level":0.8,"wifi":"","device_id":"golden"}}"#)
        // The last epoch:
        // $GPGGA,194419.000,4516.3720,N,07928.9319,W,1,08,1.0,343.0,M,,,,*16
        // $GPRMC,194419.000,A,4516.3720,N,07928.9319,W,55.98,235.0,140220,,,A*7A
        // $GPVTG,235.0,T,,M,55.98,N,103.67,K,A*3B   (103.67 km/h = 28.80 m/s)
        // 45 + 16.3720/60 = 45.2728667; -(79 + 28.9319/60) = -79.4821983.
        #expect(LogSamples.drive.epochs[5596].text.hasPrefix("$GPGGA,194419.000,4516.3720,N,07928.9319,W,1,08,1.0,343.0,M,,,,*16\r\n"))
        #expect(lines[5596] == #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-79.4821983,45.2728667]},"properties":{"timestamp":"2020-02-14T19:44:19Z","altitude":343,"speed":28.8,"course":235,"horizontal_accuracy":5,"vertical_accuracy":8,"speed_accuracy":-1,"course_accuracy":-1,"motion":["driving"],"battery_state":"unplugged","battery_level":0.8,"wifi":"","device_id":"golden"}}"#)
    }
}
