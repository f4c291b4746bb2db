import OverlandNMEA
import Testing

/// drive.nmea: a real 98-minute drive, 5,597 epochs of GGA, GSA, RMC, VTG (see its README).
@Suite("Drive: drive.nmea")
struct DriveTests {
    @Test("5,597 fixes; the first and last exactly as the sentences state them")
    func drive() throws {
        let bytes = try Samples.bytes("drive/drive.nmea")
        let (fixes, stats) = decodeAll(NMEAStreamDecoder(), bytes)
        #expect(fixes.count == 5597)
        #expect(stats.lines == 22_388)
        #expect(stats.sentences == 22_388)
        #expect(stats.acceptedSentences == 22_388)
        #expect(stats.skippedBytes == 0)
        #expect(stats.invalidFixes == 0)
        #expect(stats.fixes == 5597)

        // $GPGGA,180542.000,4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,*1F
        // $GPRMC,180542.000,A,4529.4585,N,07741.7789,W,2.75,205.4,140220,,,A*42
        // $GPVTG,205.4,T,,M,2.75,N,5.09,K,A*02
        let first = try #require(fixes.first)
        #expect(first.time == unixTime(2020, 2, 14, 18, 5, 42))
        #expect(first.time == 1_581_703_542)
        #expect(first.latitude == 45 + 29.4585 / 60)
        #expect(first.longitude == -(77 + 41.7789 / 60))
        #expect(first.altitude == 311.0)
        #expect(abs(first.speed! - 5.09 / 3.6) < 1e-12)
        #expect(first.course == 205.4)
        #expect(first.mode == .threeD)

        // $GPGGA,194411.000,4520.6494,N,07909.6106,W,1,08,1.0,310.0,M,,,,*14
        // $GPRMC,194411.000,A,4520.6494,N,07909.6106,W,22.14,261.7,140220,,,A*7C
        // $GPVTG,261.7,T,,M,22.14,N,41.00,K,A*0F
        let last = try #require(fixes.last)
        #expect(last.time == unixTime(2020, 2, 14, 19, 44, 11))
        #expect(abs(last.latitude - (45 + 20.6494 / 60)) < 1e-13)
        #expect(abs(last.longitude - -(79 + 9.6106 / 60)) < 1e-13)
        #expect(last.altitude == 310.0)
        #expect(abs(last.speed! - 41.00 / 3.6) < 1e-12)
        #expect(last.course == 261.7)
        #expect(last.time - first.time == 5909)

        // The README's summary: strictly increasing times, 1-7 s apart, inside the bounding box
        // (given to 5 decimals),
        // speeds 5.09 to 111.00 km/h.
        for (a, b) in zip(fixes, fixes.dropFirst()) {
            #expect((1...7).contains(b.time - a.time))
        }
        #expect(fixes.allSatisfy { (45.322385...45.594385).contains($0.latitude) })
        #expect(fixes.allSatisfy { (-79.160185 ... -77.696315).contains($0.longitude) })
        let speeds = fixes.map { $0.speed! * 3.6 }
        #expect(abs(speeds.min()! - 5.09) < 1e-9)
        #expect(abs(speeds.max()! - 111.00) < 1e-9)
    }
}
