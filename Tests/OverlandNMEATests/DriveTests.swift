import TestSupport
import OverlandNMEA
import Testing

/// A 98-minute car drive (GeneratedDrive.standard): 5,597 epochs of GGA, GSA, RMC, VTG in
/// SiRF style, 1 to 7 s apart, 5.09 to 111.00 km/h. Every fix is compared with what its
/// sentences state.
@Suite("Drive: a generated 98-minute drive")
struct DriveTests {
    @Test("5,597 fixes, each exactly as its sentences state it")
    func drive() throws {
        let drive = GeneratedDrive.standard
        let (fixes, stats) = decodeAll(NMEAStreamDecoder(), Array(drive.text.utf8))
        #expect(fixes.count == 5597)
        #expect(stats.lines == 22_388)
        #expect(stats.sentences == 22_388)
        #expect(stats.acceptedSentences == 22_388)
        #expect(stats.skippedBytes == 0)
        #expect(stats.invalidFixes == 0)
        #expect(stats.fixes == 5597)
        try #require(fixes.count == drive.epochs.count)

        // The generator's first epoch, by hand:
        // $GPGGA,180542.000,4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,*1F
        // $GPRMC,180542.000,A,4529.4585,N,07741.7789,W,2.75,205.4,140220,,,A*42
        // $GPVTG,205.4,T,,M,2.75,N,5.09,K,A*02
        let first = try #require(fixes.first)
        #expect(drive.epochs.first?.text.hasPrefix("$GPGGA,180542.000,4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,*1F\r\n") == true)
        #expect(first.time == unixTime(2020, 2, 14, 18, 5, 42))
        #expect(first.time == 1_581_703_542)
        #expect(first.latitude == 45 + 29.4585 / 60)
        #expect(first.longitude == -(77 + 41.7789 / 60))
        #expect(first.altitude == 311.0)
        #expect(abs(try #require(first.speed) - 5.09 / 3.6) < 1e-12)
        #expect(first.course == 205.4)
        #expect(first.mode == .threeD)

        for (index, (fix, epoch)) in zip(fixes, drive.epochs).enumerated() {
            #expect(fix.time == epoch.time && fix.nanoseconds == 0, "epoch \(index)")
            #expect(abs(fix.latitude - epoch.latitude) < 1e-12, "epoch \(index): \(fix.latitude) vs \(epoch.latitude)")
            #expect(abs(fix.longitude - epoch.longitude) < 1e-12, "epoch \(index): \(fix.longitude) vs \(epoch.longitude)")
            #expect(fix.altitude == Double(epoch.altitude), "epoch \(index)")
            #expect(fix.speed.map { abs($0 - epoch.speed) < 1e-12 } == true, "epoch \(index): the km/h of VTG, exact")
            #expect(fix.course.map { abs($0 - epoch.course) < 1e-9 } == true, "epoch \(index)")
            #expect(fix.mode == .threeD, "epoch \(index)")
        }

        // The drive's shape: strictly increasing times 1-7 s apart, 5.09 to 111.00 km/h.
        let last = try #require(fixes.last)
        #expect(last.time - first.time == 5917)
        for (a, b) in zip(fixes, fixes.dropFirst()) {
            #expect((1...7).contains(b.time - a.time))
        }
        let speeds = fixes.compactMap { $0.speed.map { $0 * 3.6 } }
        #expect(abs(try #require(speeds.min()) - 5.09) < 1e-9)
        #expect(abs(try #require(speeds.max()) - 111.00) < 1e-9)
    }
}
