import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("overland-log: stationary filter and drip-fed input")
struct LogFilterAndDripTests {
    /// A parked receiver wandering within its accuracy, then driving off.
    static func parkedThenDriving() -> String {
        var text = ""
        for index in 0..<30 {
            // Drift of up to 3 m (0.00003 degrees of latitude), speed 0.1 kn, HDOP 1 (5 m).
            let jitter = Double(index % 4) * 0.00001
            let lat = GeneratedNMEA.nmeaAngle(45.5 + jitter, degreeDigits: 2)
            text += Self.epoch(index, lat: lat, knots: "0.10")
        }
        for index in 30..<35 {
            let lat = GeneratedNMEA.nmeaAngle(45.5 + Double(index - 29) * 0.0002, degreeDigits: 2)
            text += Self.epoch(index, lat: lat, knots: "27.50")
        }
        return text
    }

    static func epoch(_ index: Int, lat: String, knots: String) -> String {
        var seconds = time_t(GeneratedNMEA.time(index))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let hhmmss = String(format: "%02d%02d%02d.000", parts.tm_hour, parts.tm_min, parts.tm_sec)
        return nmea("GPGGA,\(hhmmss),\(lat),N,07742.0000,W,1,08,1.0,311.0,M,,,,")
            + nmea("GPRMC,\(hhmmss),A,\(lat),N,07742.0000,W,\(knots),45.0,140220,,,A")
    }

    @Test func stationaryFilterKeepsOnePointWhileParked() throws {
        let sandbox = try LogSandbox()
        let path = try sandbox.file("parked.nmea", text: Self.parkedThenDriving())
        // Off by default: every fix.
        #expect(try sandbox.log([path]).succeeded)
        #expect(sandbox.recordCount() == 35)
        let filtered = try LogSandbox()
        #expect(try filtered.overland.run(["config", "set", "stationary_filter", "true"]).succeeded)
        let result = try filtered.log([path, "--stats"])
        #expect(result.succeeded, "\(result)")
        #expect(try filtered.records().map(\.timestamp) == [0, 30, 31, 32, 33, 34].map { GeneratedNMEA.time($0) })
        #expect(result.stderrText.contains("29 standing still"), "\(result.stderrText)")
    }

    /// The same bytes through a pipe in 7-byte chunks and as a file: the same points.
    @Test func dripFedInputGivesTheSameResultAsAWholeFile() throws {
        let text = GeneratedNMEA.epochs(0..<40)
        let whole = try LogSandbox()
        #expect(try whole.log([try whole.file("a.nmea", text: text), "--device-id", "drip"]).succeeded)

        let dripped = try LogSandbox()
        let fifo = try dripped.fifo()
        let child = try dripped.startLogging(["--device-id", "drip"], from: fifo)
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            fifo.write(Array(bytes[offset..<min(offset + 7, bytes.count)]))
            offset += 7
            // Read before more is written: the logger sees a few bytes at a time.
            if offset % 700 == 0 { fifo.waitUntilRead() }
        }
        fifo.close()
        let result = child.wait()
        #expect(result.succeeded, "\(result)")
        #expect(try dripped.records().map(\.line) == whole.records().map(\.line))
    }
}
