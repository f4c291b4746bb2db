@testable import OverlandInput
import Testing

/// Numbers with extreme lengths: a decimal is never indexed past the powers of ten it has.
@Suite("NMEA numbers with extreme lengths")
struct ExtremeNumberTests {
    @Test("fractions of 19 to 400 digits read as the value the first 19 places hold", arguments: [19, 20, 21, 40, 400])
    func longFractions(places: Int) throws {
        let tiny = "0." + String(repeating: "0", count: places - 1) + "1"
        let s = try sentence(checksummed("$GPGGA,202640.000,4404.1306,N,12118.8515,W,1,10,\(tiny),1127.7,M,-19.6,M,,"))
        // Past 19 places the value reads as 0, which as a DOP means "not given".
        if places <= NMEAField.maxFractionDigits {
            #expect(s.hdop.map { abs($0 - 1e-19) < 1e-25 } == true, "\(String(describing: s.hdop))")
        } else {
            #expect(s.hdop == nil || s.hdop == 0, "\(String(describing: s.hdop))")
        }
        #expect(s.latitude != nil, "the sentence decodes")
        let speed = try sentence(checksummed("$GPRMC,202640.000,A,4404.1306,N,12118.8515,W,\(tiny),\(tiny),240226,,,A"))
        #expect(speed.speed.map { $0 >= 0 && $0 < 1e-18 } == true)
    }

    @Test("a coordinate with 30 decimals of minutes")
    func longCoordinate() throws {
        let s = try sentence(checksummed("$GPGLL,4404." + String(repeating: "9", count: 30) + ",N,12118.000000000000000000000000001,W,171925.00,A,A"))
        #expect(s.latitude.map { abs($0 - (44 + 5.0 / 60)) < 1e-9 } == true)
        #expect(s.longitude.map { abs($0 - -(121 + 18.0 / 60)) < 1e-9 } == true)
    }

    @Test("every field of every sentence type with a 25-digit fraction decodes or is refused, never traps")
    func everyField() {
        let bodies = [
            "$GPRMC,202640.000,A,4404.1306,N,12118.8515,W,0.13,309.62,240226,,,A",
            "$GPGGA,202640.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000",
            "$GNGNS,202640.00,4404.1306,N,12118.8515,W,AANN,10,0.98,1127.7,-19.6,,",
            "$GPGLL,4404.1306,N,12118.8515,W,202640.000,A,A",
            "$GPGSA,A,3,02,03,04,,,,,,,,,,5.1,1.3,4.9",
            "$GPGST,202640.00,1.2,0.5,0.3,45.0,0.6,0.5,1.1",
            "$GPVTG,309.62,T,,M,0.13,N,0.24,K,A",
            "$GPZDA,202640.00,24,02,2026,00,00",
        ]
        let long = "0." + String(repeating: "0", count: 24) + "1"
        for body in bodies {
            let fields = body.split(separator: ",", omittingEmptySubsequences: false)
            for index in 1..<fields.count {
                var changed = fields
                changed[index] = Substring(long)
                _ = decodeResult(checksummed(changed.joined(separator: ",")))
            }
        }
    }
}
