import OverlandInput
import Testing

@Suite("InputFormat")
struct InputFormatTests {
    @Test("detection from the first meaningful line", arguments: [
        ("$GPGGA,1*00\r\n", InputFormat.nmea as InputFormat?),
        // gpsd's greeting opens gpspipe -r and -w alike: what follows decides.
        ("{\"class\":\"VERSION\"}\n", nil),
        ("{\"class\":\"VERSION\"}\n{\"class\":\"TPV\"}", .gpsdJSON),
        ("{\"class\":\"VERSION\"}\n{\"class\":\"WATCH\"}\n$GPRMC", .nmea),
        ("# comment\n# another\n\n  {\"class\":\"TPV\"}", .gpsdJSON),
        ("# {\"class\":\"VERSION\"} in a comment\n$GPRMC", .nmea),
        ("\u{FEFF}{\"class\":\"TPV\"}", .gpsdJSON),
        ("\r\n\r\n   ", nil),
        ("# an unfinished comment", nil),
        ("", nil),
    ])
    func detect(text: String, expected: InputFormat?) {
        #expect(InputFormat.detect(Array(text.utf8)) == expected)
    }

    @Test("binary data first is NMEA; an undecided stream that ended is NMEA")
    func edges() {
        #expect(InputFormat.detect([0xB5, 0x62, 0x01]) == .nmea)
        #expect(InputFormat.detect([0xEF, 0xBB]) == nil)
        #expect(InputFormat.detect(Array("# only a header\n".utf8), isComplete: true) == .nmea)
    }

    @Test("the captures and the fixtures are told apart")
    func samples() throws {
        for name in Samples.captureNames {
            #expect(InputFormat.detect(try Samples.capture(name)) == .nmea, "\(name)")
        }
        #expect(InputFormat.detect(try Samples.fixture("gpsd-beidou-bd.jsonl")) == .gpsdJSON)
    }
}
