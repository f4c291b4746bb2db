import TestSupport
import Foundation
import OverlandJSON
import OverlandInput
import OverlandProtocol
import Testing

@testable import OverlandRecorder

/// Structure-aware fuzz of the numbers (issue 21): well-formed gpsd TPV reports and journal
/// lines whose numeric members are drawn from the values that trap an integer conversion
/// (huge, tiny, negative zero, exponents, the largest doubles), through every step that
/// turns them into integers: decoder, recorder, encoders, and the readers of a journal.
/// Nothing may trap, and what is written must fit what receivers take.
@Suite("numbers: structure-aware fuzz")
struct NumberFuzzTests {
    /// Number texts as they may appear in a gpsd report or a journal line: valid JSON numbers of
    /// every extreme, then texts a hostile writer may put where a number belongs.
    static let numbers = [
        "0", "-0", "-0.0", "0e0", "0.0E-0", "1", "-1", "0.3", "0.49999999999999994", "0.5", "1.5", "-12.5", "359.5", "360",
        "2147483647", "2147483647.5", "2147483648", "-2147483648.5", "9.2233720368547758e18", "9.3e18", "-9.3e18",
        "1e19", "-1e19", "4611686018427387904", "1e300", "-1e300", "1.7976931348623157e308", "-1.7976931348623157e308",
        "1e-300", "4.9e-324", "-4.9e-324", "2.2250738585072014e-308", "299792458", "299792458.01", "1E+2", "1e+02", "12345678901234567890",
        // NaN-like and overflowing texts, which JSON does not allow: the report is refused whole.
        "NaN", "-Infinity", "Infinity", "nan", "1e400", "-1e400", "0x10", "+1", "01", ".5", "1.", "-",
    ]

    static let tpvMembers = ["altMSL", "alt", "speed", "track", "eph", "epx", "epy", "epv", "eps", "epd", "status", "climb"]

    @Test("gpsd TPV reports with hostile numbers: decoded, recorded and encoded without a trap")
    func gpsdReports() throws {
        var random = SplitMix(state: FuzzBudget.seed(0x21_0001))
        var points = 0
        let rounds = try FuzzBudget.run(20_000, seconds: 3, minimum: 1_000) { _ in
            var report = #"{"class":"TPV","mode":3,"time":"2026-02-25T06:13:20.123Z","lat":45.49,"lon":-77.69"#
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let member = Self.tpvMembers.randomElement(using: &random) ?? "speed"
                let number = Self.numbers.randomElement(using: &random) ?? "0"
                report += #",""# + member + #"":"# + number
            }
            report += "}"
            guard case .fix(let fix) = GPSDReportDecoder.decode(Array(report.utf8)) else { return }
            var recorder = Recorder(configuration: RecorderConfiguration())
            guard let point = recorder.point(for: fix, device: .none) else { return }
            points += 1
            try Self.checkReceiversTake(point, source: report)
        }
        print("number fuzz: \(rounds) gpsd reports, \(points) points")
        #expect(points > 0)
    }

    @Test("journal lines with hostile numbers: every reader and encoder takes them")
    func journalLines() throws {
        var random = SplitMix(state: FuzzBudget.seed(0x21_0002))
        let keys = ["altitude", "speed", "course", "horizontal_accuracy", "vertical_accuracy", "speed_accuracy", "course_accuracy",
                    "battery_level", "desired_accuracy", "deferred", "locations_in_payload"]
        var decoded = 0
        let rounds = FuzzBudget.run(20_000, seconds: 3, minimum: 1_000) { _ in
            func number() -> String { Self.numbers.randomElement(using: &random) ?? "0" }
            var line = #"{"type":"Feature","geometry":{"type":"Point","coordinates":["# + number() + "," + number()
            line += #"]},"properties":{"timestamp":"2026-02-25T06:13:20Z""#
            for key in keys where Bool.random(using: &random) {
                line += #",""# + key + #"":"# + number()
            }
            line += "}}"
            guard let point = try? LocationFeature(jsonLine: Array(line.utf8)) else { return }
            decoded += 1
            // Everything a reader does with a stored point: encode it for each receiver.
            _ = point.jsonLine()
            _ = point.jsonLine(options: .wayfinder)
            _ = OwnTracksLocation(point: point, identity: OwnTracksIdentity(deviceID: "alice/van")).jsonBody()
            _ = TraccarPosition(point: point, deviceID: "van").jsonBody()
            _ = TripRecord.wholeMetres(point.speed * point.latitude)
        }
        print("number fuzz: \(rounds) journal lines, \(decoded) decoded")
        #expect(decoded > 0)
    }

    /// A logged point's numbers: integers within 32 bits, known accuracies never 0, speed
    /// up to the speed of light; its line reads back as the same point.
    static func checkReceiversTake(_ point: LocationFeature, source: String) throws {
        let limit = LocationFeature.wholeNumberLimit
        #expect((-limit...limit).contains(point.altitude), "\(source)")
        #expect((-1...359).contains(point.course), "\(source)")
        for accuracy in [point.horizontalAccuracy, point.verticalAccuracy] {
            #expect(accuracy == -1 || (1...limit).contains(accuracy), "\(accuracy): \(source)")
        }
        for measure in [point.speed, point.speedAccuracy] {
            #expect(measure == -1 || (0...PointMeasures.speedLimit).contains(measure), "\(measure): \(source)")
        }
        #expect(point.speedAccuracy != 0 && point.courseAccuracy != 0, "\(source)")
        let line = point.jsonLine()
        let back = try LocationFeature(jsonLine: line)
        #expect(back.altitude == point.altitude && back.horizontalAccuracy == point.horizontalAccuracy, "\(source)")
        let owntracks = OwnTracksLocation(point: point, identity: OwnTracksIdentity(deviceID: "alice/van"))
        if let accuracy = owntracks.accuracy { #expect(accuracy >= 1, "\(source)") }
        _ = owntracks.jsonBody()
    }
}
