import OverlandInput

/// UBX frames built in the tests from known values, per u-blox's interface descriptions
/// (u-blox 6 GPS.G6-SW-10018, F9 UBX-18010854). Real captures with gpsd's reports are in
/// UBXGoldenCaptureTests.
enum UBX {
    static func frame(class messageClass: UInt8, id: UInt8, payload: [UInt8]) -> [UInt8] {
        let body = [messageClass, id, UInt8(payload.count & 0xFF), UInt8(payload.count >> 8)] + payload
        let (a, b) = UBXStreamDecoder.checksum(body)
        return [0xB5, 0x62] + body + [a, b]
    }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    struct PVT {
        var iTOW: UInt32 = 417_600_000
        var year = 2026, month = 11, day = 20, hour = 12, minute = 30, second = 15
        var nano: Int32 = 0
        var valid: UInt8 = 0x07
        var fixType: UInt8 = 3
        var flags: UInt8 = 0x01
        var numSV: UInt8 = 14
        var latitude = 47.6062095, longitude = -122.3320708
        var height = 30.5, hMSL = 52.25
        var hAcc = 1.234, vAcc = 2.5, gSpeed = 13.9, headMot = 271.5, sAcc = 0.21, headAcc = 0.75, pDOP = 1.33

        func payload() -> [UInt8] {
            var p: [UInt8] = le(iTOW)
            p += le(UInt16(year)) + [UInt8(month), UInt8(day), UInt8(hour), UInt8(minute), UInt8(second), valid]
            p += le(UInt32(25)) + le(nano) + [fixType, flags, 0, numSV]
            p += le(Int32((longitude * 1e7).rounded())) + le(Int32((latitude * 1e7).rounded()))
            p += le(Int32((height * 1000).rounded())) + le(Int32((hMSL * 1000).rounded()))
            p += le(UInt32((hAcc * 1000).rounded())) + le(UInt32((vAcc * 1000).rounded()))
            p += le(Int32(0)) + le(Int32(0)) + le(Int32(0)) // velN, velE, velD
            p += le(Int32((gSpeed * 1000).rounded())) + le(Int32((headMot * 1e5).rounded()))
            p += le(UInt32((sAcc * 1000).rounded())) + le(UInt32((headAcc * 1e5).rounded()))
            p += le(UInt16((pDOP * 100).rounded())) + [0, 0, 0, 0, 0, 0] // flags3, reserved
            p += le(Int32(0)) + le(Int16(0)) + le(UInt16(0)) // headVeh, magDec, magAcc
            precondition(p.count == 92)
            return p
        }

        func frame() -> [UInt8] { UBX.frame(class: 0x01, id: 0x07, payload: payload()) }
    }

    static func dop(iTOW: UInt32, pDOP: Double, vDOP: Double, hDOP: Double) -> [UInt8] {
        let p = le(iTOW) + le(UInt16(150)) + le(UInt16((pDOP * 100).rounded())) + le(UInt16(90))
            + le(UInt16((vDOP * 100).rounded())) + le(UInt16((hDOP * 100).rounded())) + le(UInt16(60)) + le(UInt16(70))
        return frame(class: 0x01, id: 0x04, payload: p)
    }

    /// NAV-SOL in GPS week 2444 (from 2026-11-08) at `iTOW`, fix type 3, an ECEF position and velocity.
    static func solution(iTOW: UInt32, fixType: UInt8 = 3, flags: UInt8 = 0x0D, x: Double, y: Double, z: Double,
                         vx: Double = 0, vy: Double = 0, vz: Double = 0, pAcc: Double = 3.5, sAcc: Double = 0.4) -> [UInt8] {
        var p = le(iTOW) + le(Int32(0)) + le(Int16(2444)) + [fixType, flags]
        p += le(Int32((x * 100).rounded())) + le(Int32((y * 100).rounded())) + le(Int32((z * 100).rounded()))
        p += le(UInt32((pAcc * 100).rounded()))
        p += le(Int32((vx * 100).rounded())) + le(Int32((vy * 100).rounded())) + le(Int32((vz * 100).rounded()))
        p += le(UInt32((sAcc * 100).rounded())) + le(UInt16(210)) + [0, 9] + [0, 0, 0, 0]
        precondition(p.count == 52)
        return frame(class: 0x01, id: 0x06, payload: p)
    }

    /// NAV-POSLLH: position, heights in metres, accuracies in metres.
    static func positionLLH(iTOW: UInt32, latitude: Double, longitude: Double, height: Double, hMSL: Double,
                            hAcc: Double, vAcc: Double) -> [UInt8] {
        let p = le(iTOW) + le(Int32((longitude * 1e7).rounded())) + le(Int32((latitude * 1e7).rounded()))
            + le(Int32((height * 1000).rounded())) + le(Int32((hMSL * 1000).rounded()))
            + le(UInt32((hAcc * 1000).rounded())) + le(UInt32((vAcc * 1000).rounded()))
        return frame(class: 0x01, id: 0x02, payload: p)
    }

    /// NAV-VELNED: ground speed (m/s), heading (°) and their accuracies.
    static func velocityNED(iTOW: UInt32, speed: Double, heading: Double, sAcc: Double, cAcc: Double) -> [UInt8] {
        let p = le(iTOW) + le(Int32(0)) + le(Int32(0)) + le(Int32(0)) + le(UInt32((speed * 100).rounded()))
            + le(UInt32((speed * 100).rounded())) + le(Int32((heading * 1e5).rounded()))
            + le(UInt32((sAcc * 100).rounded())) + le(UInt32((cAcc * 1e5).rounded()))
        return frame(class: 0x01, id: 0x12, payload: p)
    }

    /// NAV-TIMEGPS with the leap seconds (valid) at `iTOW`.
    static func timeGPS(iTOW: UInt32, leapSeconds: Int8) -> [UInt8] {
        let p = le(iTOW) + le(Int32(0)) + le(Int16(2444)) + [UInt8(bitPattern: leapSeconds), 0x07] + le(UInt32(20))
        return frame(class: 0x01, id: 0x20, payload: p)
    }

    static func endOfEpoch(iTOW: UInt32) -> [UInt8] { frame(class: 0x01, id: 0x61, payload: le(iTOW)) }

    /// u-blox's NMEA for the same epoch (fewer digits, no accuracy), as sent between frames.
    static func nmea(_ pvt: PVT) -> [UInt8] {
        let time = String(format: "%02d%02d%02d.00", pvt.hour, pvt.minute, pvt.second)
        let date = String(format: "%02d%02d%02d", pvt.day, pvt.month, pvt.year % 100)
        let text = checksummed("$GNRMC,\(time),A,4736.37257,N,12219.92425,W,27.020,271.50,\(date),,,A") + "\r\n"
            + checksummed("$GNGGA,\(time),4736.37257,N,12219.92425,W,1,14,0.80,52.2,M,-21.7,M,,") + "\r\n"
        return Array(text.utf8)
    }
}
