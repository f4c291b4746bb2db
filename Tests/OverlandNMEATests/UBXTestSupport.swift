import OverlandNMEA

/// UBX frames built in the tests from known values. No real UBX capture with gpsd's
/// reports is at hand offline (the gpsd captures beside the repository carry NMEA only, and
/// Debian's gpsd source with test/daemon/*.ubx is not available here), so the expected
/// values are the ones encoded, per u-blox's interface description (UBX-18010854).
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
