import OverlandJSON

extension LocationFeature {
    /// Reads back a feature from one stored JSON line (with or without its newline).
    ///
    /// Requires a Point geometry with numeric coordinates and a `timestamp` string in the
    /// form `ISO8601UTC.parse` accepts. The keys the protocol always sends are read
    /// leniently: absent or `null` means unknown (-1, `[]`, `.unknown`, 0, ""), so that
    /// older lines still load; present with the wrong type is an error. Integer fields
    /// accept a number with a fraction and round it half away from zero. Motion words
    /// outside `Motion` are skipped and an unknown battery state reads as `.unknown`.
    /// Trip, visit and action records are refused with `.notALocation`.
    public init(jsonLine: some Collection<UInt8>) throws(FeatureDecodingError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(jsonLine)
        } catch {
            throw .invalidJSON(error)
        }
        try self.init(json: value)
    }

    /// Reads a feature from an already parsed JSON value, as `init(jsonLine:)` does.
    public init(json: JSONValue) throws(FeatureDecodingError) {
        guard json["type"]?.string == "Feature", json["geometry"]?["type"]?.string == "Point",
            let coordinates = json["geometry"]?["coordinates"]?.array, coordinates.count >= 2
        else { throw .notAFeature }
        guard let longitude = coordinates[0].double else { throw .invalidValue(key: "coordinates") }
        guard let latitude = coordinates[1].double else { throw .invalidValue(key: "coordinates") }
        guard let properties = json["properties"]?.object else { throw .missingKey("properties") }
        if properties["action"] != nil || properties["type"] != nil { throw .notALocation }
        let reader = PropertyReader(properties: properties)

        guard let text = properties["timestamp"] else { throw .missingKey("timestamp") }
        guard let timestampText = text.string, let timestamp = ISO8601UTC.parse(timestampText) else {
            throw .invalidValue(key: "timestamp")
        }
        self.init(
            longitude: longitude,
            latitude: latitude,
            timestamp: timestamp,
            altitude: try reader.integer("altitude", unknown: 0),
            speed: try reader.number("speed", unknown: -1),
            course: try reader.integer("course", unknown: -1),
            horizontalAccuracy: try reader.integer("horizontal_accuracy", unknown: -1),
            verticalAccuracy: try reader.integer("vertical_accuracy", unknown: -1),
            speedAccuracy: try reader.number("speed_accuracy", unknown: -1),
            courseAccuracy: try reader.number("course_accuracy", unknown: -1),
            motion: try reader.motion(),
            batteryState: BatteryState(rawValue: try reader.string("battery_state") ?? "") ?? .unknown,
            batteryLevel: try reader.number("battery_level", unknown: 0),
            wifi: try reader.string("wifi") ?? "",
            deviceID: try reader.string("device_id") ?? "",
            uniqueID: try reader.string("unique_id"),
            tripID: try reader.string("trip_id"),
            trackingStats: try reader.trackingStats()
        )
    }
}

/// Typed reads of a Feature's properties: absent or null gives the default, the wrong
/// type throws.
private struct PropertyReader {
    let properties: [String: JSONValue]

    func value(_ key: String) -> JSONValue? {
        guard let value = properties[key], !value.isNull else { return nil }
        return value
    }

    func number(_ key: String, unknown: Double) throws(FeatureDecodingError) -> Double {
        guard let value = value(key) else { return unknown }
        guard let number = value.double else { throw .invalidValue(key: key) }
        return number
    }

    func integer(_ key: String, unknown: Int) throws(FeatureDecodingError) -> Int {
        guard let value = value(key) else { return unknown }
        guard let number = value.double, let integer = CheckedInteger.rounded(number) else {
            throw .invalidValue(key: key)
        }
        return integer
    }

    func string(_ key: String) throws(FeatureDecodingError) -> String? {
        guard let value = value(key) else { return nil }
        guard let text = value.string else { throw .invalidValue(key: key) }
        return text
    }

    func bool(_ key: String, unknown: Bool) throws(FeatureDecodingError) -> Bool {
        guard let value = value(key) else { return unknown }
        guard let flag = value.bool else { throw .invalidValue(key: key) }
        return flag
    }

    func motion() throws(FeatureDecodingError) -> [Motion] {
        guard let value = value("motion") else { return [] }
        guard let words = value.array else { throw .invalidValue(key: "motion") }
        return words.compactMap { $0.string.flatMap(Motion.init(rawValue:)) }
    }

    func trackingStats() throws(FeatureDecodingError) -> TrackingStats? {
        let keys = ["pauses", "activity", "desired_accuracy", "deferred", "significant_change", "locations_in_payload"]
        guard keys.contains(where: { value($0) != nil }) else { return nil }
        let defaults = TrackingStats()
        return TrackingStats(
            pauses: try bool("pauses", unknown: defaults.pauses),
            activity: try string("activity") ?? defaults.activity,
            desiredAccuracy: try integer("desired_accuracy", unknown: defaults.desiredAccuracy),
            deferred: try integer("deferred", unknown: defaults.deferred),
            significantChange: try string("significant_change") ?? defaults.significantChange,
            locationsInPayload: try integer("locations_in_payload", unknown: defaults.locationsInPayload)
        )
    }
}
