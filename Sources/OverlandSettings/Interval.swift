import OverlandJSON

/// Time intervals as the settings and the flags spell them, one parser for all of them
/// (`commit_interval`, `min_time`, `send_interval`, `--commit-interval`, `--min-time`):
/// seconds as a number (`5`, `0.5`, in JSON a number or a string), or a number with a unit
/// `s`, `m` or `h` (`5s`, `1m`, `1.5h`), as the protocol writes its choices.
public enum Interval {
    /// The phrase error messages use for the syntax.
    public static let syntax = "seconds (5) or a number with s, m or h (5s, 1m, 1h)"

    /// Seconds, or nil when `text` is not an interval: digits with at most one decimal
    /// point, then at most one unit; no sign, exponent, space or other unit.
    public static func seconds(_ text: String) -> Double? {
        var digits = Substring(text)
        var scale = 1.0
        switch digits.last {
        case "s", "S": digits = digits.dropLast()
        case "m", "M": (digits, scale) = (digits.dropLast(), 60)
        case "h", "H": (digits, scale) = (digits.dropLast(), 3600)
        default: break
        }
        var points = 0
        for character in digits.utf8 {
            if character == UInt8(ascii: ".") { points += 1 } else if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(character) { return nil }
        }
        guard !digits.isEmpty, points <= 1, digits.first != ".", digits.last != ".", let value = Double(digits) else { return nil }
        return value * scale
    }

    /// Seconds from a JSON value: a non-negative finite number, or a string `seconds` reads.
    static func seconds(_ json: JSONValue) -> Double? {
        if let number = json.double { return number.isFinite && number >= 0 ? number : nil }
        return json.string.flatMap(seconds)
    }
}

/// A setting choice that is a time interval (`min_time`, `send_interval`): besides its
/// protocol spelling ("1m"), any interval of the same length names it (60, "60", "60s").
public protocol IntervalChoice: SettingChoice {
    /// The length in seconds, or nil for a choice that is not a length ("off").
    var intervalSeconds: Int? { get }
}

extension IntervalChoice {
    /// The choice `text` names: its spelling (any case), or an interval of its length.
    public init?(interval text: String) {
        let lower = text.lowercased()
        if let match = Self.allCases.first(where: { $0.name.lowercased() == lower }) {
            self = match
        } else if let seconds = Interval.seconds(text), let match = Self(seconds: seconds) {
            self = match
        } else {
            return nil
        }
    }

    /// The choice of exactly this length, if any.
    init?(seconds: Double) {
        guard let match = Self.allCases.first(where: { $0.intervalSeconds.map(Double.init) == seconds }) else { return nil }
        self = match
    }
}

extension MinTime: IntervalChoice {
    public var intervalSeconds: Int? { seconds }
}

extension SendInterval: IntervalChoice {
    public var intervalSeconds: Int? { seconds }
}

extension Codec {
    /// An interval choice: its spelling, or any interval of its length, in JSON as a number
    /// or a string; written back in the protocol's spelling.
    static func intervalChoice<C: IntervalChoice>(_ type: C.Type) -> Codec<C> {
        Codec<C>(
            allowed: C.allowedNames,
            decode: { json in
                if let text = json.string { return C(interval: text) }
                return Interval.seconds(json).flatMap { C(seconds: $0) }
            },
            encode: { .string($0.name) },
            parse: { text in .string(C(interval: text)?.name ?? text) },
            format: { $0.name }
        )
    }
}

extension Codec where Value == Double {
    /// An interval in seconds within `range`: a JSON number, or a string `Interval` reads.
    static func interval(in range: ClosedRange<Double>, allowed: String) -> Codec {
        Codec(
            allowed: allowed,
            decode: { json in Interval.seconds(json).flatMap { range.contains($0) ? $0 : nil } },
            encode: { .number($0) },
            parse: { text in Interval.seconds(text).map(JSONValue.number) ?? .string(text) },
            format: { JSONText.render(.number($0)) }
        )
    }
}
