import OverlandJSON
import OverlandProtocol

/// How one kind of setting travels: as JSON (the file, a server's `set`) and as text
/// (`overland config set KEY VALUE`).
struct Codec<Value>: Sendable {
    /// The allowed values, as a phrase for error messages.
    let allowed: String
    /// The value a JSON value stands for, or nil when it is refused.
    let decode: @Sendable (JSONValue) -> Value?
    /// The value as JSON.
    let encode: @Sendable (Value) -> JSONValue
    /// Command-line text as the JSON value it stands for; `decode` then judges it.
    let parse: @Sendable (String) -> JSONValue
    /// The value as a person reads and types it.
    let format: @Sendable (Value) -> String
}

extension Codec {
    /// One value of a fixed list, as a JSON string (a number for `BatchSize`). Text
    /// matches case-insensitively.
    static func choice<C: SettingChoice>(_ type: C.Type, asNumber: Bool = false) -> Codec<C> {
        choice(among: C.allCases, asNumber: asNumber)
    }

    /// One of `cases`, by name (as `choice`, for some of a type's values).
    static func choice<C: SettingChoice>(among cases: [C], asNumber: Bool = false) -> Codec<C> {
        Codec<C>(
            allowed: cases.map(\.name).joined(separator: ", "),
            decode: { json in
                if asNumber {
                    guard let number = json.int else { return nil }
                    return cases.first { $0.name == String(number) }
                }
                return json.string.flatMap { name in cases.first { $0.name == name } }
            },
            encode: { asNumber ? .number(Double($0.name)!) : .string($0.name) },
            parse: { text in
                let lower = text.lowercased()
                if let match = cases.first(where: { $0.name.lowercased() == lower }) {
                    return asNumber ? .number(Double(match.name)!) : .string(match.name)
                }
                return .string(text)
            },
            format: { $0.name }
        )
    }
}

extension Codec where Value == Bool {
    /// A JSON Boolean; text true/false, on/off or yes/no.
    static let bool = Codec(
        allowed: "true, false",
        decode: { $0.bool },
        encode: { .bool($0) },
        parse: { text in
            switch text.lowercased() {
            case "true", "on", "yes": return .bool(true)
            case "false", "off", "no": return .bool(false)
            default: return .string(text)
            }
        },
        format: { $0 ? "true" : "false" }
    )
}

extension Codec where Value == Double {
    /// A finite JSON number within `range`.
    static func number(in range: ClosedRange<Double>, allowed: String) -> Codec {
        Codec(
            allowed: allowed,
            decode: { json in json.double.flatMap { range.contains($0) ? $0 : nil } },
            encode: { .number($0) },
            parse: { text in Double(text).flatMap { $0.isFinite ? JSONValue.number($0) : nil } ?? .string(text) },
            format: { JSONText.render(.number($0)) }
        )
    }
}

extension Codec where Value == Int {
    /// A JSON number without a fraction within `range`.
    static func integer(in range: ClosedRange<Int>, allowed: String) -> Codec {
        Codec(
            allowed: allowed,
            decode: { json in json.int.flatMap { range.contains($0) ? $0 : nil } },
            encode: { .number(Double($0)) },
            parse: { text in Int(text).map { JSONValue.number(Double($0)) } ?? .string(text) },
            format: { String($0) }
        )
    }
}

extension Codec where Value == String? {
    /// A JSON string that `validate` accepts (and may normalise), or null for "not set".
    static func optionalText(allowed: String, validate: @escaping @Sendable (String) -> String?) -> Codec {
        Codec(
            allowed: allowed,
            decode: { json in
                if json.isNull { return .some(nil) }
                guard let text = json.string, let valid = validate(text) else { return nil }
                return .some(valid)
            },
            encode: { $0.map(JSONValue.string) ?? .null },
            parse: { .string($0) },
            format: { $0 ?? "" }
        )
    }
}

extension Codec where Value == WifiZone? {
    /// A JSON object `{"ssid":..,"latitude":..,"longitude":..}` or null; as text
    /// `SSID,LATITUDE,LONGITUDE`, split at the last two commas (an SSID may hold commas).
    static let wifiZone = Codec(
        allowed: "SSID,LATITUDE,LONGITUDE such as \"home,52.0907,5.1214\"",
        decode: { json in
            if json.isNull { return .some(nil) }
            guard let members = json.object, members.count == 3,
                let ssid = members["ssid"]?.string, WifiZone.isValidSSID(ssid),
                let latitude = members["latitude"]?.double, WifiZone.latitudeRange.contains(latitude),
                let longitude = members["longitude"]?.double, WifiZone.longitudeRange.contains(longitude)
            else { return nil }
            return .some(WifiZone(ssid: ssid, latitude: latitude, longitude: longitude))
        },
        encode: { zone in
            guard let zone else { return .null }
            return .object(["ssid": .string(zone.ssid), "latitude": .number(zone.latitude), "longitude": .number(zone.longitude)])
        },
        parse: { text in
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count >= 3,
                let latitude = Double(parts[parts.count - 2].trimmingSpaces()), latitude.isFinite,
                let longitude = Double(parts[parts.count - 1].trimmingSpaces()), longitude.isFinite
            else { return .string(text) }
            let ssid = parts.dropLast(2).joined(separator: ",")
            return .object(["ssid": .string(ssid), "latitude": .number(latitude), "longitude": .number(longitude)])
        },
        format: { zone in
            guard let zone else { return "" }
            return "\(zone.ssid),\(JSONText.render(.number(zone.latitude))),\(JSONText.render(.number(zone.longitude)))"
        }
    )
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
