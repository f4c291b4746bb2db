@testable import OverlandInput
import Testing

@Suite("NMEASentenceDecoder")
struct SentenceDecoderTests {
    // MARK: RMC

    @Test("RMC, NMEA 2.3 with mode indicator (mt3339.log)")
    func rmc() throws {
        let s = try sentence("$GPRMC,202640.000,A,4404.1306,N,12118.8515,W,0.03,225.97,130415,,,D*73")
        #expect(s.kind == .rmc)
        #expect(s.talker == "GP")
        #expect(s.timeOfDay == TimeOfDay(hour: 20, minute: 26, second: 40))
        #expect(s.date == CivilDate(year: 2015, month: 4, day: 13))
        // 44° 04.1306' N = 44.06884333; 121° 18.8515' W = -121.31419167
        #expect(abs(try #require(s.latitude) - 44.068843333) < 1e-9)
        #expect(abs(try #require(s.longitude) - -121.314191667) < 1e-9)
        #expect(s.positionDecimals == 4)
        #expect(abs(try #require(s.speed) - 0.03 * 1852 / 3600) < 1e-12)
        #expect(s.course == 225.97)
        #expect(s.validity == .valid)
        #expect(s.quality == .dgps)
    }

    @Test("RMC, NMEA 4.1 with navigational status V on a good fix (quectel-l76k-nmea.log)")
    func rmcNavigationalStatus() throws {
        let s = try sentence("$GNRMC,055234.000,A,4739.71890,N,12219.58362,W,0.00,286.35,050826,,,A,V*13")
        #expect(s.validity == .valid)
        #expect(s.talker == "GN")
        #expect(s.date == CivilDate(year: 2026, month: 8, day: 5))
    }

    @Test("RMC, NMEA 2.0 without mode; empty course (u-blox); 8-decimal minutes (nmea-rtk.log)")
    func rmcVariants() throws {
        var s = try sentence("$GPRMC,005947.00,A,3715.6616,N,12157.6709,W,0.0,0.0,080710,,*2F")
        #expect(s.validity == .valid)
        #expect(s.quality == nil)
        s = try sentence("$GNRMC,171926.00,A,4404.14063,N,12118.85478,W,0.117,,180315,,,A*76")
        #expect(s.course == nil)
        #expect(s.date == CivilDate(year: 2015, month: 3, day: 18))
        s = try sentence("$GNRMC,132819.60,A,4134.49795459,N,09345.03431408,W,0.148,124.888,180320,11.5985,E,D*3F")
        #expect(s.positionDecimals == 8)
        #expect(abs(try #require(s.latitude) - (41 + 34.49795459 / 60)) < 1e-12)
        #expect(s.timeOfDay?.nanoseconds == 600_000_000)
    }

    @Test("RMC without a fix: empty fields, status V, mode N (telit-he910.log, magellan-ec10.log)")
    func rmcVoid() throws {
        var s = try sentence("$GPRMC,,V,,,,,,,,,,N*53")
        #expect(s.timeOfDay == nil)
        #expect(s.latitude == nil)
        #expect(s.validity == .invalid)
        s = try sentence("$GPRMC,205150.00,V,,,,,,,,,,,V*4a")
        #expect(s.validity == .invalid)
        // Status A but mode N: invalid wins.
        s = try sentence(checksummed("$GPRMC,205150.00,A,4404.1306,N,12118.8515,W,,,130415,,,N"))
        #expect(s.validity == .invalid)
    }

    @Test("two-digit years: 80-99 are 19xx, 00-79 are 20xx", arguments: [
        ("220899", 1999), ("010180", 1980), ("311279", 2079), ("010100", 2000), ("050826", 2026),
    ])
    func twoDigitYears(date: String, year: Int) throws {
        let s = try sentence(checksummed("$GPRMC,000231.42,A,4829.0005,N,00022.0016,E,0.16,212.28,\(date),,,A"))
        #expect(s.date?.year == year)
    }

    @Test("out-of-range and unparsable fields make the sentence malformed", arguments: [
        "$GPRMC,000231.099,A,4829.0005,N,00022.0015,E,0.15,212.28,2208-1,,,A",  // april6_2019.log
        "$GPRMC,000231.00,A,9100.0000,N,00022.0015,E,0.15,212.28,220819,,,A",  // latitude 91°
        "$GPRMC,000231.00,A,9000.0001,N,00022.0015,E,0.15,212.28,220819,,,A",  // just past the pole
        "$GPRMC,000231.00,A,4860.0000,N,00022.0015,E,0.15,212.28,220819,,,A",  // 60 minutes
        "$GPRMC,000231.00,A,4829.0005,N,18000.0001,E,0.15,212.28,220819,,,A",  // longitude past 180°
        "$GPRMC,000231.00,A,4829.0005,X,00022.0015,E,0.15,212.28,220819,,,A",  // hemisphere X
        "$GPRMC,000231.00,A,4829.0005,,00022.0015,E,0.15,212.28,220819,,,A",  // no hemisphere
        "$GPRMC,000231.00,A,4829.0005,N,,,0.15,212.28,220819,,,A",  // latitude without longitude
        "$GPRMC,240000.00,A,4829.0005,N,00022.0015,E,0.15,212.28,220819,,,A",  // hour 24
        "$GPRMC,236000.00,A,4829.0005,N,00022.0015,E,0.15,212.28,220819,,,A",  // minute 60
        "$GPRMC,000231.0x,A,4829.0005,N,00022.0015,E,0.15,212.28,220819,,,A",  // bad fraction
        "$GPRMC,000231.00,A,4829.0005,N,00022.0015,E,-0.15,212.28,220819,,,A",  // negative speed
        "$GPRMC,000231.00,A,4829.0005,N,00022.0015,E,0.15,361.0,220819,,,A",  // course past 360
        "$GPRMC,000231.00,A,4829.0005,N,00022.0015,E,0.15,212.28,310419,,,A",  // 31 April
        "$GPRMC,000231.00,A,4829.0005,N,00022.0015,E,0.15,212.28,290219,,,A",  // 29 Feb 2019
        "$GPRMC,000231.00,X,4829.0005,N,00022.0015,E,0.15,212.28,220819,,,A",  // status X
        "$GPRMC,000231.00,A,48x9.0005,N,00022.0015,E,0.15,212.28,220819,,,A",  // letter in a number
        "$GPRMC,000231.00,A,4829.00.05,N,00022.0015,E,0.15,212.28,220819,,,A",  // two points
        "$GPGGA,202640.000,4404.1306,N,12118.8515,W,12,10,0.98,1127.7,M,-19.6,M,,",  // quality 12
        "$GPGSA,A,4,20,16,09,03,07,10,23,19,27,30,,,1.64,0.98,1.31",  // fix type 4
        "$GPZDA,202640.000,32,04,2015,,",  // 32 April
        "$GPZDA,202640.000,13,,2015,,",  // day and year without a month
        "$GPGST,213121.000,16.1,22.2,10.2,2.0,-0.4,0.6,1.4",  // negative error
    ])
    func malformed(body: String) {
        #expect(decodeResult(checksummed(body)) == .malformed)
    }

    @Test("29 February of a leap year and a leap second are valid")
    func leapDayAndSecond() throws {
        let s = try sentence(checksummed("$GPRMC,235960.00,A,4829.0005,N,00022.0015,E,0.15,212.28,290216,,,A"))
        #expect(s.date == CivilDate(year: 2016, month: 2, day: 29))
        #expect(s.timeOfDay?.seconds == 86_400)
    }

    @Test("latitude and longitude with any number of decimals, and at the limits", arguments: [
        ("4404", 44.0 + 4.0 / 60, 0), ("4404.", 44.0 + 4.0 / 60, 0), ("4404.1", 44.0 + 4.1 / 60, 1),
        ("4404.1295864", 44.0 + 4.1295864 / 60, 7), ("0000.0000", 0.0, 4), ("9000.0000", 90.0, 4),
        ("4404.123456789012", 44.0 + 4.123456789012 / 60, 12),
    ])
    func latitudeDecimals(field: String, value: Double, decimals: Int) throws {
        let s = try sentence(checksummed("$GPGLL,\(field),N,17959.9999,W,171925.00,A,A"))
        #expect(abs(try #require(s.latitude) - value) < 1e-12)
        #expect(s.positionDecimals == min(decimals, 4))
        #expect(abs(try #require(s.longitude) - -(179 + 59.9999 / 60)) < 1e-12)
    }

    // MARK: GGA

    @Test("GGA (mt3339.log), by hand")
    func gga() throws {
        let s = try sentence("$GPGGA,202640.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000*6C")
        #expect(s.kind == .gga)
        #expect(s.quality == .dgps)
        #expect(s.validity == .valid)
        #expect(s.satellitesUsed == 10)
        #expect(s.hdop == 0.98)
        #expect(s.altitude == 1127.7)
        #expect(s.geoidSeparation == -19.6)
        #expect(s.date == nil)
    }

    @Test("GGA quality digits", arguments: [
        (0, nil), (1, FixQuality.gps), (2, .dgps), (3, .pps), (4, .rtkFixed), (5, .rtkFloat),
        (6, .estimated), (7, .manual), (8, .simulation), (9, .dgps),
    ] as [(Int, FixQuality?)])
    func ggaQuality(digit: Int, quality: FixQuality?) throws {
        let s = try sentence(checksummed("$GNGGA,132819.60,4134.49795459,N,09345.03431408,W,\(digit),10,0.9,278.161,M,-31.442,M,6.6,0133"))
        #expect(s.quality == quality)
        #expect(s.validity == (digit == 0 ? .invalid : .valid))
    }

    @Test("GGA without a fix, with an empty quality, and with an extra 15th field")
    func ggaVariants() throws {
        var s = try sentence("$GPGGA,,,,,,0,,,,M,,M,,*66")  // telit-he910.log
        #expect(s.validity == .invalid)
        #expect(s.timeOfDay == nil)
        // firefly-II.log (checksum fixed): empty quality says nothing.
        s = try sentence(checksummed("$GPGGA,005947.00,3715.6616,N,12157.6709,W,,11,0.8,86.0,M,-30.1,M,,"))
        #expect(s.validity == nil)
        #expect(s.altitude == 86.0)
        // beidou-bd.log: SiRF TriG adds a 15th field.
        s = try sentence("$GNGGA,074155.799,3114.8770,N,12135.2463,E,1,05,1.3,156.9,M,8.3,M,,0000,4.9*77")
        #expect(s.altitude == 156.9)
        #expect(s.satellitesUsed == 5)
        // HDOP "00.0" means unknown; altitude without a geoid separation (drive.nmea).
        s = try sentence("$GPGGA,180542.000,4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,*1F")
        #expect(s.geoidSeparation == nil)
        s = try sentence("$GPGGA,095257.809,2712.6404,S,15303.1201,E,0,00,00.0,4.0,M,42.2,M,,*7B")
        #expect(s.hdop == nil)
        #expect(try #require(s.latitude) < 0)
    }

    // MARK: GNS

    @Test("GNS mode letters per constellation (furuno_gl_ga.log, beidou-bd.log)")
    func gns() throws {
        var s = try sentence("$GNGNS,120213.000,5957.0062,N,01100.6429,E,NDD,11,1.3,168.9,39.5,,,V*57")
        #expect(s.kind == .gns)
        #expect(s.validity == .valid)
        #expect(s.quality == .dgps)
        #expect(s.satellitesUsed == 11)
        #expect(s.altitude == 168.9)
        #expect(s.geoidSeparation == 39.5)
        s = try sentence("$GNGNS,074150.799,,,,,NNNN,00,,,0.0,,0000*63")
        #expect(s.validity == .invalid)
        s = try sentence("$GNGNS,074155.799,3114.8770,N,12135.2463,E,ANNA,05,1.3,156.9,8.3,,0000*52")
        #expect(s.quality == .gps)
        s = try sentence(checksummed("$GNGNS,074155.799,3114.8770,N,12135.2463,E,ARFD,05,1.3,156.9,8.3,,0000"))
        #expect(s.quality == .rtkFixed)
    }

    // MARK: GLL

    @Test("GLL with and without time and status")
    func gll() throws {
        var s = try sentence("$GNGLL,4404.14066,N,12118.85481,W,171925.00,A,A*66")  // neo-m8n.log
        #expect(s.kind == .gll)
        #expect(s.timeOfDay == TimeOfDay(hour: 17, minute: 19, second: 25))
        #expect(s.validity == .valid)
        s = try sentence("$GPGLL,,,,,,V,N*64")  // telit-he910.log
        #expect(s.validity == .invalid)
        s = try sentence("$ECGLL,5119.881,N,00125.169,E,164326,A,D*52")  // sounder.log
        #expect(s.talker == "EC")
        #expect(s.quality == .dgps)
        s = try sentence(checksummed("$GPGLL,4916.45,N,12311.12,W"))  // NMEA 1.5
        #expect(s.timeOfDay == nil)
        #expect(s.validity == nil)
    }

    // MARK: GSA

    @Test("GSA: fix type, PRNs used, DOPs, NMEA 4.1 system id")
    func gsa() throws {
        var s = try sentence("$GPGSA,A,3,20,16,09,03,07,10,23,19,27,30,,,1.64,0.98,1.31*05")  // mt3339.log
        #expect(s.kind == .gsa)
        #expect(s.fixMode == .threeD)
        #expect(s.validity == .valid)
        #expect(s.satellitesUsed == 10)
        #expect(s.pdop == 1.64)
        #expect(s.hdop == 0.98)
        #expect(s.vdop == 1.31)
        #expect(s.timeOfDay == nil)
        s = try sentence("$GNGSA,A,3,68,69,70,78,84,85,,,,,,,1.5,1.3,1.0,2*3D")  // furuno_gl_ga.log
        #expect(s.vdop == 1.0)
        s = try sentence("$GPGSA,A,2,05,12,30,,,,,,,,,,17.0,17.0,0.0*36")  // haicom-305N.log
        #expect(s.fixMode == .twoD)
        #expect(s.vdop == nil)
        s = try sentence("$GPGSA,A,1,,,,,,,,,,,,,,,*1E")  // telit-he910.log
        #expect(s.validity == .invalid)
        #expect(s.fixMode == nil)
        s = try sentence("$BDGSA,A,3,02,03,04,,,,,,,,,,5.1,1.3,4.9,3.3*2F")  // beidou-bd.log, field 18 a decimal
        #expect(s.talker == "BD")
        #expect(s.satellitesUsed == 3)
    }

    // MARK: GST

    @Test("GST one-sigma errors (skytraq-dgps.log)")
    func gst() throws {
        let s = try sentence("$GPGST,213121.000,16.1,22.2,10.2,2.0,0.4,0.6,1.4*57")
        #expect(s.kind == .gst)
        #expect(s.latitudeError == 0.4)
        #expect(s.longitudeError == 0.6)
        #expect(s.altitudeError == 1.4)
        let empty = try sentence(checksummed("$GPGST,213121.000,,,,,,,"))
        #expect(empty.latitudeError == nil)
    }

    // MARK: VTG

    @Test("VTG: km/h preferred, knots otherwise, NMEA 1.x form, mode N")
    func vtg() throws {
        var s = try sentence("$GPVTG,205.4,T,,M,2.75,N,5.09,K,A*02")  // drive.nmea
        #expect(s.kind == .vtg)
        #expect(s.course == 205.4)
        #expect(abs(try #require(s.speed) - 5.09 / 3.6) < 1e-12)
        #expect(abs(s.speedResolution - 0.01 / 3.6) < 1e-12)
        s = try sentence("$GNVTG,,T,,M,0.117,N,0.216,K,A*3F")  // neo-m8n.log: no course
        #expect(s.course == nil)
        #expect(abs(try #require(s.speed) - 0.216 / 3.6) < 1e-12)
        s = try sentence(checksummed("$GPVTG,054.7,T,034.4,M,005.5,N,,K"))
        #expect(abs(try #require(s.speed) - 5.5 * 1852 / 3600) < 1e-12)
        s = try sentence(checksummed("$GPVTG,054.7,034.4,005.5,010.2"))
        #expect(s.course == 54.7)
        #expect(abs(try #require(s.speed) - 10.2 / 3.6) < 1e-12)
        s = try sentence("$GPVTG,,T,,M,,N,,K,N*2C")  // telit-he910.log
        #expect(s.speed == nil)
        #expect(s.validity == nil)
        s = try sentence(checksummed("$GPVTG,054.7,T,,M,005.5,N,010.2,K,N"))
        #expect(s.speed == nil)
        #expect(s.course == nil)
    }

    // MARK: ZDA

    @Test("ZDA date and time (bu353-glonass.log, firefly-II.log)")
    func zda() throws {
        var s = try sentence("$GPZDA,081411.000,26,05,2014,,*5D")
        #expect(s.kind == .zda)
        #expect(s.date == CivilDate(year: 2014, month: 5, day: 26))
        #expect(s.timeOfDay == TimeOfDay(hour: 8, minute: 14, second: 11))
        s = try sentence("$GPZDA,005947.00,08,07,2010,+00,00*4E")
        #expect(s.date == CivilDate(year: 2010, month: 7, day: 8))
        s = try sentence(checksummed("$GPZDA,,,,,,"))
        #expect(s.date == nil)
    }

    // MARK: Dispatch

    @Test("any talker is decoded", arguments: ["GP", "GN", "GL", "GA", "GB", "BD", "GQ", "GI", "EC", "II", "IN"])
    func talkers(talker: String) throws {
        let s = try sentence(checksummed("$\(talker)GGA,202640.000,4404.1306,N,12118.8515,W,1,10,0.98,1127.7,M,-19.6,M,,"))
        #expect(s.talker == talker)
    }

    @Test("other sentences are ignored, not errors", arguments: [
        "$GPGSV,3,3,12,24,58,220,,26,17,053,,29,20,063,,30,60,311,44",
        "$GPTXT,01,01,02,ANTSTATUS=OK",
        "$PSRF151,3,1833,28692,0x7EFFFFFF",
        "$PASHR,204132.000,010.51,T,+00.39,-00.79,-00.84,0.151,0.075,0.555,1,0",
        "$PGRMC,1",  // proprietary with a five-letter address
        "$GPHDT,25.50,T",
        "$GYOACC,1,2",  // unicore-um621.log: six-letter address
        "$SNRSTAT,1,2",
        "$gpgga,202640.000,4404.1306,N",  // lower case is not a talker
        "!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0",
    ])
    func ignored(body: String) {
        #expect(decodeResult(checksummed(body)) == .ignored)
    }

    @Test("a missing trailing field list reads as empty fields")
    func truncatedFields() throws {
        let s = try sentence(checksummed("$GPGGA,202640.000,4404.1306,N,12118.8515,W,1"))
        #expect(s.validity == .valid)
        #expect(s.altitude == nil)
        #expect(s.satellitesUsed == nil)
        let bare = try sentence(checksummed("$GPRMC"))
        #expect(bare.validity == nil)
    }
}

@Suite struct SentenceTypeCodeTests {
    @Test func typeCodesMatchTheirLetters() {
        let codes: [(UInt32, String)] = [
            (NMEASentenceDecoder.rmc, "RMC"), (NMEASentenceDecoder.gga, "GGA"), (NMEASentenceDecoder.gns, "GNS"),
            (NMEASentenceDecoder.gll, "GLL"), (NMEASentenceDecoder.gsa, "GSA"), (NMEASentenceDecoder.gst, "GST"),
            (NMEASentenceDecoder.vtg, "VTG"), (NMEASentenceDecoder.zda, "ZDA"),
        ]
        for (code, letters) in codes {
            let bytes = Array(letters.utf8)
            #expect(code == UInt32(bytes[0]) << 16 | UInt32(bytes[1]) << 8 | UInt32(bytes[2]), "\(letters)")
        }
    }

    @Test func talkersChangeFromSentenceToSentence() {
        var decoder = NMEASentenceDecoder()
        for talker in ["GP", "GN", "GN", "GL", "GP"] {
            let body = talker + "GLL,4916.45,N,12311.12,W,225444,A"
            let checksum = body.utf8.reduce(UInt8(0), ^)
            let line = "$" + body + "*" + String(checksum, radix: 16, uppercase: true).leftPadded(2)
            guard case .sentence(let sentence) = decoder.decode(Array(line.utf8)) else {
                Issue.record("\(line) did not decode")
                continue
            }
            #expect(sentence.talker == talker)
        }
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
