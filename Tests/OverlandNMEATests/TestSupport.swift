import TestSupport
import Foundation
import OverlandNMEA
import Testing

/// The sample data the tests read, all inside the repository: gpsd's regression captures in
/// `Tests/Fixtures/gpsd` (BSD-2-Clause, see its README) and gpsd JSON in `Fixtures` here.
enum Samples {
    /// `<repo>/Tests/OverlandNMEATests/TestSupport.swift` -> `<repo>/Tests/Fixtures`.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The twenty gpsd regression captures, by name.
    static let captureNames = [
        "april6_2019", "beidou-bd", "bu353-glonass", "firefly-II", "furuno_gl_ga", "gpsdf",
        "haicom-305N", "hp58534a", "magellan-ec10", "mt3339", "neo-m8n", "nmea-rtk",
        "quectel-l76k-nmea", "rst39", "sirfstarv-nmea", "skytraq-dgps", "sounder",
        "telit-he910", "ublox-8", "unicore-um621",
    ]

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        let url = directory.appendingPathComponent(relativePath)
        return [UInt8](try Data(contentsOf: url))
    }

    static func capture(_ name: String) throws -> [UInt8] {
        try bytes("gpsd/\(name).log")
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    /// The fixes gpsd reported for a capture, from `NAME.truth.jsonl`.
    static func truth(_ name: String) throws -> [TruthFix] {
        let text = String(decoding: try bytes("gpsd/\(name).truth.jsonl"), as: UTF8.self)
        return try text.split(separator: "\n").map { line in
            let object = try #require(try JSONScan.object(line.utf8), "\(line)")
            return try TruthFix(object)
        }
    }
}

/// One line of a truth file.
struct TruthFix {
    var time: String
    var seconds: Double
    var latitude: Double
    var longitude: Double
    var altitude: Double?
    var speed: Double?
    var track: Double?
    var mode: Int
    var reported: Set<String>

    init(_ object: [String: Any]) throws {
        time = try #require(object["time"] as? String)
        seconds = try #require(object["t"] as? NSNumber).doubleValue
        latitude = try #require(object["lat"] as? NSNumber).doubleValue
        longitude = try #require(object["lon"] as? NSNumber).doubleValue
        altitude = (object["altMSL"] as? NSNumber)?.doubleValue
        speed = (object["speed"] as? NSNumber)?.doubleValue
        track = (object["track"] as? NSNumber)?.doubleValue
        mode = try #require(object["mode"] as? NSNumber).intValue
        reported = Set(object["reported"] as? [String] ?? [])
    }

    /// Milliseconds since the epoch: the key fixes are matched on.
    var milliseconds: Int64 { Int64((seconds * 1000).rounded()) }
}

extension Fix {
    /// Milliseconds since the epoch, rounded.
    var milliseconds: Int64 { time * 1000 + Int64((Double(nanoseconds) / 1e6).rounded()) }

    /// The fix time as ISO 8601 with milliseconds, like the truth files.
    var isoTime: String { isoMilliseconds(milliseconds) }
}

/// Formats milliseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
func isoMilliseconds(_ milliseconds: Int64) -> String {
    let seconds = milliseconds.floorDivided(by: 1000)
    let date = CivilDate(daysSinceEpoch: seconds.floorDivided(by: 86_400))
    let second = seconds - seconds.floorDivided(by: 86_400) * 86_400
    let millis = milliseconds - seconds * 1000
    func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
    let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
    return "\(date.year)-\(two(Int64(date.month)))-\(two(Int64(date.day)))T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60)).\(ms)Z"
}

extension Int64 {
    func floorDivided(by divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }
}

/// Runs a stream decoder over `bytes` in chunks of `chunkSize` (0: all at once).
func decodeAll<D: FixStreamDecoder>(_ decoder: D, _ bytes: [UInt8], chunkSize: Int = 0) -> ([Fix], DecoderStatistics) {
    var decoder = decoder
    var fixes: [Fix] = []
    if chunkSize <= 0 {
        decoder.push(bytes, into: &fixes)
    } else {
        var i = 0
        while i < bytes.count {
            let j = Swift.min(i + chunkSize, bytes.count)
            decoder.push(bytes[i..<j], into: &fixes)
            i = j
        }
    }
    decoder.finish(into: &fixes)
    return (fixes, decoder.statistics)
}

/// Decodes NMEA text with the default stream decoder.
func decodeNMEA(
    _ text: String, datePolicy: DatePolicy = .fromStreamOnly, checksumPolicy: ChecksumPolicy = .requiredOnceSeen
) -> ([Fix], DecoderStatistics) {
    decodeAll(NMEAStreamDecoder(datePolicy: datePolicy, checksumPolicy: checksumPolicy), Array(text.utf8))
}

/// Decodes one sentence with a fresh decoder; fails the test unless it is a supported sentence.
func sentence(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> NMEASentence {
    var decoder = NMEASentenceDecoder()
    let result = decoder.decode(Array(line.utf8))
    guard case .sentence(let sentence) = result else {
        Issue.record("expected a sentence, got \(result)", sourceLocation: sourceLocation)
        throw DecodeFailure()
    }
    return sentence
}

/// Decodes one sentence with a fresh decoder.
func decodeResult(_ line: String, checksumPolicy: ChecksumPolicy = .requiredOnceSeen) -> NMEADecodeResult {
    var decoder = NMEASentenceDecoder(checksumPolicy: checksumPolicy)
    return decoder.decode(Array(line.utf8))
}

struct DecodeFailure: Error {}

/// Adds the checksum to `$...` text (without `*hh`).
func checksummed(_ body: String) -> String {
    let sum = NMEAChecksum.compute(body.utf8.dropFirst())
    let hex = String(sum, radix: 16, uppercase: true)
    return body + "*" + (hex.count == 1 ? "0" + hex : hex)
}

/// Degrees from degrees and decimal minutes, for hand checks.
func degrees(_ d: Double, _ minutes: Double) -> Double { d + minutes / 60 }

/// Distance in metres between two nearby points (equirectangular).
func metres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
    let dLat = (lat2 - lat1) * 111_320
    let dLon = (lon2 - lon1) * 111_320 * cos(lat1 * .pi / 180)
    return (dLat * dLat + dLon * dLon).squareRoot()
}

/// Unix seconds of a UTC date and time.
func unixTime(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Int64 {
    CivilDate(year: year, month: month, day: day)!.daysSinceEpoch * 86_400 + Int64(hour * 3600 + minute * 60 + second)
}
