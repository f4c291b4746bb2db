import OverlandInput
import Testing

@Suite("NMEAChecksum and ChecksumPolicy")
struct NMEAChecksumTests {
    @Test("valid checksums, upper and lower case hex", arguments: [
        "$GPGGA,202640.000,4404.1306,N,12118.8515,W,2,10,0.98,1127.7,M,-19.6,M,0000,0000*6C",
        "$GPRMC,205150.00,V,,,,,,,,,,,V*4a",  // magellan-ec10.log: lower-case hex
        "$GPRMC,205150.00,V,,,,,,,,,,,V*4A",
        "$GPZDA,202640.000,13,04,2015,,*54  ",  // trailing spaces
    ])
    func valid(line: String) {
        #expect(NMEAChecksum.verify(Array(line.utf8)) == .valid)
    }

    @Test("bad or garbled checksums", arguments: [
        // firefly-II.log: the GGA checksums are wrong (its quality field is empty, too).
        "$GPGGA,005947.00,3715.6616,N,12157.6709,W,,11,0.8,86.0,M,-30.1,M,,*54",
        "$GPZDA,202640.000,13,04,2015,,*55",
        "$GPZDA,202640.000,13,04,2015,,*5",
        "$GPZDA,202640.000,13,04,2015,,*5G",
        "$GPZDA,202640.000,13,04,2015,,*",
    ])
    func invalid(line: String) {
        #expect(NMEAChecksum.verify(Array(line.utf8)) == .invalid)
        #expect(decodeResult(line) == .badChecksum)
    }

    @Test("a missing checksum")
    func missing() {
        // hp58534a.log: the HP 58534A never sends checksums.
        let line = "$GPGGA,222449,3349.0337,S,01843.9282,E,1,07,02.31,000115.4,M,0033.3,M,,"
        #expect(NMEAChecksum.verify(Array(line.utf8)) == .missing)
        #expect(decodeResult(line, checksumPolicy: .required) == .missingChecksum)
        guard case .sentence(let s) = decodeResult(line, checksumPolicy: .optional) else {
            Issue.record("not accepted")
            return
        }
        #expect(!s.isChecksummed)
        #expect(s.altitude == 115.4)
    }

    @Test("requiredOnceSeen: checksum-less sentences pass until a checksummed one arrives")
    func requiredOnceSeen() {
        var decoder = NMEASentenceDecoder(checksumPolicy: .requiredOnceSeen)
        let bare = Array("$GPZDA,222449,25,10,2010,+00,00".utf8)
        #expect(decoder.decode(bare) != .missingChecksum)
        #expect(!decoder.hasSeenChecksum)
        // ublox-8.log ends with a truncated line: "$GNRMC,001053.00,A,4404.14083,N,12118.85886,W,0."
        _ = decoder.decode(Array("$GPZDA,202640.000,13,04,2015,,*54".utf8))
        #expect(decoder.hasSeenChecksum)
        #expect(decoder.decode(bare) == .missingChecksum)
        #expect(decoder.decode(Array("$GNRMC,001053.00,A,4404.14083,N,12118.85886,W,0.".utf8)) == .missingChecksum)
    }

    @Test("compute matches a real sentence")
    func compute() {
        // drive.nmea: $GPVTG,205.4,T,,M,2.75,N,5.09,K,A*02
        #expect(NMEAChecksum.compute("GPVTG,205.4,T,,M,2.75,N,5.09,K,A".utf8) == 0x02)
        #expect(checksummed("$GPVTG,205.4,T,,M,2.75,N,5.09,K,A") == "$GPVTG,205.4,T,,M,2.75,N,5.09,K,A*02")
    }
}
