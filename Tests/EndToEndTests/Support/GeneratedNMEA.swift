import Foundation

/// NMEA epochs made up in the test, so a test needs no capture beside the repository: a
/// receiver driving north-east from 45.5 N 77.7 W at about 14 m/s, one epoch per second,
/// each GGA, GSA, RMC, VTG (SiRF order, as drive.nmea) with checksums and CRLF.
enum GeneratedNMEA {
    /// 2020-02-14T18:05:42Z.
    static let defaultStart: Int64 = 1_581_703_542

    /// The Unix time of epoch `index` from `start`.
    static func time(_ index: Int, start: Int64 = defaultStart) -> Int64 { start + Int64(index) }

    /// Epoch `index`, at `start + index` seconds; `dateOverride` replaces RMC's ddmmyy.
    static func epoch(_ index: Int, start: Int64 = defaultStart, dateOverride: String? = nil) -> String {
        let t = time(index, start: start)
        var seconds = time_t(t)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let hhmmss = String(format: "%02d%02d%02d.000", parts.tm_hour, parts.tm_min, parts.tm_sec)
        let ddmmyy = dateOverride ?? String(format: "%02d%02d%02d", parts.tm_mday, parts.tm_mon + 1, parts.tm_year % 100)
        let latitude = 45.5 + Double(index) * 0.0001
        let longitude = -77.7 + Double(index) * 0.0001
        let lat = nmeaAngle(latitude, degreeDigits: 2), lon = nmeaAngle(-longitude, degreeDigits: 3)
        return nmea("GPGGA,\(hhmmss),\(lat),N,\(lon),W,1,08,1.0,311.0,M,,,,")
            + nmea("GPGSA,A,3,02,05,06,12,13,15,19,25,,,,,1.8,1.0,1.5")
            + nmea("GPRMC,\(hhmmss),A,\(lat),N,\(lon),W,27.50,45.0,\(ddmmyy),,,A")
            + nmea("GPVTG,45.0,T,,M,27.50,N,50.93,K,A")
    }

    /// Epochs `range`, joined.
    static func epochs(_ range: Range<Int>, start: Int64 = defaultStart) -> String {
        range.map { epoch($0, start: start) }.joined()
    }

    /// Degrees as NMEA's `dddmm.mmmm`.
    static func nmeaAngle(_ degrees: Double, degreeDigits: Int) -> String {
        let whole = Int(degrees)
        let minutes = (degrees - Double(whole)) * 60
        return String(format: "%0\(degreeDigits)d%07.4f", whole, minutes)
    }
}
