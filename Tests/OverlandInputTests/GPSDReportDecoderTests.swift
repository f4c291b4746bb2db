import OverlandInput
import Testing

@Suite("gpsd JSON")
struct GPSDReportDecoderTests {
    func decode(_ line: String) -> GPSDDecodeResult { GPSDReportDecoder.decode(Array(line.utf8)) }

    @Test("a 3D TPV from gpsd 3.22 (quectel-l76k replay), by hand")
    func threeD() throws {
        let line = #"{"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2026-08-05T05:52:34.400Z","ept":0.005,"lat":47.661981667,"lon":-122.326393500,"altHAE":54.9000,"altMSL":76.5000,"alt":76.5000,"epx":8.955,"epy":11.047,"epv":27.600,"track":286.3500,"magtrack":301.7406,"magvar":15.4,"speed":0.000,"climb":0.000,"eps":110.47,"epc":276.00,"geoidSep":-21.600,"eph":17.100,"sep":28.500}"#
        guard case .fix(let fix) = decode(line) else {
            Issue.record("no fix")
            return
        }
        #expect(fix.time == unixTime(2026, 8, 5, 5, 52, 34))
        #expect(fix.nanoseconds == 400_000_000)
        #expect(fix.latitude == 47.661981667)
        #expect(fix.longitude == -122.3263935)
        #expect(fix.altitude == 76.5)  // altMSL, not altHAE
        #expect(fix.speed == 0)
        #expect(fix.course == 286.35)
        #expect(fix.mode == .threeD)
        #expect(fix.horizontalAccuracy == 11.047)  // max(epx, epy)
        #expect(fix.verticalAccuracy == 27.6)
        #expect(fix.speedAccuracy == 110.47)
        #expect(fix.courseAccuracy == nil)  // no epd
        #expect(fix.quality == nil)
    }

    @Test("a 2D TPV: no altitude, no vertical accuracy; status becomes quality")
    func twoD() {
        let line = #"{"class":"TPV","device":"/dev/ttyUSB0","status":2,"mode":2,"time":"2014-02-19T20:41:32.000Z","ept":0.005,"lat":42.095557933,"lon":-88.034018500,"alt":221.9,"epv":30.0,"track":21.4040,"speed":4.843,"epd":12.5,"eph":9.5}"#
        guard case .fix(let fix) = decode(line) else {
            Issue.record("no fix")
            return
        }
        #expect(fix.mode == .twoD)
        #expect(fix.altitude == nil)
        #expect(fix.verticalAccuracy == nil)
        #expect(fix.horizontalAccuracy == 9.5)  // eph without epx/epy
        #expect(fix.courseAccuracy == 12.5)
        #expect(fix.quality == .dgps)
    }

    @Test("TPV without a usable fix", arguments: [
        #"{"class":"TPV","device":"/dev/pts/1","mode":1}"#,
        #"{"class":"TPV","device":"/dev/pts/1","mode":0,"time":"2024-06-09T00:07:06.000Z"}"#,
        #"{"class":"TPV","device":"/dev/pts/1","mode":1,"time":"2024-06-09T00:07:06.000Z","ept":0.005}"#,
        // gpsd 3.22 on beidou-bd.log: a 3D fix without a time.
        #"{"class":"TPV","device":"/dev/pts/1","mode":3,"lat":31.247950000,"lon":121.587438333,"altMSL":156.9}"#,
        #"{"class":"TPV","mode":3,"time":"2024-06-09T00:07:06.000Z","lat":44.0}"#,
        #"{"class":"TPV","device":"/dev/pts/1"}"#,
    ])
    func noFix(line: String) {
        #expect(decode(line) == .noFix)
    }

    @Test("other classes are ignored by name")
    func ignored() {
        #expect(decode(#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#) == .ignored("VERSION"))
        #expect(decode(#"{"class":"SKY","device":"/dev/pts/1","nSat":8,"uSat":0,"satellites":[]}"#) == .ignored("SKY"))
        #expect(decode(#"{"class":"WATCH","enable":true,"json":true}"#) == .ignored("WATCH"))
    }

    @Test("garbage and out-of-range members are malformed", arguments: [
        "", "garbage", "{", "[]", #"{"mode":3}"#, #"{"class":3}"#, "\u{0}\u{1}",
        #"{"class":"TPV","mode":3,"time":"2024-06-09T00:07:06.000Z","lat":91.0,"lon":0.0}"#,
        #"{"class":"TPV","mode":3,"time":"2024-06-09T00:07:06.000Z","lat":45.0,"lon":-180.5}"#,
        #"{"class":"TPV","mode":3,"time":"2024-06-09T00:07:06.000Z","lat":"45","lon":0.0}"#,
        #"{"class":"TPV","mode":3,"time":"2024-06-09T25:07:06.000Z","lat":45.0,"lon":0.0}"#,
        #"{"class":"TPV","mode":3,"time":"2024-02-30T00:07:06.000Z","lat":45.0,"lon":0.0}"#,
        #"{"class":"TPV","mode":3,"time":"2024-06-09T00:07:06.000+02:00","lat":45.0,"lon":0.0}"#,
        #"{"class":"TPV","mode":3,"time":"2024-06-09T00:07:06.Z","lat":45.0,"lon":0.0}"#,
        #"{"class":"TPV","mode":3,"time":true,"lat":45.0,"lon":0.0}"#,
        #"{"class":"TPV","mode":7,"time":"2024-06-09T00:07:06Z","lat":45.0,"lon":0.0}"#,
        #"{"class":"TPV","mode":3,"time":"2024-06-09T00:07:06Z","lat":45.0,"lon":0.0,"speed":-1}"#,
        #"{"class":"TPV","mode":3,"time":"2024-06-09T00:07:06Z","lat":45.0,"lon":0.0,"track":"N"}"#,
    ])
    func malformed(line: String) {
        #expect(decode(line) == .malformed)
    }

    @Test("time forms: fraction of any length, +00:00, and old gpsd's Unix seconds")
    func times() throws {
        func time(_ t: String) -> (Int64, Int32)? {
            guard case .fix(let fix) = decode(#"{"class":"TPV","mode":2,"time":\#(t),"lat":1.0,"lon":2.0}"#) else { return nil }
            return (fix.time, fix.nanoseconds)
        }
        let base = unixTime(2024, 6, 9, 0, 7, 6)
        #expect(try #require(time(#""2024-06-09T00:07:06Z""#)) == (base, 0))
        #expect(try #require(time(#""2024-06-09T00:07:06.5+00:00""#)) == (base, 500_000_000))
        #expect(try #require(time(#""2024-06-09T00:07:06.123456789123Z""#)) == (base, 123_456_789))
        #expect(try #require(time("1717891626.25")) == (base, 250_000_000))
    }

    @Test("the beidou-bd replay: mode 1 and timeless reports skipped, two TPVs per epoch merged")
    func beidouReplay() throws {
        let (fixes, stats) = decodeAll(GPSDStreamDecoder(), try Samples.fixture("gpsd-beidou-bd.jsonl"))
        // gpsd 3.22 dated the 2015 capture 2034-10-11 (its week-rollover guess), as recorded.
        #expect(fixes.map(\.isoTime) == [
            "2034-10-11T07:41:56.799Z", "2034-10-11T07:41:57.799Z", "2034-10-11T07:41:58.799Z",
            "2034-10-11T07:41:59.799Z",
        ])
        // The second report of each epoch adds the track: merged in.
        #expect(fixes.allSatisfy { $0.course == 4.94 })
        #expect(fixes.allSatisfy { $0.speed != nil })
        #expect(stats[GPSDStatistics.self].positionReports == 18)
        #expect(stats.invalidFixes == 10)  // nine mode 1, one without a time
        #expect(stats[GPSDStatistics.self].mergedReports == 4)
        #expect(stats[GPSDStatistics.self].ignoredReports == 9)  // VERSION, DEVICES, WATCH, 3 DEVICE, 3 SKY
        #expect(stats[GPSDStatistics.self].malformedReports == 0)
        #expect(stats.fixes == 4)
    }

    @Test("the quectel-l76k replay: 11 fixes at 5 Hz, positions as in the truth file")
    func quectelReplay() throws {
        let (fixes, stats) = decodeAll(GPSDStreamDecoder(), try Samples.fixture("gpsd-quectel-l76k.jsonl"))
        #expect(fixes.count == 11)
        #expect(stats[GPSDStatistics.self].ignoredReports == 29)
        let truth = try Samples.truth("quectel-l76k-nmea")
        for fix in fixes {
            let reference = try #require(truth.first { $0.milliseconds == fix.milliseconds })
            #expect(metres(reference.latitude, reference.longitude, fix.latitude, fix.longitude) < 0.01)
            #expect(fix.mode.rawValue == reference.mode)
        }
        #expect(fixes.first?.mode == .twoD)
    }

    @Test("garbage lines, comments and an overlong line in a gpsd stream cost only themselves")
    func hostileStream() {
        let tpv = #"{"class":"TPV","mode":2,"time":"2024-06-09T00:07:06Z","lat":1.0,"lon":2.0}"#
        let tpv2 = #"{"class":"TPV","mode":2,"time":"2024-06-09T00:07:07Z","lat":1.0,"lon":2.0}"#
        let text = "# header\r\n" + tpv + "\r\nnot json\n" + String(repeating: "[", count: 70_000) + "\n\u{0}\u{1}\n" + tpv2
        let (fixes, stats) = decodeAll(GPSDStreamDecoder(), Array(text.utf8))
        #expect(fixes.count == 2)
        #expect(stats.commentLines == 1)
        #expect(stats.overlongLines == 1)
        #expect(stats[GPSDStatistics.self].malformedReports == 2)
    }
}
