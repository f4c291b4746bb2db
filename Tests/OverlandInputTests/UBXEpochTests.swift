import Foundation
import OverlandInput
import Testing

/// NAV-SOL, NAV-POSLLH, NAV-VELNED and NAV-TIMEGPS (u-blox 5 and 6, and later receivers set up
/// as they were), merged by epoch; the ECEF and GPS-time conversions they need.
@Suite("UBX epochs")
struct UBXEpochTests {
    // Seattle, 47.6062095 N 122.3320708 W, 30.5 m above the ellipsoid, in ECEF (computed
    // with the closed-form WGS84 forward transform: N = a / sqrt(1 - e² sin²φ)).
    static let x = -2_304_121.62, y = -3_640_247.11, z = 4_687_489.93
    // Week 2444 starts 2026-11-08; + 417,600 s = 2026-11-12T20:00:00 GPS = 19:59:42 UTC (18 leap seconds).
    static let iTOW: UInt32 = 417_600_000

    @Test("WGS84: ECEF to latitude, longitude and height, and back")
    func geodetic() {
        let (latitude, longitude, height) = WGS84.geodetic(x: Self.x, y: Self.y, z: Self.z)
        #expect(metres(latitude, longitude, 47.6062095, -122.3320708) < 0.01, "\(latitude) \(longitude)")
        #expect(abs(height - 30.5) < 0.01, "\(height)")
        // The poles and the equator.
        let pole = WGS84.geodetic(x: 0, y: 0, z: 6_356_752.314 + 100)
        #expect(abs(pole.latitude - 90) < 1e-9 && abs(pole.height - 100) < 0.001, "\(pole)")
        let equator = WGS84.geodetic(x: 6_378_137 + 5, y: 0, z: 0)
        #expect(abs(equator.latitude) < 1e-12 && abs(equator.longitude) < 1e-12 && abs(equator.height - 5) < 1e-6)
        // 10 m/s north at the equator on the prime meridian: +z.
        let north = WGS84.groundVelocity(vx: 0, vy: 0, vz: 10, latitude: 0, longitude: 0)
        #expect(abs(north.speed - 10) < 1e-12 && abs(north.course) < 1e-9)
        let east = WGS84.groundVelocity(vx: 0, vy: 3, vz: 0, latitude: 0, longitude: 0)
        #expect(abs(east.speed - 3) < 1e-12 && abs(east.course - 90) < 1e-9)
    }

    @Test("GPS time to UTC: the receiver's leap seconds, else the table")
    func gpsTime() {
        // 2024 weeks + 420,964 s = 2018-10-25T20:56:04 GPS; 18 leap seconds.
        let t = GPSTime.utc(week: 2024, milliseconds: 420_964_000, nanoseconds: 4363)
        #expect(t.time == unixTime(2018, 10, 25, 20, 55, 46) && t.nanoseconds == 4363)
        #expect(GPSTime.utc(week: 2024, milliseconds: 420_964_000, nanoseconds: 0, leapSeconds: 17).time == unixTime(2018, 10, 25, 20, 55, 47))
        // A negative fraction borrows a second.
        let borrowed = GPSTime.utc(week: 1977, milliseconds: 494_575_000, nanoseconds: -112_313)
        #expect(borrowed.time == unixTime(2017, 12, 1, 17, 22, 36) && borrowed.nanoseconds == 999_887_687)
        // 2016-12-31T23:59:59 UTC was 17 s behind GPS; 2017-01-01T00:00:00, 18.
        #expect(GPSTime.leapSeconds(atGPSTime: unixTime(2016, 12, 31, 23, 59, 59) + 17) == 17)
        #expect(GPSTime.leapSeconds(atGPSTime: unixTime(2017, 1, 1) + 18) == 18)
        #expect(GPSTime.leapSeconds(atGPSTime: unixTime(2009, 6, 1)) == 15)
        #expect(GPSTime.leapSeconds(atGPSTime: unixTime(1980, 6, 1)) == 0)
    }

    @Test("NAV-SOL alone: position from ECEF, GPS time less the leap seconds, no altitude, pAcc as accuracy")
    func solutionAlone() throws {
        let bytes = UBX.solution(iTOW: Self.iTOW, x: Self.x, y: Self.y, z: Self.z, vx: 0, vy: 0, vz: 10)
        let (fixes, stats) = decodeAll(UBXStreamDecoder(), bytes)
        let fix = try #require(fixes.first)
        #expect(fix.isoTime == "2026-11-12T19:59:42.000Z", "the table's 18 leap seconds")
        #expect(metres(fix.latitude, fix.longitude, 47.6062095, -122.3320708) < 0.01)
        #expect(fix.altitude == nil, "only the height above the ellipsoid is known")
        #expect(fix.mode == .threeD && fix.quality == .gps && fix.satellitesUsed == 9 && fix.pdop == 2.1)
        #expect(fix.horizontalAccuracy == 3.5 && fix.verticalAccuracy == nil && fix.speedAccuracy == 0.4 && fix.courseAccuracy == nil)
        // 10 m/s along +z at 47.6° N: cos(47.6°) * 10 northward.
        let speed = try #require(fix.speed), course = try #require(fix.course)
        let expectedSpeed: Double = 10 * cos(47.6062095 * Double.pi / 180)
        #expect(abs(speed - expectedSpeed) < 0.01)
        #expect(min(course, 360 - course) < 0.01, "north: \(course)")
        #expect(stats[UBXStatistics.self].positionFrames == 1 && stats.fixes == 1)
    }

    @Test("NAV-SOL with NAV-POSLLH, NAV-VELNED, NAV-DOP and NAV-TIMEGPS: one fix per epoch, each message's values")
    func u6Epochs() throws {
        var bytes: [UInt8] = []
        for index in 0..<3 {
            let iTOW = Self.iTOW + UInt32(index * 1000)
            bytes += UBX.positionLLH(iTOW: iTOW, latitude: 47.6062095 + Double(index) * 1e-4, longitude: -122.3320708,
                                     height: 30.5, hMSL: 52.25, hAcc: 2.25, vAcc: 3.75)
            bytes += UBX.solution(iTOW: iTOW, flags: 0x0F, x: Self.x, y: Self.y, z: Self.z)
            bytes += UBX.velocityNED(iTOW: iTOW, speed: 12.34, heading: 181.5, sAcc: 0.31, cAcc: 2.5)
            bytes += UBX.dop(iTOW: iTOW, pDOP: 1.9, vDOP: 1.5, hDOP: 1.2)
            bytes += UBX.timeGPS(iTOW: iTOW, leapSeconds: 17)
        }
        let (fixes, stats) = decodeAll(UBXStreamDecoder(), bytes)
        #expect(fixes.map(\.isoTime) == ["2026-11-12T19:59:43.000Z", "2026-11-12T19:59:44.000Z", "2026-11-12T19:59:45.000Z"],
                "the receiver's 17 leap seconds win over the table")
        let fix = try #require(fixes.last)
        #expect(abs(fix.latitude - 47.6064095) < 1e-9 && fix.longitude == -122.3320708, "NAV-POSLLH's degrees")
        #expect(fix.altitude == 52.25 && fix.horizontalAccuracy == 2.25 && fix.verticalAccuracy == 3.75)
        let course = try #require(fix.course), courseAccuracy = try #require(fix.courseAccuracy)
        #expect(fix.speed == 12.34 && abs(course - 181.5) < 1e-9 && fix.speedAccuracy == 0.31 && abs(courseAccuracy - 2.5) < 1e-9)
        #expect(fix.hdop == 1.2 && fix.vdop == 1.5 && fix.pdop == 1.9 && fix.quality == .dgps)
        #expect(stats[UBXStatistics.self].positionFrames == 3 && stats[UBXStatistics.self].ignoredFrames == 0 && stats.fixes == 3)
    }

    @Test("NAV-SOL without a fix or without a valid week is counted, not emitted; 2D has no altitude")
    func solutionEdges() throws {
        let noFix = UBX.solution(iTOW: Self.iTOW, fixType: 0, flags: 0x0C, x: Self.x, y: Self.y, z: Self.z)
        let noWeek = UBX.solution(iTOW: Self.iTOW + 1000, flags: 0x09, x: Self.x, y: Self.y, z: Self.z)
        let twoD = UBX.solution(iTOW: Self.iTOW + 2000, fixType: 2, x: Self.x, y: Self.y, z: Self.z)
            + UBX.positionLLH(iTOW: Self.iTOW + 2000, latitude: 47.6, longitude: -122.3, height: 30, hMSL: 52, hAcc: 5, vAcc: 9)
        let (fixes, stats) = decodeAll(UBXStreamDecoder(), noFix + noWeek + twoD)
        #expect(fixes.count == 1 && stats.invalidFixes == 1 && stats.undatedFixes == 1)
        let fix = try #require(fixes.first)
        #expect(fix.mode == .twoD && fix.altitude == nil && fix.verticalAccuracy == nil && fix.horizontalAccuracy == 5)
    }

    @Test("u-blox 7's 84-byte NAV-PVT is read; fix type 5 (time only) is the fixed position, 3D")
    func shortPVTAndTimeOnly() throws {
        var pvt = UBX.PVT()
        pvt.fixType = 5
        let long = pvt.frame()
        let payload = Array(long[6..<(6 + 84)])
        let (fixes, _) = decodeAll(UBXStreamDecoder(), UBX.frame(class: 0x01, id: 0x07, payload: payload))
        let fix = try #require(fixes.first)
        #expect(fix.mode == .threeD && fix.quality == .manual && fix.altitude == 52.25 && fix.horizontalAccuracy == 1.234)
    }

    @Test("live: a message arriving after its epoch was emitted is late, and its ender is not learned again")
    func wrongEnder() throws {
        func epoch(_ index: Int, extraAfterTime: Bool) -> [UInt8] {
            let iTOW = Self.iTOW + UInt32(index * 1000)
            var bytes = UBX.solution(iTOW: iTOW, x: Self.x, y: Self.y, z: Self.z) + UBX.timeGPS(iTOW: iTOW, leapSeconds: 18)
            if extraAfterTime { bytes += UBX.dop(iTOW: iTOW, pDOP: 1.9, vDOP: 1.5, hDOP: 1.2) }
            return bytes
        }
        var decoder = UBXStreamDecoder(closesCyclesEarly: true)
        var fixes: [Fix] = []
        decoder.push(epoch(0, extraAfterTime: false) + epoch(1, extraAfterTime: false), into: &fixes)
        #expect(fixes.count == 2, "the second epoch emitted at its NAV-TIMEGPS, the learned ender")
        decoder.push(epoch(2, extraAfterTime: true), into: &fixes)
        #expect(fixes.count == 3 && decoder.statistics.lateSentences == 1)
        decoder.push(epoch(3, extraAfterTime: true), into: &fixes)
        #expect(fixes.count == 3, "NAV-TIMEGPS no longer ends an epoch; NAV-DOP, now last, is not learned until the next")
        decoder.push(epoch(4, extraAfterTime: true), into: &fixes)
        #expect(fixes.count == 5 && decoder.statistics.lateSentences == 1, "NAV-DOP learned")
        #expect(fixes.last?.hdop == 1.2)
    }
}
