import OverlandJSON

extension LocationFeature {
    /// The location Feature of a stored line read without a JSON tree (`JSONReader`), or
    /// nil when the line is anything but a well-formed location Feature that
    /// `init(json:)` would read: then the caller reads it through the tree, which decides
    /// (and names the error). What it gives is what `init(json:)` gives for the line.
    static func readingLine(_ line: ArraySlice<UInt8>) -> LocationFeature? {
        var point: LocationFeature?
        _ = JSONReader.read(line, limits: OwnTracksMessage.recordLimits) { (reader: inout JSONReader) throws(JSONError) in
            var fields = FeatureLineReader()
            guard try fields.readFeature(&reader) else { return false }
            point = fields.feature()
            return true
        }
        return point
    }
}

/// The members of a location Feature line as `LocationFeature.init(json:)` reads them:
/// absent or null is unknown, a repeated property keeps its last value (as the parser's
/// tree does). Anything it does not expect (a wrong type, a repeated top-level or
/// geometry member, `action` or `type` in the properties) makes `read` give false.
struct FeatureLineReader {
    /// The numeric properties, in the order of `numbers`.
    static let numberKeys: [StaticString] = [
        "altitude", "speed", "course", "horizontal_accuracy", "vertical_accuracy", "speed_accuracy",
        "course_accuracy", "battery_level", "desired_accuracy", "deferred", "locations_in_payload",
    ]
    /// The string properties, in the order of `strings`.
    static let stringKeys: [StaticString] = [
        "timestamp", "battery_state", "wifi", "device_id", "unique_id", "trip_id", "activity", "significant_change",
    ]

    /// Every property key read, numbers then strings (one lookup per key).
    static let propertyKeys: [[UInt8]] = (numberKeys + stringKeys + ["pauses", "motion", "action", "type"]).map {
        Array(UnsafeBufferPointer(start: $0.utf8Start, count: $0.utf8CodeUnitCount))
    }

    /// The index of `key` in `propertyKeys`, or nil for another key.
    static func propertyIndex(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = key.first else { return nil }
        for (index, name) in propertyKeys.enumerated() where name.count == key.count && name[0] == first {
            if name.elementsEqual(key) { return index }
        }
        return nil
    }

    var numbers = [Double?](repeating: nil, count: numberKeys.count)
    var strings = [String?](repeating: nil, count: stringKeys.count)
    var pauses: Bool?
    var motion: [Motion]?
    var isFeature = false
    var isPoint = false
    var coordinates: (Double, Double)?
    /// One bit per top-level and geometry member met (`once`).
    var seen: UInt8 = 0

    /// Reads the top-level object; false when the line is not as expected.
    mutating func readFeature(_ reader: inout JSONReader) throws(JSONError) -> Bool {
        guard try reader.next() == .objectStart else { return false }
        var hasProperties = false
        while case .key(let key) = try reader.next() {
            let value = try reader.next()
            if reader.text(key, is: "type") {
                guard once(0), case .string(let text) = value else { return false }
                isFeature = reader.text(text, is: "Feature")
            } else if reader.text(key, is: "geometry") {
                guard once(1), value == .objectStart, try readGeometry(&reader) else { return false }
            } else if reader.text(key, is: "properties") {
                guard once(2), value == .objectStart, try readProperties(&reader) else { return false }
                hasProperties = true
            } else {
                try reader.skip(value)
            }
        }
        return try reader.next() == .end && isFeature && isPoint && coordinates != nil && hasProperties
    }

    /// Whether the member numbered `member` is met for the first time.
    private mutating func once(_ member: Int) -> Bool {
        defer { seen |= 1 << member }
        return seen & (1 << member) == 0
    }

    private mutating func readGeometry(_ reader: inout JSONReader) throws(JSONError) -> Bool {
        while case .key(let key) = try reader.next() {
            let value = try reader.next()
            if reader.text(key, is: "type") {
                guard once(3), case .string(let text) = value else { return false }
                isPoint = reader.text(text, is: "Point")
            } else if reader.text(key, is: "coordinates") {
                guard once(4), value == .arrayStart, try readCoordinates(&reader) else { return false }
            } else {
                try reader.skip(value)
            }
        }
        return true
    }

    /// The first two elements, numbers; the rest skipped.
    private mutating func readCoordinates(_ reader: inout JSONReader) throws(JSONError) -> Bool {
        guard case .number(let longitude) = try reader.next(), case .number(let latitude) = try reader.next() else {
            return false
        }
        coordinates = (longitude, latitude)
        while true {
            let token = try reader.next()
            if token == .arrayEnd { return true }
            try reader.skip(token)
        }
    }

    private mutating func readProperties(_ reader: inout JSONReader) throws(JSONError) -> Bool {
        while case .key(let key) = try reader.next() {
            guard try readProperty(key, &reader) else { return false }
        }
        return true
    }

    /// One property's value, stored by its key; false for a value `init(json:)` refuses.
    private mutating func readProperty(_ key: JSONReader.Text, _ reader: inout JSONReader) throws(JSONError) -> Bool {
        let value = try reader.next()
        let found = key.hasEscapes
            ? Array(reader.string(key).utf8).withUnsafeBufferPointer { Self.propertyIndex($0) }
            : Self.propertyIndex(reader.bytes(key))
        guard let found else {
            try reader.skip(value)
            return true
        }
        let numberCount = Self.numberKeys.count, stringCount = Self.stringKeys.count
        switch (found, value) {
        case (..<numberCount, .null): numbers[found] = nil
        case (..<numberCount, .number(let number)): numbers[found] = number
        case (..<numberCount, _): return false
        case (..<(numberCount + stringCount), .null): strings[found - numberCount] = nil
        case (..<(numberCount + stringCount), .string(let text)): strings[found - numberCount] = reader.string(text)
        case (..<(numberCount + stringCount), _): return false
        case (numberCount + stringCount, .null): pauses = nil
        case (numberCount + stringCount, .bool(let flag)): pauses = flag
        case (numberCount + stringCount + 1, .null): motion = nil
        case (numberCount + stringCount + 1, .arrayStart): motion = try readMotion(&reader)
        default: return false  // pauses or motion of another type; `action` or `type`
        }
        return true
    }

    /// The motion words: what is not a known word (or not a string) is left out.
    private func readMotion(_ reader: inout JSONReader) throws(JSONError) -> [Motion] {
        var words: [Motion] = []
        while true {
            let token = try reader.next()
            if token == .arrayEnd { return words }
            if case .string(let text) = token, let word = Motion(rawValue: reader.string(text)) {
                words.append(word)
            }
            try reader.skip(token)
        }
    }

    /// The feature, or nil for a value `init(json:)` refuses (no timestamp, an integer out
    /// of range).
    func feature() -> LocationFeature? {
        guard let (longitude, latitude) = coordinates, let text = strings[0], let timestamp = ISO8601UTC.parse(text),
            let altitude = integer(0, unknown: 0), let course = integer(2, unknown: -1),
            let horizontal = integer(3, unknown: -1), let vertical = integer(4, unknown: -1),
            let stats = trackingStats()
        else { return nil }
        return LocationFeature(
            longitude: longitude, latitude: latitude, timestamp: timestamp, altitude: altitude,
            speed: numbers[1] ?? -1, course: course, horizontalAccuracy: horizontal, verticalAccuracy: vertical,
            speedAccuracy: numbers[5] ?? -1, courseAccuracy: numbers[6] ?? -1, motion: motion ?? [],
            batteryState: BatteryState(rawValue: strings[1] ?? "") ?? .unknown, batteryLevel: numbers[7] ?? 0,
            wifi: strings[2] ?? "", deviceID: strings[3] ?? "", uniqueID: strings[4], tripID: strings[5],
            trackingStats: stats)
    }

    /// The integer property numbered `index` (rounded), `unknown` when absent; nil when out
    /// of range.
    private func integer(_ index: Int, unknown: Int) -> Int? {
        guard let number = numbers[index] else { return unknown }
        return CheckedInteger.rounded(number)
    }

    /// The tracking statistics (`.some(nil)` when none of its members is present); nil when
    /// one of its integers is out of range.
    private func trackingStats() -> TrackingStats?? {
        guard pauses != nil || strings[6] != nil || strings[7] != nil || numbers[8] != nil || numbers[9] != nil
            || numbers[10] != nil
        else { return .some(nil) }
        let defaults = TrackingStats()
        guard let desired = integer(8, unknown: defaults.desiredAccuracy), let deferred = integer(9, unknown: defaults.deferred),
            let inPayload = integer(10, unknown: defaults.locationsInPayload)
        else { return nil }
        return TrackingStats(
            pauses: pauses ?? defaults.pauses, activity: strings[6] ?? defaults.activity, desiredAccuracy: desired,
            deferred: deferred, significantChange: strings[7] ?? defaults.significantChange,
            locationsInPayload: inPayload)
    }
}
