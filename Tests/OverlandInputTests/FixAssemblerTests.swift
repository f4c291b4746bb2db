import OverlandInput
import Testing

@Suite("FixAssembler")
struct FixAssemblerTests {
    /// One SiRF-order epoch of drive.nmea (GGA, GSA, RMC, VTG), with the time and date given.
    func epoch(_ time: String, date: String = "140220", status: String = "A") -> String {
        [
            checksummed("$GPGGA,\(time),4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,"),
            checksummed("$GPGSA,A,3,02,05,06,12,13,15,19,25,,,,,1.8,1.0,1.5"),
            checksummed("$GPRMC,\(time),\(status),4529.4585,N,07741.7789,W,2.75,205.4,\(date),,,A"),
            checksummed("$GPVTG,205.4,T,,M,2.75,N,5.09,K,A"),
        ].joined(separator: "\r\n") + "\r\n"
    }

    /// An epoch without a date: GGA and GSA only.
    func undatedEpoch(_ time: String) -> String {
        checksummed("$GPGGA,\(time),4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,") + "\r\n"
            + checksummed("$GPGSA,A,3,02,05,06,12,13,15,19,25,,,,,1.8,1.0,1.5") + "\r\n"
    }

    @Test("one fix per cycle, merged; the first epoch of drive.nmea by hand")
    func mergeOneCycle() throws {
        let (fixes, stats) = decodeNMEA(epoch("180542.000") + epoch("180543.000"))
        #expect(fixes.count == 2)
        let fix = try #require(fixes.first)
        // $GPGGA,180542.000,4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,*1F
        // $GPGSA,A,3,02,05,06,12,13,15,19,25,,,,,1.8,1.0,1.5*35
        // $GPRMC,180542.000,A,4529.4585,N,07741.7789,W,2.75,205.4,140220,,,A*42
        // $GPVTG,205.4,T,,M,2.75,N,5.09,K,A*02
        // 2020-02-14T18:05:42Z = 1581703542; 45° 29.4585' N, 77° 41.7789' W;
        // speed 5.09 km/h = 1.41389 m/s (VTG km/h, finer than RMC's 2.75 kn = 1.41472 m/s).
        #expect(fix.time == 1_581_703_542)
        #expect(fix.nanoseconds == 0)
        #expect(abs(fix.latitude - degrees(45, 29.4585)) < 1e-12)
        #expect(abs(fix.longitude - -degrees(77, 41.7789)) < 1e-12)
        #expect(fix.altitude == 311.0)
        #expect(abs(try #require(fix.speed) - 5.09 / 3.6) < 1e-12)
        #expect(fix.course == 205.4)
        #expect(fix.mode == .threeD)
        #expect(fix.quality == .gps)
        #expect(fix.satellitesUsed == 8)
        #expect(fix.pdop == 1.8)
        #expect(fix.hdop == 1.0)
        #expect(fix.vdop == 1.5)
        // Autonomous: UERE 5 m. HDOP 1.0 -> 5 m, VDOP 1.5 -> 7.5 m.
        #expect(fix.horizontalAccuracy == 5.0)
        #expect(fix.verticalAccuracy == 7.5)
        #expect(fix.speedAccuracy == nil)
        #expect(fix.courseAccuracy == nil)
        #expect(stats.fixes == 2)
    }

    @Test("the last cycle is emitted at finish, not before")
    func lastCycleAtFinish() {
        var assembler = FixAssembler()
        var decoder = NMEASentenceDecoder()
        var emitted = 0
        for line in epoch("180542.000").split(separator: "\r\n") {
            guard case .sentence(let s) = decoder.decode(Array(line.utf8)) else { continue }
            if assembler.add(s) != nil { emitted += 1 }
        }
        #expect(emitted == 0)
        #expect(assembler.finish() != nil)
        #expect(assembler.finish() == nil)
    }

    @Test("invalid statements: RMC V, GGA 0, GSA 1, GLL V, GNS N, no position; invalid wins")
    func invalidCycles() {
        let date = checksummed("$GPZDA,120000.00,01,06,2020,,")
        let position = "4529.4585,N,07741.7789,W"
        let cases = [
            checksummed("$GPRMC,120000.00,V,\(position),0.0,0.0,010620,,,A"),
            checksummed("$GPGGA,120000.00,\(position),0,08,1.0,311.0,M,,,,"),
            checksummed("$GPGGA,120000.00,\(position),1,08,1.0,311.0,M,,,,") + "\n"
                + checksummed("$GPGSA,A,1,,,,,,,,,,,,,,,"),
            checksummed("$GPGLL,\(position),120000.00,V,N"),
            checksummed("$GNGNS,120000.00,\(position),NN,00,,,,,"),
            checksummed("$GPGGA,120000.00,,,,,1,08,1.0,311.0,M,,,,"),
            // Conflicting: GGA says a fix, RMC says void.
            checksummed("$GPGGA,120000.00,\(position),1,08,1.0,311.0,M,,,,") + "\n"
                + checksummed("$GPRMC,120000.00,V,\(position),0.0,0.0,010620,,,A"),
            // A position without any sentence stating a fix (NMEA 1.5 GLL with a time from ZDA).
            checksummed("$GPGLL,\(position),120000.00,,"),
        ]
        for text in cases {
            let (fixes, stats) = decodeNMEA(date + "\n" + text + "\n")
            #expect(fixes.isEmpty, "\(text)")
            #expect(stats.invalidFixes == 1, "\(text)")
        }
    }

    @Test("one GSA per constellation: a constellation without a fix does not void the cycle")
    func perConstellationGSA() throws {
        let text = [
            checksummed("$GNRMC,120000.00,A,4529.4585,N,07741.7789,W,0.0,,010620,,,A"),
            checksummed("$GNGSA,A,3,01,02,03,04,,,,,,,,,1.8,1.0,1.5,1"),
            checksummed("$GNGSA,A,1,,,,,,,,,,,,,1.8,1.0,1.5,3"),
        ].joined(separator: "\n")
        let (fixes, _) = decodeNMEA(text)
        let fix = try #require(fixes.first)
        #expect(fix.mode == .threeD)
        #expect(fix.altitude == nil)  // no GGA: a 3D fix without a stated altitude
        #expect(fix.satellitesUsed == 4)
    }

    @Test("mode: GSA fix type, else 3D with an altitude, else 2D; a 2D fix has no altitude")
    func mode() throws {
        let rmc = checksummed("$GPRMC,120000.00,A,4529.4585,N,07741.7789,W,0.0,,010620,,,A")
        let gga = checksummed("$GPGGA,120000.00,4529.4585,N,07741.7789,W,1,04,2.0,311.0,M,,,,")
        let gsa2 = checksummed("$GPGSA,A,2,01,02,03,,,,,,,,,,2.5,2.0,1.5")
        var (fixes, _) = decodeNMEA(rmc)
        #expect(fixes.first?.mode == .twoD)
        (fixes, _) = decodeNMEA(rmc + "\n" + gga)
        #expect(fixes.first?.mode == .threeD)
        (fixes, _) = decodeNMEA(rmc + "\n" + gga + "\n" + gsa2)
        let fix = try #require(fixes.first)
        #expect(fix.mode == .twoD)
        #expect(fix.altitude == nil)
        #expect(fix.verticalAccuracy == nil)
        #expect(fix.horizontalAccuracy == 10.0)
    }

    @Test("timeless sentences before the first timed one join the first cycle (bu353-glonass.log)")
    func timelessAtStreamStart() throws {
        let text = """
            $GNGSA,A,3,03,19,27,13,,,,,,,,,2.75,2.56,1.00*10
            $GNGSA,A,3,88,87,,,,,,,,,,,2.75,2.56,1.00*13
            $GNRMC,081411.000,A,5541.1955,N,03737.2872,E,0.60,301.29,260514,,,A*74
            $GPZDA,081411.000,26,05,2014,,*5D

            """
        let (fixes, _) = decodeNMEA(text)
        let fix = try #require(fixes.first)
        #expect(fix.mode == .threeD)
        #expect(fix.pdop == 2.75)
        #expect(fix.satellitesUsed == 6)
        #expect(fix.time == unixTime(2014, 5, 26, 8, 14, 11))
    }

    @Test("an empty-time cycle (Telit before its fix) never leaks into the next cycle")
    func untimedCycle() throws {
        let text = """
            $GPGGA,,,,,,0,,,,M,,M,,*66
            $GPGLL,,,,,,V,N*64
            $GPGSA,A,1,,,,,,,,,,,,,,,*1E
            $GPRMC,,V,,,,,,,,,,N*53
            $GPVTG,,T,,M,,N,,K,N*2C
            $GPGGA,105153.71,5050.4122,N,00420.8266,E,1,04,2.25,109.44,M,,M,,*77
            $GPGLL,5050.4122,N,00420.8266,E,105153.71,A,A*65
            $GPGSA,A,3,15,17,24,28,,,,,,,,,4.00,2.25,3.25*09
            $GPRMC,105153.71,A,5050.4122,N,00420.8266,E,0.14,303.60,120319,,,A*59
            $GPVTG,303.60,T,,M,0.14,N,0.26,K,A*3A

            """
        let (fixes, stats) = decodeNMEA(text)
        let fix = try #require(fixes.first)
        #expect(fixes.count == 1)
        #expect(fix.time == unixTime(2019, 3, 12, 10, 51, 53))
        #expect(fix.nanoseconds == 710_000_000)
        #expect(stats.invalidFixes == 1)
    }

    @Test("cycles without a date take the stream's last date and advance at midnight")
    func dateCarriedAcrossMidnight() {
        let text = epoch("235958.00", date: "311219") + undatedEpoch("235959.00") + undatedEpoch("000000.00")
            + undatedEpoch("000001.50")
        let (fixes, _) = decodeNMEA(text)
        #expect(fixes.map(\.time) == [
            unixTime(2019, 12, 31, 23, 59, 58), unixTime(2019, 12, 31, 23, 59, 59),
            unixTime(2020, 1, 1), unixTime(2020, 1, 1, 0, 0, 1),
        ])
        #expect(fixes.last?.nanoseconds == 500_000_000)
    }

    @Test("a small step back in time (Telit) is not a midnight wrap")
    func timeStepBack() {
        let text = epoch("105153.71", date: "120319") + undatedEpoch("105153.408")
        let (fixes, _) = decodeNMEA(text)
        #expect(fixes.map(\.time) == [unixTime(2019, 3, 12, 10, 51, 53), unixTime(2019, 3, 12, 10, 51, 53)])
        #expect(fixes.map(\.nanoseconds) == [710_000_000, 408_000_000])
    }

    @Test("fromStreamOnly: fixes before the first date are dropped as undated")
    func fromStreamOnly() {
        let text = undatedEpoch("235959.00") + epoch("000000.00", date: "010120") + undatedEpoch("000001.00")
        let (fixes, stats) = decodeNMEA(text)
        #expect(fixes.map(\.time) == [unixTime(2020, 1, 1), unixTime(2020, 1, 1, 0, 0, 1)])
        #expect(stats.undatedFixes == 1)
    }

    @Test("fixed date: the first fix gets it, later fixes advance past midnight; a stream date wins")
    func fixedDate() {
        let text = undatedEpoch("235959.00") + undatedEpoch("000000.00") + epoch("000001.00", date: "050520")
        let (fixes, stats) = decodeNMEA(text, datePolicy: .fixed(year: 2019, month: 12, day: 31))
        #expect(fixes.map(\.time) == [
            unixTime(2019, 12, 31, 23, 59, 59), unixTime(2020, 1, 1), unixTime(2020, 5, 5, 0, 0, 1),
        ])
        #expect(stats.undatedFixes == 0)
        let (none, noneStats) = decodeNMEA(undatedEpoch("120000"), datePolicy: .fixed(year: 2019, month: 2, day: 30))
        #expect(none.isEmpty)
        #expect(noneStats.undatedFixes == 1)
    }

    @Test("system clock: nearest of yesterday, today, tomorrow, within 10 minutes of now", arguments: [
        // (now, time of day, expected time or nil)
        (unixTime(2024, 6, 9, 12, 0, 0), "115959.00", unixTime(2024, 6, 9, 11, 59, 59) as Int64?),
        (unixTime(2024, 6, 9, 0, 0, 5), "235958.00", unixTime(2024, 6, 8, 23, 59, 58)),  // yesterday
        (unixTime(2024, 6, 8, 23, 59, 58), "000003.00", unixTime(2024, 6, 9, 0, 0, 3)),  // tomorrow
        (unixTime(2024, 6, 9, 12, 0, 0), "121000.00", unixTime(2024, 6, 9, 12, 10, 0)),  // exactly 10 min
        (unixTime(2024, 6, 9, 12, 0, 0), "121001.00", nil),  // 10 min 1 s: wrong clock, or stale
        (unixTime(2024, 6, 9, 12, 0, 0), "000000.00", nil),  // half a day off
    ])
    func systemClock(now: Int64, time: String, expected: Int64?) {
        let (fixes, stats) = decodeNMEA(undatedEpoch(time), datePolicy: .systemClock(now: { now }))
        #expect(fixes.first?.time == expected)
        #expect(stats.undatedFixes == (expected == nil ? 1 : 0))
    }

    @Test("GPS week rollover: as reported from files; live, moved 1024 weeks near the clock or the build date")
    func weekRollover() throws {
        // april6_2019.log: a Telit HE910 just after the April 2019 rollover reports 1999-08-22.
        let bytes = try Samples.capture("april6_2019")
        var (fixes, stats) = decodeAll(NMEAStreamDecoder(), bytes)
        #expect(fixes.map(\.isoTime) == ["1999-08-22T00:02:31.420Z"])
        #expect(stats.weekRolloverCorrections == 0)
        let now = unixTime(2019, 4, 7, 0, 5, 0)
        (fixes, stats) = decodeAll(NMEAStreamDecoder(datePolicy: .systemClock(now: { now })), bytes)
        #expect(fixes.map(\.isoTime) == ["2019-04-07T00:02:31.420Z"])
        #expect(stats.weekRolloverCorrections == 1)
        // A clock before the build date is wrong: the build date is the reference.
        (fixes, stats) = decodeAll(
            NMEAStreamDecoder(datePolicy: .systemClock(now: { unixTime(1999, 8, 23) })), bytes)
        #expect(fixes.map(\.isoTime) == ["2019-04-07T00:02:31.420Z"])
        // A date within 512 weeks of the reference is left alone.
        #expect(GPSWeekRollover.correct(day: unixTime(2020, 2, 14) / 86_400, now: unixTime(2026, 11, 24)).corrected == false)
        #expect(GPSWeekRollover.correct(day: unixTime(2000, 7, 1) / 86_400, now: unixTime(2026, 11, 24)).day
                == unixTime(2020, 2, 15) / 86_400)
        #expect(GPSWeekRollover.correct(day: unixTime(1999, 8, 22) / 86_400, now: nil).corrected == false, "files")
    }

    @Test("position, speed and course: the finest of the cycle wins")
    func finestWins() throws {
        let text = [
            checksummed("$GPRMC,120000.00,A,4404.130,N,12118.851,W,10.00,45.0,010620,,,A"),
            checksummed("$GPGGA,120000.00,4404.13061,N,12118.85153,W,1,08,1.0,311.0,M,,,,"),
            checksummed("$GPVTG,45.12,T,,M,10.00,N,18.52,K,A"),
        ].joined(separator: "\n")
        let fix = try #require(decodeNMEA(text).0.first)
        #expect(abs(fix.latitude - degrees(44, 4.13061)) < 1e-12)
        #expect(abs(try #require(fix.speed) - 18.52 / 3.6) < 1e-12)
        #expect(fix.course == 45.12)
    }

    @Test("GST errors win over DOPs for accuracy (skytraq-dgps.log, by hand)")
    func gstAccuracy() throws {
        let text = """
            $GPGGA,213121.000,4404.1295864,N,12118.8685453,W,2,07,1.2,1102.537,M,-20.300,M,,0000*5F
            $GPGSA,A,3,09,23,08,11,27,28,,,,,,,2.5,1.2,2.2*39
            $GPRMC,213121.000,A,4404.1295864,N,12118.8685453,W,000.0,122.7,070416,,,D*72
            $GPGST,213121.000,16.1,22.2,10.2,2.0,0.4,0.6,1.4*57

            """
        let fix = try #require(decodeNMEA(text).0.first)
        #expect(fix.latitudeError == 0.4)
        #expect(fix.longitudeError == 0.6)
        #expect(fix.altitudeError == 1.4)
        // √(0.4² + 0.6²) = 0.7211 m; altitude error 1.4 m.
        #expect(abs(try #require(fix.horizontalAccuracy) - 0.72111) < 1e-5)
        #expect(fix.verticalAccuracy == 1.4)
        #expect(fix.quality == .dgps)
        #expect(fix.satellitesUsed == 7)
    }
}
