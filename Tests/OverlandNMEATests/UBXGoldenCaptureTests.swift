import TestSupport
import Foundation
import OverlandNMEA
import Testing

/// One of gpsd's u-blox regression captures (`Tests/Fixtures/gpsd/NAME.log`) with the TPV
/// reports gpsd gave for it (`NAME.tpv.jsonl`, the TPV lines of gpsd's `NAME.log.chk`).
struct UBXCapture: Sendable, CustomTestStringConvertible {
    var name: String
    /// What the fixes come from.
    var source: Source
    /// Fixes expected.
    var fixes: Int
    /// Fixes we emit that gpsd did not report (ISO times), each for a documented reason.
    var extraFixes: [String] = []
    /// Frames counted as not giving a fix.
    var ignoredFrames: Int
    /// Frames cut short: the capture ends inside one.
    var brokenFrames = 0

    enum Source: Sendable { case pvt, solution, nmea }

    var testDescription: String { name }
}

/// Our decoding of gpsd's u-blox captures against gpsd's own reports for them (gpsd
/// 3.20.1~dev, January 2020, whose `.chk` files are its regression expectations):
/// - the same epochs, by time to the millisecond (gpsd prints milliseconds);
/// - NAV-PVT: latitude and longitude within 1e-9° (gpsd prints 9 decimals), altitude above
///   sea level within 0.5 mm, speed within 0.5 mm/s, course within 0.5e-4° (its printed
///   digits), and the receiver's accuracies as gpsd reports them: hAcc as `eph`, vAcc as
///   `epv` (0.5 mm), sAcc as `eps` (printed with 2 decimals, rounded either way: 0.0051 m/s);
/// - NAV-SOL (ECEF): latitude and longitude within 1 mm, speed within 1 mm/s, the 3D
///   accuracy as `ecefpAcc` and sAcc as `eps` (see compareSolution for what gpsd reports);
///   the height above the ellipsoid within 1 mm of `altHAE` and the course within 0.01° of
///   `track` (no altitude in the fix: see UBXEpoch);
/// - NMEA between the frames: positions within 0.1 m, as the NMEA golden tests.
@Suite("Golden: gpsd u-blox captures")
struct UBXGoldenCaptureTests {
    static let captures: [UBXCapture] = [
        // NEO-M8N, 5 Hz NAV-PVT with NAV-TIMEGPS and NAV-SAT.
        // The capture ends one byte short of its last NAV-TIMEGPS.
        UBXCapture(name: "ublox-neo-m8n", source: .pvt, fixes: 24, ignoredFrames: 5, brokenFrames: 1),
        // ZED-F9P: NAV-PVT among eleven NAV messages per epoch, ended by NAV-EOE.
        UBXCapture(name: "ublox-zed-f9p-hp", source: .pvt, fixes: 29, ignoredFrames: 29 * 6 + 3),
        // ZED-F9T surveyed in (fix type 5, time only: the fixed position, 3D as in gpsd),
        // with RTCM3 frames between the UBX frames.
        // NAV-POSECEF, NAV-VELECEF, NAV-SBAS and NAV-SAT are ignored.
        UBXCapture(name: "ublox-zed-f9t-rtcm3", source: .pvt, fixes: 26, ignoredFrames: 26 * 2 + 3 + 3),
        // NEO-M8T: no NAV-PVT; NAV-SOL in ECEF, NAV-TIMEGPS (leap seconds), RXM-RAWX. The
        // capture ends inside a RXM-RAWX.
        UBXCapture(name: "ublox-neo-m8t", source: .solution, fixes: 39, ignoredFrames: 39 * 3 + 8, brokenFrames: 1),
        // u-blox 8 in fixed-position mode reporting 2D through NAV-SOL; the capture ends
        // inside its last NAV-TIMEGPS.
        UBXCapture(name: "ublox-8-time", source: .solution, fixes: 89, ignoredFrames: 18, brokenFrames: 1),
        // ZED-F9P with NMEA and UBX (RXM-RAWX, RXM-MEASX, NAV-CLOCK) mixed: the first 56,127
        // bytes of gpsd's ublox-zed-f9p_hpg1.11.log (30 epochs), gpsd's reports up to the last.
        // 01:19:03 is the first epoch: gpsd reported it without a time.
        UBXCapture(name: "ublox-zed-f9p_hpg1.11-head", source: .nmea, fixes: 30,
                   extraFixes: ["2019-04-12T01:19:03.000Z"], ignoredFrames: 91),
    ]

    @Test("detected as UBX, the same fixes as gpsd", arguments: captures)
    func capture(_ capture: UBXCapture) throws {
        let bytes = try Samples.capture(capture.name)
        #expect(InputDecoders.detect(bytes[...], isComplete: true) == UBXStreamDecoder.self)
        let reports = try Self.reports(capture.name)
        let (fixes, stats) = decodeAll(UBXStreamDecoder(), bytes)
        #expect(fixes.count == capture.fixes)
        #expect(stats.fixes == fixes.count)
        #expect(stats.brokenFrames == capture.brokenFrames && stats.malformedFrames == 0)
        #expect(stats.ignoredFrames == capture.ignoredFrames)
        #expect(fixes.map(\.milliseconds) == fixes.map(\.milliseconds).sorted(), "in time order")

        let ours = Dictionary(fixes.map { ($0.milliseconds, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(ours.count == fixes.count, "one fix per time")
        let extra = fixes.filter { reports[$0.milliseconds] == nil }.map(\.isoTime)
        let missing = reports.keys.filter { ours[$0] == nil }.sorted().map(isoMilliseconds)
        #expect(extra == capture.extraFixes)
        #expect(missing == [])

        for fix in fixes {
            guard let report = reports[fix.milliseconds] else { continue }
            let time = fix.isoTime
            #expect(fix.mode.rawValue == report.int("mode"), "\(time): mode")
            switch capture.source {
            case .pvt: try Self.comparePVT(fix, report, time)
            case .solution: try Self.compareSolution(fix, report, time, first: fix == fixes.first)
            case .nmea:
                let distance = metres(try report.double("lat"), try report.double("lon"), fix.latitude, fix.longitude)
                #expect(distance <= 0.1, "\(time): position off by \(distance) m")
                #expect(fix.altitude.map { abs($0 - report["altMSL"]!) <= 0.1 } == true, "\(time): altitude")
                #expect(fix.speed.map { abs($0 - report["speed"]!) <= 0.005 } == true, "\(time): speed")
                #expect(fix.horizontalAccuracy != nil)
            }
        }
    }

    static func comparePVT(_ fix: Fix, _ report: Report, _ time: String) throws {
        #expect(abs(fix.latitude - (try report.double("lat"))) <= 1e-9, "\(time): latitude")
        #expect(abs(fix.longitude - (try report.double("lon"))) <= 1e-9, "\(time): longitude")
        #expect(abs(try #require(fix.altitude) - (try report.double("altMSL"))) <= 0.0005, "\(time): altitude")
        #expect(abs(try #require(fix.speed) - (try report.double("speed"))) <= 0.0005, "\(time): speed")
        #expect(abs(try #require(fix.course) - (try report.double("track"))) <= 0.5e-4, "\(time): course")
        if let eph = report["eph"] { #expect(abs(try #require(fix.horizontalAccuracy) - eph) <= 0.0005, "\(time): hAcc") }
        if let epv = report["epv"] { #expect(abs(try #require(fix.verticalAccuracy) - epv) <= 0.0005, "\(time): vAcc") }
        #expect(abs(try #require(fix.speedAccuracy) - (try report.double("eps"))) <= 0.0051, "\(time): sAcc")
        #expect(fix.courseAccuracy != nil, "\(time): headAcc")
    }

    /// gpsd 3.20.1~dev converts a NAV-SOL stream's ECEF to latitude, longitude, height, speed
    /// and track once, at the first epoch, and repeats those values in every later report
    /// (its `.chk` shows `ecefx` changing from epoch to epoch while `lat` does not). So: the
    /// first epoch against gpsd's conversion; every epoch against gpsd's ECEF fields (NAV-SOL's
    /// centimetres as gpsd read them), converted with ``WGS84`` (itself checked against known
    /// points in UBXEpochTests).
    /// A 2D stream (ublox-8-time) has no ECEF fields in gpsd's reports: its later epochs are
    /// only checked to stay within 10 m of gpsd's repeated first position (the receiver stood
    /// still; its 2D solution wanders up to 5 m, with a 3D accuracy of 3.6 m). ublox-neo-m8t
    /// checks every epoch's position.
    static func compareSolution(_ fix: Fix, _ report: Report, _ time: String, first: Bool) throws {
        #expect(fix.altitude == nil, "\(time): NAV-SOL has no height above sea level")
        #expect(abs(try #require(fix.speedAccuracy) - (try report.double("eps"))) <= 0.0051, "\(time): sAcc")
        if let x = report["ecefx"], let y = report["ecefy"], let z = report["ecefz"] {
            let geodetic = WGS84.geodetic(x: x, y: y, z: z)
            let distance = metres(geodetic.latitude, geodetic.longitude, fix.latitude, fix.longitude)
            #expect(distance <= 0.001, "\(time): position off by \(distance) m from gpsd's ECEF")
            let ground = WGS84.groundVelocity(vx: try report.double("ecefvx"), vy: try report.double("ecefvy"),
                                              vz: try report.double("ecefvz"), latitude: geodetic.latitude, longitude: geodetic.longitude)
            #expect(abs(try #require(fix.speed) - ground.speed) <= 0.001, "\(time): speed")
            #expect(abs(try #require(fix.horizontalAccuracy) - (try report.double("ecefpAcc"))) <= 0.005, "\(time): pAcc")
        } else {
            let distance = metres(try report.double("lat"), try report.double("lon"), fix.latitude, fix.longitude)
            #expect(distance <= 10, "\(time): \(distance) m from gpsd's position")
        }
        if first {
            let ours = metres(try report.double("lat"), try report.double("lon"), fix.latitude, fix.longitude)
            #expect(ours <= 0.001, "\(time): position off by \(ours) m from gpsd's")
            let height = try report["ecefx"].map { _ in
                WGS84.geodetic(x: try report.double("ecefx"), y: try report.double("ecefy"), z: try report.double("ecefz")).height
            }
            if let height { #expect(abs(height - (try report.double("altHAE"))) <= 0.001, "\(time): height \(height)") }
            let speed = try report.double("speed")
            #expect(abs(try #require(fix.speed) - speed) <= 0.001, "\(time): speed")
            let course = try #require(fix.course)
            let turn = abs(course - (try report.double("track"))).truncatingRemainder(dividingBy: 360)
            #expect(min(turn, 360 - turn) <= 0.01, "\(time): course \(course)")
        }
    }

    @Test("drip-fed in random chunks: the same fixes and statistics", arguments: captures)
    func dripFed(_ capture: UBXCapture) throws {
        let bytes = try Samples.capture(capture.name)
        let whole = decodeAll(UBXStreamDecoder(), bytes)
        var random = SplitMix(state: FuzzBudget.seed(0x5542_5847_4F4C_44))
        for _ in 0..<4 {
            var decoder = UBXStreamDecoder()
            var fixes: [Fix] = []
            var index = 0
            while index < bytes.count {
                let end = min(bytes.count, index + Int.random(in: 1...700, using: &random))
                decoder.push(bytes[index..<end], into: &fixes)
                index = end
            }
            decoder.finish(into: &fixes)
            #expect(fixes == whole.0)
            #expect(decoder.statistics == whole.1)
        }
    }

    @Test("live: each epoch emitted at its last message once the ender is learned; the same fixes")
    func live() throws {
        for capture in Self.captures {
            let bytes = try Samples.capture(capture.name)
            let file = Self.emissions(UBXStreamDecoder(), bytes)
            let live = Self.emissions(UBXStreamDecoder(closesCyclesEarly: true), bytes)
            #expect(live.fixes == file.fixes, "\(capture.name)")
            #expect(live.late == 0, "\(capture.name)")
            try #require(live.offsets.count == file.offsets.count && live.offsets.count > 2)
            #expect(zip(live.offsets, file.offsets).allSatisfy { $0 <= $1 }, "\(capture.name): never later than from a file")
            if capture.name != "ublox-zed-f9p-hp" { // its NAV-EOE ends each epoch, live or not
                // The first epoch teaches the ender (the second is the first emitted by it); the
                // last may end the input without its ender (ublox-neo-m8n's is cut short).
                #expect(zip(live.offsets, file.offsets).dropFirst().dropLast().allSatisfy { $0 < $1 },
                        "\(capture.name): before the next epoch's first message")
            }
        }
    }

    /// The fixes of `bytes` pushed a byte at a time, and the offset of the byte that emitted each.
    static func emissions(_ decoder: UBXStreamDecoder, _ bytes: [UInt8]) -> (fixes: [Fix], offsets: [Int], late: Int) {
        var decoder = decoder
        var fixes: [Fix] = []
        var offsets: [Int] = []
        for (index, byte) in bytes.enumerated() {
            decoder.push(CollectionOfOne(byte), into: &fixes)
            offsets += Array(repeating: index, count: fixes.count - offsets.count)
        }
        decoder.finish(into: &fixes)
        offsets += Array(repeating: bytes.count, count: fixes.count - offsets.count)
        return (fixes, offsets, decoder.statistics.lateSentences)
    }

    @Test("a capture's first fix, checked by hand against its bytes")
    func handChecks() throws {
        // ublox-neo-m8n.log, first NAV-PVT: 2017-07-19 08:50:00 + nano 799899687 (.800),
        // lon 1386081197e-7, lat -349062263e-7, hMSL 28895 mm, hAcc 1132 mm, vAcc 1602 mm,
        // gSpeed 30 mm/s, headMot 3147178e-5°, sAcc 229 mm/s, headAcc 876392e-5°, fixType 3,
        // flags 0x03 (gnssFixOK, diffSoln), numSV 12, pDOP 161.
        let (m8n, _) = decodeAll(UBXStreamDecoder(), try Samples.capture("ublox-neo-m8n"))
        let first = try #require(m8n.first)
        #expect(first.time == unixTime(2017, 7, 19, 8, 50, 0) && first.nanoseconds == 800_000_000, "rounded to the millisecond")
        #expect(first.latitude == -34.9062263 && first.longitude == 138.6081197)
        #expect(first.altitude == 28.895 && first.horizontalAccuracy == 1.132 && first.verticalAccuracy == 1.602)
        #expect(first.speed == 0.03 && first.speedAccuracy == 0.229)
        let course = try #require(first.course), courseAccuracy = try #require(first.courseAccuracy)
        #expect(abs(course - 31.47178) < 1e-9 && abs(courseAccuracy - 8.76392) < 1e-9)
        #expect(first.quality == .dgps && first.mode == .threeD)

        // ublox-neo-m8t.log, first NAV-SOL: week 2024, iTOW 420964000 ms, fTOW 4363 ns,
        // NAV-TIMEGPS leapS 18 (valid): GPS 1980-01-06 + 2024 weeks + 420964 s = 2018-10-25
        // 20:56:04 GPS = 20:55:46.000004363 UTC, 20:55:46.000 to the millisecond. pAcc 165 cm, sAcc 2 cm/s, pDOP 1.73, numSV 9.
        let (m8t, _) = decodeAll(UBXStreamDecoder(), try Samples.capture("ublox-neo-m8t"))
        let sol = try #require(m8t.first)
        #expect(sol.time == unixTime(2018, 10, 25, 20, 55, 46) && sol.nanoseconds == 0)
        #expect(sol.horizontalAccuracy == 1.65 && sol.speedAccuracy == 0.02 && sol.pdop == 1.73 && sol.satellitesUsed == 9)
    }

    /// gpsd's TPV reports of a capture, by time in milliseconds: the last of each time (gpsd
    /// reports an epoch again at the end of its cycle, with more filled in).
    static func reports(_ name: String) throws -> [Int64: Report] {
        let text = String(decoding: try Samples.bytes("gpsd/\(name).tpv.jsonl"), as: UTF8.self)
        var reports: [Int64: Report] = [:]
        for line in text.split(whereSeparator: \.isNewline) { // gpsd's .chk lines end in CR LF
            let object = try #require(try JSONScan.object(line.utf8), "\(line)")
            guard let time = object["time"] as? String else { continue }
            let report = Report(object: object)
            reports[try Self.milliseconds(time)] = report
        }
        return reports
    }

    /// Milliseconds since 1970 of gpsd's `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    static func milliseconds(_ iso: String) throws -> Int64 {
        let parts = iso.split(whereSeparator: { "-T:.Z".contains($0) }).compactMap { Int($0) }
        try #require(parts.count == 7, "\(iso)")
        return unixTime(parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]) * 1000 + Int64(parts[6])
    }

    struct Report {
        var object: [String: Any]
        subscript(_ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }
        func double(_ key: String) throws -> Double { try #require(self[key], "\(key) in \(object)") }
        func int(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
    }
}
