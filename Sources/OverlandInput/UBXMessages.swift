/// The UBX NAV messages a fix is made of, read from their payloads (u-blox's interface
/// descriptions: u-blox 6 GPS.G6-SW-10018, u-blox 8 UBX-13003221, F9 UBX-18010854).
/// Each reader takes a payload of at least its message's length; ``UBXStreamDecoder`` checks.
enum UBXMessage {
    /// NAV class.
    static let navigation: UInt8 = 0x01

    /// Message ids of the NAV class.
    enum ID {
        static let posECEF: UInt8 = 0x01, posLLH: UInt8 = 0x02, status: UInt8 = 0x03, dop: UInt8 = 0x04
        static let solution: UInt8 = 0x06, pvt: UInt8 = 0x07, velECEF: UInt8 = 0x11, velNED: UInt8 = 0x12
        static let timeGPS: UInt8 = 0x20, timeUTC: UInt8 = 0x21, clock: UInt8 = 0x22
        static let svInfo: UInt8 = 0x30, sbas: UInt8 = 0x32, satellites: UInt8 = 0x35, endOfEpoch: UInt8 = 0x61
    }

    /// NAV messages whose payload starts with the epoch's iTOW (GPS time of week, ms): the
    /// messages an epoch is grouped by.
    static let startsWithTimeOfWeek: Set<UInt8> = [
        ID.posECEF, ID.posLLH, ID.status, ID.dop, ID.solution, ID.pvt, ID.velECEF, ID.velNED,
        ID.timeGPS, ID.timeUTC, ID.clock, ID.svInfo, ID.sbas, ID.satellites, ID.endOfEpoch,
    ]

    /// Shortest payloads read.
    static let minimumLength: [UInt8: Int] = [
        ID.pvt: 84, ID.solution: 52, ID.posLLH: 28, ID.velNED: 36, ID.dop: 18, ID.timeGPS: 16,
    ]

    // MARK: - Little-endian fields

    static func u16(_ p: ArraySlice<UInt8>, _ offset: Int) -> UInt16 {
        UInt16(p[p.startIndex + offset]) | UInt16(p[p.startIndex + offset + 1]) << 8
    }

    static func u32(_ p: ArraySlice<UInt8>, _ offset: Int) -> UInt32 {
        let i = p.startIndex + offset
        return UInt32(p[i]) | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2]) << 16 | UInt32(p[i + 3]) << 24
    }

    static func i16(_ p: ArraySlice<UInt8>, _ offset: Int) -> Int16 { Int16(bitPattern: u16(p, offset)) }
    static func i32(_ p: ArraySlice<UInt8>, _ offset: Int) -> Int32 { Int32(bitPattern: u32(p, offset)) }
    static func u8(_ p: ArraySlice<UInt8>, _ offset: Int) -> UInt8 { p[p.startIndex + offset] }

    static func timeOfWeek(_ p: ArraySlice<UInt8>) -> UInt32 { u32(p, 0) }
}

/// UBX-NAV-SOL (1, 6; u-blox 5 to 8): the navigation solution in ECEF with GPS time.
struct UBXSolution {
    /// GPS week, time of week in ms and its fraction in ns.
    var week: Int, timeOfWeek: UInt32, fraction: Int32
    /// gpsFix: 0 none, 1 dead reckoning only, 2 2D, 3 3D, 4 GNSS + dead reckoning, 5 time only.
    var fixType: UInt8
    /// gpsFixOK, diffSoln, and whether the week and the time of week are valid.
    var fixOK: Bool, differential: Bool, timeValid: Bool
    /// ECEF position and velocity in metres and m/s; 3D position and speed accuracy.
    var x: Double, y: Double, z: Double, positionAccuracy: Double
    var vx: Double, vy: Double, vz: Double, speedAccuracy: Double
    var pdop: Double, satellites: Int

    init(_ p: ArraySlice<UInt8>) {
        typealias M = UBXMessage
        timeOfWeek = M.u32(p, 0)
        fraction = M.i32(p, 4)
        week = Int(M.i16(p, 8))
        fixType = M.u8(p, 10)
        let flags = M.u8(p, 11)
        fixOK = flags & 0x01 != 0
        differential = flags & 0x02 != 0
        timeValid = flags & 0x0C == 0x0C
        x = Double(M.i32(p, 12)) / 100
        y = Double(M.i32(p, 16)) / 100
        z = Double(M.i32(p, 20)) / 100
        positionAccuracy = Double(M.u32(p, 24)) / 100
        vx = Double(M.i32(p, 28)) / 100
        vy = Double(M.i32(p, 32)) / 100
        vz = Double(M.i32(p, 36)) / 100
        speedAccuracy = Double(M.u32(p, 40)) / 100
        pdop = Double(M.u16(p, 44)) / 100
        satellites = Int(M.u8(p, 47))
    }
}

/// UBX-NAV-POSLLH (1, 2): position in degrees, height above sea level, accuracies.
struct UBXGeodeticPosition {
    var latitude: Double, longitude: Double, seaLevelHeight: Double
    var horizontalAccuracy: Double, verticalAccuracy: Double

    init(_ p: ArraySlice<UInt8>) {
        longitude = Double(UBXMessage.i32(p, 4)) * 1e-7
        latitude = Double(UBXMessage.i32(p, 8)) * 1e-7
        seaLevelHeight = Double(UBXMessage.i32(p, 16)) / 1000
        horizontalAccuracy = Double(UBXMessage.u32(p, 20)) / 1000
        verticalAccuracy = Double(UBXMessage.u32(p, 24)) / 1000
    }
}

/// UBX-NAV-VELNED (1, 0x12): ground speed, heading and their accuracies.
struct UBXGroundVelocity {
    var speed: Double, course: Double, speedAccuracy: Double, courseAccuracy: Double

    init(_ p: ArraySlice<UInt8>) {
        speed = Double(UBXMessage.u32(p, 20)) / 100
        course = Double(UBXMessage.i32(p, 24)) * 1e-5
        speedAccuracy = Double(UBXMessage.u32(p, 28)) / 100
        courseAccuracy = Double(UBXMessage.u32(p, 32)) * 1e-5
    }
}

/// UBX-NAV-DOP (1, 4): the dilutions of precision.
struct UBXDilutions {
    var pdop: Double, vdop: Double, hdop: Double

    init(_ p: ArraySlice<UInt8>) {
        pdop = Double(UBXMessage.u16(p, 6)) / 100
        vdop = Double(UBXMessage.u16(p, 10)) / 100
        hdop = Double(UBXMessage.u16(p, 12)) / 100
    }
}
