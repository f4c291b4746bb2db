import OverlandInput
import Testing

@testable import OverlandRecorder

/// Input detection: `gpspipe -r` (NMEA after gpsd's JSON greeting), `gpspipe -w` (JSON),
/// plain NMEA; the same fixes whatever the chunking.
@Suite struct FixSourceTests {
    /// What `gpspipe -r` prints: gpsd's greeting as JSON, then the NMEA it relays.
    static let greeting = """
        {"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}
        {"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/pts/1","activated":"2026-11-21T05:41:09.402Z","native":0,"bps":4800,"parity":"N","stopbits":1,"cycle":1.00}]}
        {"class":"WATCH","enable":true,"json":false,"nmea":true,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}

        """
    static let nmea = """
        $GPGGA,180542.000,4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,*1F\r
        $GPGSA,A,3,02,05,06,12,13,15,19,25,,,,,1.8,1.0,1.5*35\r
        $GPRMC,180542.000,A,4529.4585,N,07741.7789,W,2.75,205.4,140220,,,A*42\r
        $GPVTG,205.4,T,,M,2.75,N,5.09,K,A*02\r
        $GPGGA,180545.000,4529.4554,N,07741.7810,W,1,08,1.0,310.0,M,,,,*1A\r
        $GPGSA,A,3,02,05,06,12,13,15,19,25,,,,,1.8,1.0,1.5*35\r
        $GPRMC,180545.000,A,4529.4554,N,07741.7810,W,5.18,265.8,140220,,,A*40\r
        $GPVTG,265.8,T,,M,5.18,N,9.60,K,A*07\r

        """
    static let tpv = """
        {"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2024-06-09T00:06:53.000Z","ept":0.005,"lat":44.068832333,"lon":-121.314102167,"alt":1109.2,"speed":0.027}

        """

    static func detect(_ text: String, isComplete: Bool = false) -> InputFormat? {
        InputFormat.detect(Array(text.utf8), isComplete: isComplete)
    }

    @Test func greetingDecidesNothing() {
        #expect(Self.detect(Self.greeting) == nil, "wait for what follows the greeting")
        #expect(Self.detect(Self.greeting + Self.nmea) == .nmea, "gpspipe -r")
        #expect(Self.detect(Self.greeting + Self.tpv) == .gpsdJSON, "gpspipe -w")
        #expect(Self.detect(Self.greeting + "{\"class\":\"SKY\"") == .gpsdJSON, "a report that is no greeting decides at once")
        #expect(Self.detect(Self.greeting + "{\"class\":\"DEV") == nil, "a line that may become a greeting waits")
        #expect(Self.detect(Self.greeting + "$GP") == .nmea)
        #expect(Self.detect("# a capture header\n" + Self.nmea) == .nmea)
        #expect(Self.detect(Self.tpv) == .gpsdJSON)
        #expect(Self.detect("{") == nil)
        #expect(Self.detect("") == nil)
        #expect(Self.detect(Self.greeting, isComplete: true) != nil)
    }

    static func fixes(_ text: String, chunk: Int) -> [Fix] {
        var source = FixSource(choice: .automatic, datePolicy: .fromStreamOnly)
        var fixes: [Fix] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let end = chunk == 0 ? bytes.count : min(index + chunk, bytes.count)
            bytes[index..<end].withUnsafeBytes { source.push($0, into: &fixes) }
            index = end
        }
        source.finish(into: &fixes)
        return fixes
    }

    @Test(arguments: [0, 1, 2, 7, 64])
    func gpspipeRawGivesTheNMEAFixesInAnyChunks(chunk: Int) {
        let fixes = Self.fixes(Self.greeting + Self.nmea, chunk: chunk)
        #expect(fixes.map(\.time) == [1_581_703_542, 1_581_703_545])
        #expect(fixes == Self.fixes(Self.nmea, chunk: 0), "the greeting changes nothing")
    }

    @Test(arguments: [0, 1, 7])
    func gpspipeJSONGivesTheTPVFix(chunk: Int) {
        let fixes = Self.fixes(Self.greeting + Self.tpv, chunk: chunk)
        #expect(fixes.map(\.time) == [1_717_891_613])
        #expect(fixes.first?.latitude == 44.068832333)
    }
}
