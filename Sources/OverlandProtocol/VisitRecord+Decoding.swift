import OverlandJSON

extension VisitRecord {
    /// Reads back a visit record (`VisitRecord.jsonLine`) from a parsed line.
    ///
    /// Requires a Point geometry, `"action":"visit"` and an `arrival_date` that
    /// `ISO8601UTC.parse` accepts; `departure_date` is null (still there) or such a date.
    /// `horizontal_accuracy` defaults to 50 (the logger's radius) when absent; the device
    /// metadata is read leniently, as in a location Feature.
    public init(json: JSONValue) throws(FeatureDecodingError) {
        guard json["type"]?.string == "Feature", json["geometry"]?["type"]?.string == "Point",
              let coordinates = json["geometry"]?["coordinates"]?.array, coordinates.count >= 2
        else { throw .notAFeature }
        guard let longitude = coordinates[0].double, let latitude = coordinates[1].double,
              (-90...90).contains(latitude), (-180...180).contains(longitude)
        else { throw .invalidValue(key: "coordinates") }
        guard let properties = json["properties"], properties["action"]?.string == "visit" else { throw .notALocation }
        guard let arrivalText = properties["arrival_date"] else { throw .missingKey("arrival_date") }
        guard let arrival = arrivalText.string.flatMap({ ISO8601UTC.parse($0) }) else { throw .invalidValue(key: "arrival_date") }
        var departure: Int64?
        if let departureText = properties["departure_date"], !departureText.isNull {
            guard let time = departureText.string.flatMap({ ISO8601UTC.parse($0) }) else { throw .invalidValue(key: "departure_date") }
            departure = time
        }
        var accuracy = 50
        if let value = properties["horizontal_accuracy"], !value.isNull {
            guard let number = value.double, let metres = CheckedInteger.rounded(number, in: 0...999_999_999) else {
                throw .invalidValue(key: "horizontal_accuracy")
            }
            accuracy = metres
        }
        let level = properties["battery_level"]?.double ?? 0
        self.init(
            latitude: latitude, longitude: longitude, arrival: arrival, departure: departure,
            horizontalAccuracy: accuracy,
            device: DeviceMetadata(
                deviceID: properties["device_id"]?.string ?? "",
                batteryState: properties["battery_state"]?.string.flatMap(BatteryState.init(rawValue:)) ?? .unknown,
                batteryLevel: level.isFinite ? level : 0,
                wifi: properties["wifi"]?.string ?? ""))
    }
}
