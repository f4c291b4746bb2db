import OverlandInput
import Testing

/// The assembler learns the sentence that ends the receiver's cycle (gpsd's rule: the last
/// sentence before the time changes) and then emits each fix as that sentence arrives.
@Suite("Cycle ending")
struct CycleEndingTests {
    func lines(_ text: [String]) -> [UInt8] { Array((text.map(checksummed).joined(separator: "\r\n") + "\r\n").utf8) }

    func sirf(_ time: String) -> [String] {
        [
            "$GPGGA,\(time),4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,",
            "$GPGSA,A,3,02,05,06,12,13,15,19,25,,,,,1.8,1.0,1.5",
            "$GPRMC,\(time),A,4529.4585,N,07741.7789,W,2.75,205.4,140220,,,A",
            "$GPVTG,205.4,T,,M,2.75,N,5.09,K,A",
        ]
    }

    /// u-blox order: two GSA (GPS and GLONASS), GLL last.
    func ublox(_ time: String) -> [String] {
        [
            "$GNRMC,\(time),A,4529.4585,N,07741.7789,W,2.75,205.4,140220,,,A",
            "$GNVTG,205.4,T,,M,2.75,N,5.09,K,A",
            "$GNGGA,\(time),4529.4585,N,07741.7789,W,1,08,1.0,311.0,M,,,,",
            "$GNGSA,A,3,02,05,06,12,,,,,,,,,1.8,1.0,1.5",
            "$GNGSA,A,3,65,66,,,,,,,,,,,1.8,1.0,1.5",
            "$GNGLL,4529.4585,N,07741.7789,W,\(time),A,A",
        ]
    }

    @Test("the first cycle waits for the time change; later ones end at their ender")
    func learnsTheEnder() {
        var decoder = NMEAStreamDecoder(closesCyclesEarly: true)
        var fixes: [Fix] = []
        decoder.push(lines(sirf("180542.000")), into: &fixes)
        #expect(fixes.isEmpty, "nothing learned yet")
        decoder.push(lines(sirf("180543.000")), into: &fixes)
        #expect(fixes.map(\.time) == [1_581_703_542, 1_581_703_543], "VTG learned as the ender, the second fix at once")
        #expect(!decoder.hasOpenCycle)
        decoder.push(lines(sirf("180544.000")), into: &fixes)
        #expect(fixes.count == 3)
        decoder.finish(into: &fixes)
        #expect(fixes.count == 3)
        #expect(decoder.statistics.fixes == 3)
    }

    @Test("u-blox: the second GSA is not the end, GLL is")
    func occurrenceCounts() {
        var decoder = NMEAStreamDecoder(closesCyclesEarly: true)
        var fixes: [Fix] = []
        decoder.push(lines(ublox("180542.00") + ublox("180543.00")), into: &fixes)
        #expect(fixes.count == 2)
        // Now feed the next epoch sentence by sentence: only GLL emits.
        for (index, line) in ublox("180544.00").enumerated() {
            decoder.push(lines([line]), into: &fixes)
            #expect(fixes.count == (index == 5 ? 3 : 2), "after sentence \(index)")
        }
    }

    @Test("quiet input completes the open cycle; a late sentence of it is dropped and counted")
    func closeCycleOnQuiet() throws {
        var decoder = NMEAStreamDecoder(closesCyclesEarly: true)
        var fixes: [Fix] = []
        decoder.push(lines(sirf("180542.000")), into: &fixes)
        #expect(fixes.isEmpty && decoder.hasOpenCycle)
        decoder.closeCycle(into: &fixes)
        #expect(fixes.map(\.time) == [1_581_703_542])
        decoder.push(lines(["$GPGLL,4529.4585,N,07741.7789,W,180542.000,A,A"]), into: &fixes)
        decoder.push(lines(sirf("180543.000")), into: &fixes)
        decoder.finish(into: &fixes)
        #expect(fixes.map(\.time) == [1_581_703_542, 1_581_703_543])
        #expect(decoder.statistics.lateSentences == 1)
    }

    @Test("a wrong ender is unlearned when a sentence of its cycle comes late")
    func wrongEnderIsRelearned() {
        var decoder = NMEAStreamDecoder(closesCyclesEarly: true)
        var fixes: [Fix] = []
        // Two epochs end at VTG; then epochs carry a ZDA after the VTG.
        decoder.push(lines(sirf("180542.000") + sirf("180543.000")), into: &fixes)
        for second in 44...47 {
            decoder.push(lines(sirf("1805\(second).000") + ["$GPZDA,1805\(second).000,14,02,2020,00,00"]), into: &fixes)
        }
        decoder.finish(into: &fixes)
        #expect(fixes.map(\.time) == (42...47).map { 1_581_703_500 + Int64($0) }, "one fix per epoch, none twice")
        #expect(decoder.statistics.lateSentences == 1, "only the first ZDA came after its cycle was emitted")
    }

    @Test("files wait for the time change: every sentence of a cycle is merged")
    func filesDoNotCloseEarly() {
        var decoder = NMEAStreamDecoder()
        var fixes: [Fix] = []
        decoder.push(lines(sirf("180542.000") + sirf("180543.000") + sirf("180544.000")), into: &fixes)
        #expect(fixes.count == 2, "the third waits for the next time or the end")
        decoder.finish(into: &fixes)
        #expect(fixes.count == 3)
    }

    @Test("a wrong ender is not learned again (rst39: GGA at 10 Hz, RMC and ZDA each second)")
    func wrongEnderStaysUnlearned() {
        var decoder = NMEAStreamDecoder(closesCyclesEarly: true)
        var fixes: [Fix] = []
        func gga(_ t: String) -> String { "$GPGGA,\(t),4205.735585,N,08802.039368,W,2,08,1.0,221.873,M,,,4,0138" }
        for second in 32...36 {
            var epoch = [gga("2041\(second).00"), "$GPZDA,2041\(second).000,19,02,2014,,",
                         "$GPRMC,2041\(second).00,A,4205.735585,N,08802.039368,W,8.904,41.865,190214,,,D"]
            for tenth in 1...9 { epoch.append(gga("2041\(second).\(tenth)0")) }
            decoder.push(lines(epoch), into: &fixes)
        }
        decoder.finish(into: &fixes)
        #expect(fixes.count == 50)
        // Once GGA proved a wrong ender, every whole second keeps its RMC speed.
        let wholeSeconds = fixes.filter { $0.nanoseconds == 0 }
        #expect(wholeSeconds.count == 5)
        #expect(wholeSeconds.dropFirst(2).allSatisfy { $0.speed != nil })
        #expect(decoder.statistics.lateSentences <= 2)
    }

    @Test("the last position of a cycle wins, as in gpsd (a multiplexer relaying three sources)")
    func lastPositionWins() throws {
        let epoch = [
            "$GPRMC,120000.00,A,5000.0000,N,00100.0000,W,0.0,0.0,010124,,,A",
            "$GPGGA,120000.00,5000.00050,N,00100.00050,W,1,08,1.0,10.0,M,,,,",
            "$GPGLL,5000.0010,N,00100.0010,W,120000.00,A,A",
        ]
        let (fixes, _) = decodeNMEA(String(decoding: lines(epoch), as: UTF8.self))
        let fix = try #require(fixes.first)
        #expect(abs(fix.latitude - degrees(50, 0.0010)) < 1e-12)
        #expect(abs(fix.longitude + degrees(1, 0.0010)) < 1e-12)
        #expect(fix.altitude == 10.0, "GGA's altitude is kept")
    }

    @Test("the quiet interval follows the fix rate")
    func quietInterval() {
        var quiet = QuietInterval()
        #expect(quiet.seconds == QuietInterval.maximum)
        for tenth in 0..<5 {
            quiet.observe(Fix(time: 100, nanoseconds: Int32(tenth) * 200_000_000, latitude: 0, longitude: 0, mode: .twoD))
        }
        #expect(abs(quiet.seconds - 0.1) < 1e-9, "5 Hz: 0.1 s")
        var slow = QuietInterval()
        for second in [0, 10, 20] { slow.observe(Fix(time: Int64(second), latitude: 0, longitude: 0, mode: .twoD)) }
        #expect(slow.seconds == QuietInterval.maximum, "never more than a second")
    }
}
