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
        var fields = FeatureFields()
        for (key, value) in properties {
            if let known = FeatureFields.Key.named(key) { fields.set(known, FeatureFields.Value(value)) }
        }
        self = try fields.feature(longitude: longitude, latitude: latitude)
    }
}
