/// What the NAV messages of one navigation epoch (one iTOW) said, merged into one fix when
/// the epoch ends, as gpsd merges a u-blox cycle.
///
/// - NAV-PVT (u-blox 7 and later) is a whole fix: time, position, altitude above sea level,
///   speed, course, and the receiver's accuracies (hAcc, vAcc, sAcc, headAcc). NAV-DOP adds
///   the DOPs.
/// - Without NAV-PVT (u-blox 5 and 6, and later receivers set up as they were), NAV-SOL gives
///   the fix type, GPS time, an ECEF position and velocity, its 3D position accuracy and
///   speed accuracy; NAV-POSLLH, when sent, gives the position in degrees, the height above
///   sea level and the horizontal and vertical accuracies; NAV-VELNED the ground speed,
///   heading and their accuracies. NAV-SOL alone has no height above sea level (only above
///   the ellipsoid, 20 to 50 m away): its fix has no altitude rather than a wrong one, and
///   its horizontal accuracy is the 3D position accuracy (an upper bound).
struct UBXEpoch {
    var timeOfWeek: UInt32
    var pvt: Fix?
    var solution: UBXSolution?
    var position: UBXGeodeticPosition?
    var velocity: UBXGroundVelocity?
    var dilutions: UBXDilutions?

    init(timeOfWeek: UInt32) { self.timeOfWeek = timeOfWeek }

    /// Whether a message of this epoch could make a fix.
    var hasPosition: Bool { pvt != nil || solution != nil }

    /// Why an epoch gave no fix.
    enum Failure: Error { case noFix, undated, outOfRange }

    /// The epoch's fix; `leapSeconds` is GPS minus UTC as the receiver last stated it.
    func fix(leapSeconds: Int?) -> Result<Fix, Failure>? {
        if var fix = pvt {
            if let dilutions {
                fix.pdop = dilutions.pdop
                fix.vdop = dilutions.vdop
                fix.hdop = dilutions.hdop
            }
            return .success(fix)
        }
        guard let solution else { return nil }
        return Self.fix(solution, position, velocity, dilutions, leapSeconds: leapSeconds)
    }

    private static func fix(
        _ s: UBXSolution, _ position: UBXGeodeticPosition?, _ velocity: UBXGroundVelocity?, _ dilutions: UBXDilutions?,
        leapSeconds: Int?
    ) -> Result<Fix, Failure> {
        guard s.fixOK, [2, 3, 4, 5].contains(s.fixType) else { return .failure(.noFix) }
        guard s.timeValid, s.week > 0 else { return .failure(.undated) }
        let utc = GPSTime.utc(week: s.week, milliseconds: s.timeOfWeek, nanoseconds: s.fraction, leapSeconds: leapSeconds)
        let (time, nanoseconds) = roundedToMillisecond(utc.time, Int64(utc.nanoseconds))
        let threeD = s.fixType != 2
        let ecef = WGS84.geodetic(x: s.x, y: s.y, z: s.z)
        let latitude = position?.latitude ?? ecef.latitude
        let longitude = position?.longitude ?? ecef.longitude
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            return .failure(.outOfRange)
        }
        let ground = WGS84.groundVelocity(vx: s.vx, vy: s.vy, vz: s.vz, latitude: ecef.latitude, longitude: ecef.longitude)
        return .success(Fix(
            time: time, nanoseconds: nanoseconds, latitude: latitude, longitude: longitude,
            altitude: threeD ? position?.seaLevelHeight : nil,
            speed: velocity?.speed ?? ground.speed,
            course: UBXEpoch.normalised(velocity?.course ?? ground.course),
            mode: threeD ? .threeD : .twoD,
            quality: UBXEpoch.quality(fixType: s.fixType, differential: s.differential, carrier: 0),
            satellitesUsed: s.satellites,
            pdop: dilutions?.pdop ?? s.pdop, hdop: dilutions?.hdop, vdop: dilutions?.vdop,
            horizontalAccuracy: position?.horizontalAccuracy ?? s.positionAccuracy,
            verticalAccuracy: threeD ? position?.verticalAccuracy : nil,
            speedAccuracy: velocity?.speedAccuracy ?? s.speedAccuracy,
            courseAccuracy: velocity?.courseAccuracy))
    }

    /// The fix of a NAV-PVT payload (84 bytes on u-blox 7, 92 from u-blox 8 on).
    static func pvt(_ p: ArraySlice<UInt8>) -> Result<Fix, Failure> {
        typealias M = UBXMessage
        let valid = M.u8(p, 11)
        let fixType = M.u8(p, 20)
        let flags = M.u8(p, 21)
        guard flags & 0x01 != 0, [2, 3, 4, 5].contains(fixType) else { return .failure(.noFix) }
        guard valid & 0x03 == 0x03,
              let date = CivilDate(year: Int(M.u16(p, 4)), month: Int(M.u8(p, 6)), day: Int(M.u8(p, 7))),
              M.u8(p, 8) < 24, M.u8(p, 9) < 60, M.u8(p, 10) <= 60 else {
            return .failure(.undated)
        }
        let second = date.daysSinceEpoch * 86_400 + Int64(M.u8(p, 8)) * 3600 + Int64(M.u8(p, 9)) * 60 + Int64(M.u8(p, 10))
        let (time, nanoseconds) = roundedToMillisecond(second, Int64(M.i32(p, 16)))
        let threeD = fixType != 2
        let latitude = Double(M.i32(p, 28)) * 1e-7
        let longitude = Double(M.i32(p, 24)) * 1e-7
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else { return .failure(.outOfRange) }
        return .success(Fix(
            time: time, nanoseconds: nanoseconds, latitude: latitude, longitude: longitude,
            altitude: threeD ? Double(M.i32(p, 36)) / 1000 : nil,
            speed: Double(M.i32(p, 60)) / 1000,
            course: normalised(Double(M.i32(p, 64)) * 1e-5),
            mode: threeD ? .threeD : .twoD,
            quality: quality(fixType: fixType, differential: flags & 0x02 != 0, carrier: (flags >> 6) & 0x03),
            satellitesUsed: Int(M.u8(p, 23)),
            pdop: Double(M.u16(p, 76)) / 100,
            horizontalAccuracy: Double(M.u32(p, 40)) / 1000,
            verticalAccuracy: threeD ? Double(M.u32(p, 44)) / 1000 : nil,
            speedAccuracy: Double(M.u32(p, 68)) / 1000,
            courseAccuracy: Double(M.u32(p, 72)) * 1e-5))
    }

    /// A time and a signed fraction of a second in nanoseconds (u-blox's `nano`, `fTOW`),
    /// rounded to the millisecond of the navigation epoch, as gpsd reports it: the epochs
    /// fall on whole milliseconds of GPS time, and the nanoseconds beyond are the receiver's
    /// clock estimate (2019-04-22T21:19:20 less 127,759 ns is the epoch of 21:19:20.000, not a
    /// fix of 21:19:19 once a logger keeps whole seconds).
    static func roundedToMillisecond(_ second: Int64, _ nanoseconds: Int64) -> (time: Int64, nanoseconds: Int32) {
        var time = second
        var milliseconds = nanoseconds >= 0 ? (nanoseconds + 500_000) / 1_000_000 : -((-nanoseconds + 499_999) / 1_000_000)
        while milliseconds < 0 {
            milliseconds += 1000
            time -= 1
        }
        while milliseconds >= 1000 {
            milliseconds -= 1000
            time += 1
        }
        return (time, Int32(milliseconds * 1_000_000))
    }

    /// Fix type 5 ("time only") is a timing receiver's fixed position, surveyed in or
    /// entered: 3D as in gpsd, with the quality of a position set by hand.
    static func quality(fixType: UInt8, differential: Bool, carrier: UInt8) -> FixQuality {
        if fixType == 5 { return .manual }
        if carrier == 2 { return .rtkFixed }
        if carrier == 1 { return .rtkFloat }
        return differential ? .dgps : .gps
    }

    static func normalised(_ degrees: Double) -> Double {
        let d = degrees.truncatingRemainder(dividingBy: 360)
        return d < 0 ? d + 360 : d
    }
}
