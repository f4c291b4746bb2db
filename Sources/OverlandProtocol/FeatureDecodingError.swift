import OverlandJSON

/// Why a stored line could not be read back as a `LocationFeature`.
public enum FeatureDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line is not valid JSON.
    case invalidJSON(JSONError)
    /// The JSON is not a GeoJSON Feature with a Point geometry.
    case notAFeature
    /// The Feature is another record kind (trip, visit or action), not a location.
    case notALocation
    /// A key the feature needs is absent.
    case missingKey(String)
    /// A key holds a value of the wrong type or out of range.
    case invalidValue(key: String)

    /// A short lower-case phrase, such as "invalid value for key 'timestamp'".
    public var description: String {
        switch self {
        case .invalidJSON(let error): "invalid json: \(error)"
        case .notAFeature: "not a geojson point feature"
        case .notALocation: "a trip, visit or action record, not a location"
        case .missingKey(let key): "missing key '\(key)'"
        case .invalidValue(let key): "invalid value for key '\(key)'"
        }
    }
}
