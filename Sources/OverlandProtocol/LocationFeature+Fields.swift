import OverlandJSON

/// A location Feature's properties as read from a stored line, by either decoder (the
/// tree's `LocationFeature.init(json:)` and the pull reader's `readingLine`): the one
/// place that says which keys a location has, what each may hold, and what its absence
/// or `null` means (see `LocationFeature.init(jsonLine:)`).
struct FeatureFields {
    /// The property keys read, in the order their errors are reported.
    enum Key: Int, CaseIterable {
        case timestamp, altitude, speed, course, horizontalAccuracy, verticalAccuracy, speedAccuracy, courseAccuracy
        case motion, batteryState, batteryLevel, wifi, deviceID, uniqueID, tripID
        case pauses, activity, desiredAccuracy, deferred, significantChange, locationsInPayload
        /// Either makes the record another kind (an action, a trip or visit), whatever it holds.
        case action, type

        var name: StaticString {
            switch self {
            case .timestamp: "timestamp"
            case .altitude: "altitude"
            case .speed: "speed"
            case .course: "course"
            case .horizontalAccuracy: "horizontal_accuracy"
            case .verticalAccuracy: "vertical_accuracy"
            case .speedAccuracy: "speed_accuracy"
            case .courseAccuracy: "course_accuracy"
            case .motion: "motion"
            case .batteryState: "battery_state"
            case .batteryLevel: "battery_level"
            case .wifi: "wifi"
            case .deviceID: "device_id"
            case .uniqueID: "unique_id"
            case .tripID: "trip_id"
            case .pauses: "pauses"
            case .activity: "activity"
            case .desiredAccuracy: "desired_accuracy"
            case .deferred: "deferred"
            case .significantChange: "significant_change"
            case .locationsInPayload: "locations_in_payload"
            case .action: "action"
            case .type: "type"
            }
        }

        var text: String { name.withUTF8Buffer { String(decoding: $0, as: UTF8.self) } }

        static let names: [[UInt8]] = allCases.map { key in key.name.withUTF8Buffer { Array($0) } }

        /// The key spelled by `bytes`, nil for one a location does not read.
        static func named(_ bytes: UnsafeBufferPointer<UInt8>) -> Key? {
            guard let first = bytes.first else { return nil }
            for (index, name) in names.enumerated() where name.count == bytes.count && name[0] == first {
                if name.elementsEqual(bytes) { return Key(rawValue: index) }
            }
            return nil
        }

        static func named(_ text: String) -> Key? {
            var text = text
            return text.withUTF8 { named($0) }
        }
    }

    /// A property's value as far as a location cares: containers other than `motion`'s
    /// array are `other` (a wrong type for every key).
    enum Value {
        case null
        case number(Double)
        case string(String)
        case bool(Bool)
        /// An array: the known motion words among its strings.
        case words([Motion])
        case other

        /// The value of a parsed JSON value.
        init(_ json: JSONValue) {
            switch json {
            case .null: self = .null
            case .number(let number): self = .number(number)
            case .string(let text): self = .string(text)
            case .bool(let flag): self = .bool(flag)
            case .array(let elements): self = .words(elements.compactMap { $0.string.flatMap(Motion.init(rawValue:)) })
            case .object: self = .other
            }
        }
    }

    /// Each key's value, absent as nil; a repeated key keeps its last value.
    private var values = [Value?](repeating: nil, count: Key.allCases.count)

    mutating func set(_ key: Key, _ value: Value) { values[key.rawValue] = value }

    /// The feature at `longitude`, `latitude` with these properties; the first key in
    /// `Key` order that is missing or holds what its key does not allow is named.
    func feature(longitude: Double, latitude: Double) throws(FeatureDecodingError) -> LocationFeature {
        if values[Key.action.rawValue] != nil || values[Key.type.rawValue] != nil { throw .notALocation }
        guard let stamp = values[Key.timestamp.rawValue] else { throw .missingKey("timestamp") }
        guard case .string(let text) = stamp, let timestamp = ISO8601UTC.parse(text) else {
            throw .invalidValue(key: "timestamp")
        }
        return LocationFeature(
            longitude: longitude,
            latitude: latitude,
            timestamp: timestamp,
            altitude: try integer(.altitude, unknown: 0),
            speed: try number(.speed, unknown: -1),
            course: try integer(.course, unknown: -1),
            horizontalAccuracy: try integer(.horizontalAccuracy, unknown: -1),
            verticalAccuracy: try integer(.verticalAccuracy, unknown: -1),
            speedAccuracy: try number(.speedAccuracy, unknown: -1),
            courseAccuracy: try number(.courseAccuracy, unknown: -1),
            motion: try motion(),
            batteryState: BatteryState(rawValue: try string(.batteryState) ?? "") ?? .unknown,
            batteryLevel: try number(.batteryLevel, unknown: 0),
            wifi: try string(.wifi) ?? "",
            deviceID: try string(.deviceID) ?? "",
            uniqueID: try string(.uniqueID),
            tripID: try string(.tripID),
            trackingStats: try trackingStats()
        )
    }

    /// The value of `key`, nil when absent or null.
    private func value(_ key: Key) -> Value? {
        guard let value = values[key.rawValue] else { return nil }
        if case .null = value { return nil }
        return value
    }

    private func number(_ key: Key, unknown: Double) throws(FeatureDecodingError) -> Double {
        guard let value = value(key) else { return unknown }
        guard case .number(let number) = value else { throw .invalidValue(key: key.text) }
        return number
    }

    /// A number rounded half away from zero, which must fit an `Int`.
    private func integer(_ key: Key, unknown: Int) throws(FeatureDecodingError) -> Int {
        guard value(key) != nil else { return unknown }
        guard let integer = CheckedInteger.rounded(try number(key, unknown: 0)) else { throw .invalidValue(key: key.text) }
        return integer
    }

    private func string(_ key: Key) throws(FeatureDecodingError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw .invalidValue(key: key.text) }
        return text
    }

    private func bool(_ key: Key, unknown: Bool) throws(FeatureDecodingError) -> Bool {
        guard let value = value(key) else { return unknown }
        guard case .bool(let flag) = value else { throw .invalidValue(key: key.text) }
        return flag
    }

    private func motion() throws(FeatureDecodingError) -> [Motion] {
        guard let value = value(.motion) else { return [] }
        guard case .words(let words) = value else { throw .invalidValue(key: "motion") }
        return words
    }

    /// The tracking statistics, nil when none of their keys holds a value.
    private func trackingStats() throws(FeatureDecodingError) -> TrackingStats? {
        let keys: [Key] = [.pauses, .activity, .desiredAccuracy, .deferred, .significantChange, .locationsInPayload]
        guard keys.contains(where: { value($0) != nil }) else { return nil }
        let defaults = TrackingStats()
        return TrackingStats(
            pauses: try bool(.pauses, unknown: defaults.pauses),
            activity: try string(.activity) ?? defaults.activity,
            desiredAccuracy: try integer(.desiredAccuracy, unknown: defaults.desiredAccuracy),
            deferred: try integer(.deferred, unknown: defaults.deferred),
            significantChange: try string(.significantChange) ?? defaults.significantChange,
            locationsInPayload: try integer(.locationsInPayload, unknown: defaults.locationsInPayload)
        )
    }
}
