import OverlandJSON

/// An endpoint URL with placeholders filled from the most recent point before each request
/// (protocol reference, section 5): `%TS` timestamp (ISO 8601), `%LAT`, `%LON`, `%SPD`
/// (m/s, -1 unknown), `%ACC` (horizontal accuracy, m, -1 unknown), `%ALT` (m), `%BAT`
/// (battery, 0...1).
///
/// Values are formatted as in a Feature and percent-encoded as RFC 3986 query values
/// (everything but `A-Z a-z 0-9 - . _ ~`), so `%TS` becomes `2015-10-01T15%3A00%3A00Z`.
/// Placeholders are matched exactly and upper-case only; they win over a percent-escape
/// that happens to spell the same letters (`%ACC` is never read as `%AC` + `C`). Without a
/// point every placeholder becomes empty.
public struct URLTemplate: Sendable, Equatable {
    /// The URL as configured, placeholders included.
    public let template: String
    /// Whether the URL holds any placeholder (and so needs a point to be expanded); found
    /// once, here: an encoder asks for every line it takes.
    public let hasPlaceholders: Bool

    /// Creates a template from a configured endpoint URL.
    public init(_ template: String) {
        self.template = template
        var found = false
        Self.scan(template) { _ in found = true } literal: { _ in }
        hasPlaceholders = found
    }

    /// The placeholders, longest first so that matching is unambiguous.
    static let placeholders: [(name: [UInt8], token: Token)] = [
        (Array("LAT".utf8), .latitude), (Array("LON".utf8), .longitude), (Array("SPD".utf8), .speed),
        (Array("ACC".utf8), .accuracy), (Array("ALT".utf8), .altitude), (Array("BAT".utf8), .battery),
        (Array("TS".utf8), .timestamp),
    ]

    enum Token { case timestamp, latitude, longitude, speed, accuracy, altitude, battery }

    /// The URL with every placeholder replaced by the percent-encoded value from `point`.
    public func expanded(with point: LocationFeature?) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(template.utf8.count + 64)
        Self.scan(template) { token in
            if let point { output.append(contentsOf: Self.percentEncoded(Self.value(token, of: point))) }
        } literal: { byte in
            output.append(byte)
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func scan(_ template: String, placeholder: (Token) -> Void, literal: (UInt8) -> Void) {
        let bytes = Array(template.utf8)
        var index = 0
        outer: while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                for (name, token) in Self.placeholders
                where index + name.count < bytes.count && bytes[(index + 1)...(index + name.count)].elementsEqual(name) {
                    placeholder(token)
                    index += 1 + name.count
                    continue outer
                }
            }
            literal(bytes[index])
            index += 1
        }
    }

    static func value(_ token: Token, of point: LocationFeature) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 24)
        switch token {
        case .timestamp:
            ISO8601UTC.append(point.timestamp, to: &writer.bytes)
        case .latitude:
            writer.appendDecimal(point.latitude, maxFractionDigits: 7)
        case .longitude:
            writer.appendDecimal(point.longitude, maxFractionDigits: 7)
        case .speed:
            if !(point.speed >= 0) || point.speed == .infinity {
                writer.appendRaw("-1")
            } else {
                writer.appendDecimal(point.speed, maxFractionDigits: 2)
            }
        case .accuracy:
            writer.appendInteger(point.horizontalAccuracy < 0 ? -1 : point.horizontalAccuracy)
        case .altitude:
            writer.appendInteger(point.altitude)
        case .battery:
            writer.appendDecimal(!(point.batteryLevel > 0) ? 0 : min(point.batteryLevel, 1), maxFractionDigits: 2)
        }
        return writer.bytes
    }

    /// `value` percent-encoded for a URL query value (RFC 3986: only unreserved characters
    /// stay as they are; every other byte of the UTF-8 becomes `%XX`, upper-case hex).
    public static func percentEncoded(_ value: String) -> String {
        String(decoding: percentEncoded(Array(value.utf8)), as: UTF8.self)
    }

    static func percentEncoded(_ bytes: [UInt8]) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.append(byte)
            default:
                output.append(UInt8(ascii: "%"))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            }
        }
        return output
    }
}
