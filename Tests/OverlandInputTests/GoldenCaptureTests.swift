import OverlandInput
import Testing

/// How our output for one gpsd capture legitimately differs from gpsd's truth file.
struct CaptureExpectation: Sendable, CustomTestStringConvertible {
    var name: String
    /// Fixes we emit that the truth file lacks (ISO times), each for a documented reason.
    var extraFixes: [String] = []
    /// Fixes where our mode differs from gpsd's (ISO time: our mode).
    var modeDifferences: [String: FixMode] = [:]
    /// Counters that document what the capture contains.
    var badChecksums = 0
    var missingChecksums = 0
    var uncheckedSentences = 0
    var malformedSentences = 0
    var undatedFixes = 0

    var testDescription: String { name }
}

/// Our decoding of the twenty gpsd regression captures against the fixes gpsd reported
/// (`NAME.truth.jsonl`): same fixes by time, positions within 0.1 m, altitude within 0.1 m
/// and course within 0.1° where the sentences report them, speed within 0.05 m/s, same mode.
/// Every difference is listed below with its reason; tolerances are not loosened.
@Suite("Golden: gpsd captures")
struct GoldenCaptureTests {
    static let expectations: [CaptureExpectation] = [
        // A Telit after the April 2019 week rollover: "$GPRMC,000231.42,...,220899" is read as
        // reported, 1999-08-22 (the truth file undoes gpsd's own 1024-week shift too). The
        // sentence before it has the date "2208-1": malformed, rejected. The first RMC is void.
        CaptureExpectation(name: "april6_2019", malformedSentences: 1),
        // 07:41:55.799 is the first valid cycle after the no-fix phase (GGA 1, GNS ANNA, GSA 3,
        // RMC A, date 250215 known): we emit it; gpsd reported it without a time, so it is not
        // in the truth file.
        CaptureExpectation(name: "beidou-bd", extraFixes: ["2015-02-25T07:41:55.799Z"]),
        CaptureExpectation(name: "bu353-glonass"),
        // Every GGA has a bad checksum (and an empty quality field): rejected, as gpsd did; the
        // fixes come from RMC alone, hence 2D.
        CaptureExpectation(name: "firefly-II", badChecksums: 23),
        CaptureExpectation(name: "furuno_gl_ga"),
        // 46 proprietary $PGLOR sentences with bad checksums (rejected, as gpsd did).
        CaptureExpectation(name: "gpsdf", badChecksums: 46),
        // 09:53:04.802: first valid cycle after no fix (GGA 1, GSA A,2, RMC A); gpsd reported
        // it without a time. 09:53:07.801: its GSA says 2D ("$GPGSA,A,2,05,07,12,30,...");
        // we trust the receiver's fix type and drop the held altitude, gpsd let the GGA
        // altitude make it 3D.
        CaptureExpectation(
            name: "haicom-305N", extraFixes: ["2007-04-08T09:53:04.802Z"],
            modeDifferences: ["2007-04-08T09:53:07.801Z": .twoD]),
        // The HP 58534A sends no checksums at all. ChecksumPolicy.requiredOnceSeen accepts
        // them because the stream never carries a checksum, so we emit its two epochs
        // (GGA quality 1 + ZDA 2010-10-25, then GGA with the date carried); the truth file
        // has none ("No checksums, everything ignored").
        CaptureExpectation(
            name: "hp58534a", extraFixes: ["2010-10-25T22:24:49.000Z", "2010-10-25T22:24:50.000Z"],
            uncheckedSentences: 5),
        CaptureExpectation(name: "magellan-ec10"),
        CaptureExpectation(name: "mt3339"),
        // The capture ends inside the 17:19:48 cycle (RMC, VTG, GGA, valid): we emit the last
        // epoch at end of input, gpsd did not. The first GLL (17:19:25) comes before any date:
        // undated.
        CaptureExpectation(name: "neo-m8n", extraFixes: ["2015-03-18T17:19:48.000Z"], undatedFixes: 1),
        CaptureExpectation(name: "nmea-rtk"),
        // Ends inside the 05:53:04.000 cycle (GGA 1, GLL A, GSA 3): last epoch at end of input.
        CaptureExpectation(name: "quectel-l76k-nmea", extraFixes: ["2026-08-05T05:53:04.000Z"]),
        // 10 Hz GGA, 1 Hz RMC: 20:41:32.100 is the first GGA-only epoch after the RMC;
        // gpsd merged it away, we report every epoch.
        CaptureExpectation(name: "rst39", extraFixes: ["2014-02-19T20:41:32.100Z"]),
        CaptureExpectation(name: "sirfstarv-nmea"),
        CaptureExpectation(name: "skytraq-dgps"),
        // A depth sounder echoing the ship's position as $ECGLL with a time of day and no date
        // anywhere: 122 valid positions, all undated under DatePolicy.fromStreamOnly, as gpsd.
        CaptureExpectation(name: "sounder", undatedFixes: 122),
        CaptureExpectation(name: "telit-he910"),
        // The last line is cut short: "$GNRMC,001053.00,A,4404.14083,N,12118.85886,W,0."
        // has no checksum in a checksummed stream: rejected.
        CaptureExpectation(name: "ublox-8", missingChecksums: 1),
        // 00:07:05 is valid in every sentence (RMC A, GGA 1, GSA 3) and is the last epoch
        // before the receiver loses its fix; gpsd's report of it is not in the truth file
        // (its cycle lacks the fifth GSA the earlier cycles ended with).
        CaptureExpectation(name: "unicore-um621", extraFixes: ["2024-06-09T00:07:05.000Z"]),
    ]

    @Test("every capture has an expectation")
    func complete() {
        #expect(Self.expectations.map(\.name) == Samples.captureNames)
    }

    @Test("same fixes as gpsd, within tolerances", arguments: expectations)
    func capture(_ expectation: CaptureExpectation) throws {
        let bytes = try Samples.capture(expectation.name)
        let truth = try Samples.truth(expectation.name)
        let (fixes, stats) = decodeAll(NMEAStreamDecoder(), bytes)

        var truthByTime: [Int64: TruthFix] = [:]
        for fix in truth where truthByTime[fix.milliseconds] == nil { truthByTime[fix.milliseconds] = fix }
        let ours = Dictionary(fixes.map { ($0.milliseconds, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(ours.count == fixes.count, "one fix per time")

        let extra = fixes.filter { truthByTime[$0.milliseconds] == nil }.map(\.isoTime)
        let missing = truthByTime.keys.filter { ours[$0] == nil }.sorted().map(isoMilliseconds)
        #expect(extra == expectation.extraFixes)
        #expect(missing == [])

        for fix in fixes {
            guard let reference = truthByTime[fix.milliseconds] else { continue }
            let time = fix.isoTime
            let distance = metres(reference.latitude, reference.longitude, fix.latitude, fix.longitude)
            #expect(distance <= 0.1, "\(time): position off by \(distance) m")
            let expectedMode = expectation.modeDifferences[time]?.rawValue ?? reference.mode
            #expect(fix.mode.rawValue == expectedMode, "\(time): mode")
            if reference.reported.contains("alt"), let altitude = reference.altitude, expectedMode == 3 {
                #expect(fix.altitude.map { abs($0 - altitude) <= 0.1 } == true, "\(time): altitude \(String(describing: fix.altitude)) vs \(altitude)")
            }
            if reference.reported.contains("speed"), let speed = reference.speed {
                #expect(fix.speed.map { abs($0 - speed) <= 0.05 } == true, "\(time): speed \(String(describing: fix.speed)) vs \(speed)")
            }
            if reference.reported.contains("course"), let track = reference.track {
                #expect(fix.course.map { abs($0 - track) <= 0.1 } == true, "\(time): course \(String(describing: fix.course)) vs \(track)")
            }
            #expect(fix.latitude.isFinite && fix.longitude.isFinite)
        }

        #expect(stats.badChecksums == expectation.badChecksums)
        #expect(stats.missingChecksums == expectation.missingChecksums)
        #expect(stats.uncheckedSentences == expectation.uncheckedSentences)
        #expect(stats.malformedSentences == expectation.malformedSentences)
        #expect(stats.undatedFixes == expectation.undatedFixes)
        #expect(stats.fixes == fixes.count)
    }

    @Test("values checked by hand against the raw sentences")
    func handChecks() throws {
        // mt3339.log, first epoch:
        //   $GPGGA,202640.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000*6C
        //   $GPGSA,A,3,20,16,09,03,07,10,23,19,27,30,,,1.64,0.98,1.31*05
        //   $GPRMC,202640.000,A,4404.1306,N,12118.8515,W,0.03,225.97,130415,,,D*73
        //   $GPZDA,202640.000,13,04,2015,,*54
        // 2015-04-13T20:26:40Z = 16538 days * 86400 + 73600 s = 1428956800.
        // lat 44 + 4.1306/60 = 44.068843333; lon -(121 + 18.8515/60) = -121.314191667.
        // speed 0.03 kn * 1852/3600 = 0.015433 m/s; DGPS: UERE 1 m, so 0.98 m and 1.31 m.
        let (mt3339, _) = decodeAll(NMEAStreamDecoder(), try Samples.capture("mt3339"))
        let first = try #require(mt3339.first)
        #expect(first.time == 1_428_956_800)
        #expect(abs(first.latitude - 44.068843333) < 1e-9)
        #expect(abs(first.longitude - -121.314191667) < 1e-9)
        #expect(first.altitude == 1127.7)
        #expect(abs(try #require(first.speed) - 0.015433) < 1e-6)
        #expect(first.course == 225.97)
        #expect(first.quality == .dgps)
        #expect(first.satellitesUsed == 10)
        #expect(first.horizontalAccuracy == 0.98)
        #expect(first.verticalAccuracy == 1.31)

        // nmea-rtk.log, RTK fixed:
        //   $GNGGA,133859.80,4134.50180205,N,09345.03586649,W,4,19,0.7,280.827,M,-31.442,M,5.8,0002*6D
        // 2020-03-18 (from the RMC of the stream) 13:38:59.8; UERE 0.05 m: 0.7 * 0.05 = 0.035 m.
        let (rtk, _) = decodeAll(NMEAStreamDecoder(), try Samples.capture("nmea-rtk"))
        let fixed = try #require(rtk.first { $0.isoTime == "2020-03-18T13:38:59.800Z" })
        #expect(fixed.quality == .rtkFixed)
        #expect(abs(fixed.latitude - (41 + 34.50180205 / 60)) < 1e-12)
        #expect(abs(fixed.longitude - -(93 + 45.03586649 / 60)) < 1e-12)
        #expect(fixed.altitude == 280.827)
        #expect(fixed.satellitesUsed == 19)
        #expect(abs(try #require(fixed.horizontalAccuracy) - 0.035) < 1e-12)

        // telit-he910.log: the receiver steps its clock back 0.302 s after the first fix:
        //   $GPGGA,105153.71,...  then  $GPGGA,105153.408,...  (both 2019-03-12, RMC 120319)
        let (telit, _) = decodeAll(NMEAStreamDecoder(), try Samples.capture("telit-he910"))
        #expect(telit.prefix(2).map(\.isoTime) == ["2019-03-12T10:51:53.710Z", "2019-03-12T10:51:53.408Z"])
    }
}
