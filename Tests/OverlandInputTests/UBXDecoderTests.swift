import OverlandInput
import Testing

@Suite("UBX")
struct UBXDecoderTests {
    /// Epoch `index` of a 1 Hz stream: u-blox's NMEA, then NAV-PVT, NAV-DOP, NAV-EOE.
    func epoch(_ index: Int, endOfEpoch: Bool = true) -> [UInt8] {
        var pvt = UBX.PVT()
        pvt.second += index
        pvt.iTOW += UInt32(index * 1000)
        pvt.latitude += Double(index) * 1e-4
        var bytes = UBX.nmea(pvt) + pvt.frame() + UBX.dop(iTOW: pvt.iTOW, pDOP: 1.33, vDOP: 1.1, hDOP: 0.8)
        if endOfEpoch { bytes += UBX.endOfEpoch(iTOW: pvt.iTOW) }
        return bytes
    }

    @Test("NAV-PVT: every value as encoded, with the receiver's accuracies")
    func navPVT() throws {
        let (fixes, stats) = decodeAll(UBXStreamDecoder(), UBX.PVT().frame())
        let fix = try #require(fixes.first)
        #expect(fix.isoTime == "2026-11-20T12:30:15.000Z")
        #expect(abs(fix.latitude - 47.6062095) < 1e-9 && abs(fix.longitude + 122.3320708) < 1e-9)
        #expect(fix.altitude == 52.25, "hMSL, not the ellipsoid height")
        #expect(abs(fix.speed! - 13.9) < 1e-9)
        #expect(abs(fix.course! - 271.5) < 1e-9)
        #expect(fix.horizontalAccuracy == 1.234)
        #expect(fix.verticalAccuracy == 2.5)
        #expect(fix.speedAccuracy == 0.21)
        #expect(abs(fix.courseAccuracy! - 0.75) < 1e-9)
        #expect(fix.satellitesUsed == 14 && fix.pdop == 1.33 && fix.mode == .threeD && fix.quality == .gps)
        #expect(stats[UBXStatistics.self].binaryFrames == 1 && stats[UBXStatistics.self].positionFrames == 1 && stats.fixes == 1)
    }

    @Test("negative nanoseconds borrow a second; 2D has no altitude; no fix and no date are counted")
    func edges() throws {
        var pvt = UBX.PVT()
        pvt.nano = -250_000_000
        pvt.fixType = 2
        let (fixes, _) = decodeAll(UBXStreamDecoder(), pvt.frame())
        let fix = try #require(fixes.first)
        #expect(fix.isoTime == "2026-11-20T12:30:14.750Z")
        #expect(fix.altitude == nil && fix.verticalAccuracy == nil && fix.mode == .twoD)
        // The epoch's millisecond, as gpsd reports it: 12:30:15 less 127,759 ns is 12:30:15.000
        // (not 12:30:14, once whole seconds are kept), 12:30:15 + 799,899,687 ns is .800.
        var early = UBX.PVT(), late = UBX.PVT()
        early.nano = -127_759
        late.nano = 799_899_687
        late.iTOW += 1000
        let rounded = decodeAll(UBXStreamDecoder(), early.frame() + late.frame()).0
        #expect(rounded.map(\.time) == [unixTime(2026, 11, 20, 12, 30, 15), unixTime(2026, 11, 20, 12, 30, 15)])
        #expect(rounded.map(\.nanoseconds) == [0, 800_000_000])
        var noFix = UBX.PVT()
        noFix.flags = 0
        var undated = UBX.PVT()
        undated.valid = 0x02
        let (none, stats) = decodeAll(UBXStreamDecoder(), noFix.frame() + undated.frame())
        #expect(none.isEmpty)
        #expect(stats.invalidFixes == 1 && stats.undatedFixes == 1)
    }

    @Test("mixed with NMEA: NAV-PVT wins, DOPs merged at end of epoch, NMEA fixes superseded")
    func mixed() throws {
        var bytes: [UInt8] = []
        for index in 0..<5 { bytes += epoch(index) }
        let (fixes, stats) = decodeAll(UBXStreamDecoder(), bytes)
        #expect(fixes.map(\.isoTime) == (15..<20).map { "2026-11-20T12:30:\($0).000Z" },
                "one fix per epoch: \(fixes.map(\.isoTime))")
        #expect(fixes.allSatisfy { $0.horizontalAccuracy == 1.234 }, "from NAV-PVT, not from NMEA")
        // Even the first epoch's NMEA cycle completes only after the first NAV-PVT (at the
        // next time of day): every NMEA fix is superseded.
        #expect(stats[UBXStatistics.self].supersededFixes == 5)
        #expect(fixes.dropFirst().allSatisfy { $0.hdop == 0.8 && $0.vdop == 1.1 }, "NAV-DOP merged once EOE is known")
        #expect(stats[UBXStatistics.self].binaryFrames == 15)
    }

    @Test("drip-fed in any chunk size: the same fixes and statistics")
    func dripFeed() {
        var bytes: [UInt8] = [0xB5, 0x00, 0xB5] // a stray sync byte and a false start
        for index in 0..<6 { bytes += epoch(index) }
        bytes += [0xB5, 0x62, 0x01, 0x07, 0xFF] // cut short at the end
        let whole = decodeAll(UBXStreamDecoder(), bytes)
        #expect(whole.0.count >= 6)
        for chunk in [1, 2, 7, 100] {
            let dripped = decodeAll(UBXStreamDecoder(), bytes, chunkSize: chunk)
            #expect(dripped.0 == whole.0, "chunk \(chunk)")
            #expect(dripped.1 == whole.1, "chunk \(chunk)")
        }
        #expect(whole.1[UBXStatistics.self].brokenFrames == 1)
    }

    @Test("a damaged frame is skipped and counted; the next is read")
    func damaged() {
        var broken = UBX.PVT().frame()
        broken[40] ^= 0xFF
        var next = UBX.PVT()
        next.second = 16
        let (fixes, stats) = decodeAll(UBXStreamDecoder(), broken + next.frame())
        #expect(fixes.map(\.isoTime) == ["2026-11-20T12:30:16.000Z"])
        #expect(stats[UBXStatistics.self].brokenFrames == 1)
    }

    @Test("live: a stream that goes quiet before its format is told is decided on what came")
    func detectionOnQuiet() throws {
        let text = (0..<3).map { index in
            checksummed("$GPRMC,12301\(index).00,A,4736.37257,N,12219.92425,W,0.0,0.0,201126,,,A") + "\r\n"
        }.joined()
        #expect(text.utf8.count < UBXStreamDecoder.sniffWindow)
        var source = FixSource(choice: .automatic, datePolicy: .fromStreamOnly, isLive: true)
        var fixes: [Fix] = []
        Array(text.utf8).withUnsafeBytes { source.push($0, into: &fixes) }
        #expect(fixes.isEmpty && source.formatName == nil && source.hasOpenCycle, "a UBX frame may still come")
        source.closeCycle(into: &fixes)
        #expect(source.formatName == "nmea")
        #expect(fixes.count == 3, "the quiet ends the last epoch too")

        // gpsd's greeting alone decides nothing, quiet or not (gpspipe -w before the first fix).
        var greeted = FixSource(choice: .automatic, datePolicy: .fromStreamOnly, isLive: true)
        Array("{\"class\":\"VERSION\",\"release\":\"3.22\"}\n".utf8).withUnsafeBytes { greeted.push($0, into: &fixes) }
        greeted.closeCycle(into: &fixes)
        #expect(greeted.formatName == nil)
        Array("{\"class\":\"TPV\",\"mode\":3}\n".utf8).withUnsafeBytes { greeted.push($0, into: &fixes) }
        #expect(greeted.formatName == "gpsd")
    }

    @Test("the registry: sniffed from the first bytes, named for --input")
    func registry() {
        #expect(InputDecoders.all.map { $0.formatName } == ["gpsd", "ubx", "nmea"])
        #expect(InputDecoders.detect(epoch(0)[...]) == UBXStreamDecoder.self)
        #expect(InputDecoders.detect(Array("$GPGGA,1*00\r\n".utf8)[...]) == nil, "NMEA so far: wait for a UBX frame")
        #expect(InputDecoders.detect(Array(String(repeating: "$GPGGA,1*00\r\n", count: 100).utf8)[...]) == NMEAStreamDecoder.self)
        #expect(InputDecoders.detect(Array("{\"class\":\"TPV\"}\n".utf8)[...]) == GPSDStreamDecoder.self)
        #expect(InputDecoders.named("ubx") == UBXStreamDecoder.self)
    }
}
