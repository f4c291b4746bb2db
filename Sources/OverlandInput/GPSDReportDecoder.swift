import OverlandJSON

/// Decodes one line of gpsd JSON, as `gpspipe -w` prints it: one report object per line,
/// told apart by its `class`. A TPV report with mode 2 or 3, a time and a position becomes
/// a ``Fix``; other classes are ignored (see gpsd_json(5)).
///
/// TPV members used:
///
/// | member    | meaning                                  | becomes                      |
/// |-----------|------------------------------------------|------------------------------|
/// | `time`    | ISO 8601 UTC, fraction kept to the ns    | `time`, `nanoseconds`        |
/// |           | (gpsd before 3.10: Unix seconds, number) |                              |
/// | `mode`    | 0 unknown, 1 no fix, 2 2D, 3 3D          | `mode`                       |
/// | `lat`/`lon` | degrees                                | `latitude`/`longitude`       |
/// | `altMSL`  | metres above MSL (gpsd < 3.20: `alt`)    | `altitude`, 3D fixes only    |
/// | `speed`   | m/s                                      | `speed`                      |
/// | `track`   | degrees true                             | `course`                     |
/// | `status`  | 2 DGPS, 3 RTK fixed, 4 RTK float, 5/6 DR, 8 simulated | `quality`       |
/// | `epx`/`epy` | 95 % longitude/latitude error, m       | `horizontalAccuracy` = max   |
/// | `eph`     | 95 % horizontal error, m (gpsd ≥ 3.20)   | `horizontalAccuracy` if no epx/epy |
/// | `epv`     | 95 % vertical error, m                   | `verticalAccuracy`, 3D only  |
/// | `eps`     | 95 % speed error, m/s                    | `speedAccuracy`              |
/// | `epd`     | 95 % course error, degrees               | `courseAccuracy`             |
///
/// The accuracies are gpsd's own estimates at 95 % confidence (from its DOP model), so they
/// are about twice the one-sigma figures ``AccuracyModel`` makes from NMEA.
public enum GPSDReportDecoder {
    /// Limits for one report: gpsd's reports are small and shallow.
    static let limits = JSONLimits(maxDepth: 16, maxBytes: 1 << 20, maxStringBytes: 1 << 16)

    /// Decodes one line (one JSON object, no terminator needed).
    public static func decode(_ line: some Collection<UInt8>) -> GPSDDecodeResult {
        guard let report = try? JSONParser.parse(line, limits: limits),
            let className = report["class"]?.string
        else { return .malformed }
        guard className == "TPV" else { return .ignored(className) }
        return decodeTPV(report)
    }

    private static func decodeTPV(_ report: JSONValue) -> GPSDDecodeResult {
        guard let modeValue = report["mode"] else { return .noFix }
        guard let modeNumber = modeValue.int, (0...3).contains(modeNumber) else { return .malformed }
        guard modeNumber >= 2 else { return .noFix }
        let mode: FixMode = modeNumber == 3 ? .threeD : .twoD
        guard let timeValue = report["time"], let latitudeValue = report["lat"],
            let longitudeValue = report["lon"]
        else { return .noFix }
        guard let (time, nanoseconds) = parseTime(timeValue),
            let latitude = latitudeValue.double, abs(latitude) <= 90,
            let longitude = longitudeValue.double, abs(longitude) <= 180
        else { return .malformed }
        do {
            let altitude = try number(report["altMSL"]) ?? number(report["alt"])
            let speed = try number(report["speed"], in: 0...Double.greatestFiniteMagnitude)
            let course = try number(report["track"], in: 0...360)
            let epx = try number(report["epx"], in: 0...Double.greatestFiniteMagnitude)
            let epy = try number(report["epy"], in: 0...Double.greatestFiniteMagnitude)
            let eph = try number(report["eph"], in: 0...Double.greatestFiniteMagnitude)
            let epv = try number(report["epv"], in: 0...Double.greatestFiniteMagnitude)
            let eps = try number(report["eps"], in: 0...Double.greatestFiniteMagnitude)
            let epd = try number(report["epd"], in: 0...360)
            let status = try number(report["status"])
            let horizontal: Double? = if let epx, let epy { max(epx, epy) } else { eph }
            return .fix(
                Fix(
                    time: time, nanoseconds: nanoseconds, latitude: latitude, longitude: longitude,
                    altitude: mode == .threeD ? altitude : nil, speed: speed, course: course,
                    mode: mode, quality: status.flatMap { quality(gpsdStatus: $0) },
                    horizontalAccuracy: horizontal,
                    verticalAccuracy: mode == .threeD ? epv : nil,
                    speedAccuracy: eps, courseAccuracy: epd))
        } catch {
            return .malformed
        }
    }

    private struct WrongMember: Error {}

    /// A member that must be a number in a range when present.
    private static func number(
        _ value: JSONValue?, in range: ClosedRange<Double> = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
    ) throws(WrongMember) -> Double? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.double, range.contains(number) else { throw WrongMember() }
        return number
    }

    /// The fix quality of a gpsd TPV `status`.
    private static func quality(gpsdStatus status: Double) -> FixQuality? {
        switch status {
        case 1: .gps
        case 2: .dgps
        case 3: .rtkFixed
        case 4: .rtkFloat
        case 5, 6: .estimated
        case 8: .simulation
        case 9: .pps
        default: nil
        }
    }

    /// The TPV time: an ISO 8601 string, or (gpsd before 3.10) Unix seconds as a number.
    static func parseTime(_ value: JSONValue) -> (Int64, Int32)? {
        if let seconds = value.double {
            // Beyond ±1e11 s (3,000 years) is no time: the fix is dropped, not trapped on.
            guard abs(seconds) < 1e11, let whole = CheckedInteger.roundedDown(seconds),
                  let fraction = CheckedInteger.rounded((seconds - Double(whole)) * 1e9) else { return nil }
            var time = Int64(whole)
            var nanoseconds = Int32(fraction)
            if nanoseconds >= 1_000_000_000 {
                nanoseconds -= 1_000_000_000
                time += 1
            }
            return (time, nanoseconds)
        }
        guard let text = value.string else { return nil }
        return parseISO8601(Array(text.utf8))
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (or `+00:00`) into Unix seconds and
    /// nanoseconds; fraction digits past the ninth are dropped.
    static func parseISO8601(_ t: [UInt8]) -> (Int64, Int32)? {
        guard t.count >= 20 else { return nil }
        func digits(_ offset: Int, _ width: Int) -> Int? {
            var value = 0
            for i in offset..<(offset + width) {
                guard let d = ASCII.digitValue(t[i]) else { return nil }
                value = value * 10 + Int(d)
            }
            return value
        }
        guard let year = digits(0, 4), t[4] == ASCII.minus, let month = digits(5, 2), t[7] == ASCII.minus,
            let day = digits(8, 2), t[10] == UInt8(ascii: "T"), let hour = digits(11, 2), t[13] == ASCII.colon,
            let minute = digits(14, 2), t[16] == ASCII.colon, let second = digits(17, 2),
            let date = CivilDate(year: year, month: month, day: day),
            let time = TimeOfDay(hour: hour, minute: minute, second: second)
        else { return nil }
        var i = 19
        var nanoseconds: Int32 = 0
        if i < t.count && t[i] == ASCII.dot {
            i += 1
            var scale: Int32 = 100_000_000
            let start = i
            while i < t.count, let d = ASCII.digitValue(t[i]) {
                nanoseconds += Int32(d) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        let rest = t[i...]
        guard rest.elementsEqual("Z".utf8) || rest.elementsEqual("+00:00".utf8) else { return nil }
        return (date.daysSinceEpoch * 86_400 + Int64(time.seconds), nanoseconds)
    }
}
